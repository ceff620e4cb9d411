# Node 24, the current LTS line (Node 20 reached end-of-life in April 2026); CI runs the suite on it.
# Pinned by version like the other images of compose.yaml, so that a rebuild gets the Node it was
# tested with; one ARG for the three stages.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY prisma ./prisma
# postinstall runs `prisma generate`, which needs only the schema (it builds only where scripts/build.mjs exists).
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY src ./src
COPY bench ./bench
# The build compiles bench/ too (one tsconfig); the benchmark is not part of the image. The
# embedded database template it also prepares (78 MB) is left behind: the image runs on
# PostgreSQL; an image started on the embedded database on purpose prepares its template once, at
# its first start (about 10 s more).
RUN npm run build && rm -rf dist/bench

# Production dependencies only, and of them only what the service loads: not the Prisma CLI and
# TypeScript, which npm would add as peers of @prisma/client (--legacy-peer-deps keeps them out);
# no install scripts (ours generates the Prisma client: the build stage did); and of Prisma's query
# compilers only the one the generated client loads (PostgreSQL, the small build: see the
# generator in prisma/schema.prisma). test/production-install.e2e-spec.ts runs these commands and
# starts the service on the result.
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --legacy-peer-deps --ignore-scripts --no-audit --no-fund \
 && find node_modules/@prisma/client/runtime -name 'query_compiler_*' ! -name 'query_compiler_small_bg.postgresql.js' ! -name 'query_compiler_small_bg.postgresql.wasm-base64.js' -delete

FROM ${NODE_IMAGE}
# MALLOC_ARENA_MAX is npm start's too (a test keeps them equal; docs/adr/0015-node-24-and-the-shipped-v8-options.md).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    PORT=3000 \
    LOG_FORMAT=json \
    METRICS_PORT=9464 \
    SHUTDOWN_DELAY_MS=5000 \
    DATA_DIR=/var/lib/workspace-admin/pglite
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
# The embedded database's directory, for an image run on it on purpose (mount a volume here). No
# VOLUME: the API replicas run on PostgreSQL and keep nothing on disk, and a VOLUME would give each
# of them an anonymous volume all the same.
RUN mkdir -p /var/lib/workspace-admin && chown node:node /var/lib/workspace-admin
USER node
# 9464: GET /metrics (Prometheus), for the scraper only; publish 3000 alone through the load balancer.
EXPOSE 3000 9464
# Liveness, not readiness: a database outage must not get every replica restarted while it still
# serves stale metering answers (readiness is /readyz, for the load balancer). Plain bash, so no
# Node process is started per probe.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/$PORT && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# Run node directly (not npm) so that SIGTERM reaches the service and it shuts down cleanly. The
# same command as `npm start` (a test keeps them equal); its V8 options are explained in
# docs/adr/0015-node-24-and-the-shipped-v8-options.md.
CMD ["node", "--liftoff-only", "--no-maglev", "--max-semi-space-size=16", "--heap-growing-percent=100", "dist/src/main.js"]
