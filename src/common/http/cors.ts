import type { INestApplication } from '@nestjs/common';

/** The methods the API's routes answer (HEAD with every GET); test/security-headers.e2e-spec.ts compares them with the OpenAPI document. */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Request headers a browser client of the API sends beyond the CORS-safelisted ones. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-Id'];
/** Answer headers a browser client needs to read (correlation, replays, back-off, concurrency). */
const EXPOSED_HEADERS = ['X-Request-Id', 'Idempotent-Replayed', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'ETag'];

/** CORS only for the configured origins; with none, no Access-Control-* header is ever sent. */
export function useCors(app: INestApplication, origins: string[]): void {
  if (origins.length === 0) return;
  app.enableCors({
    origin: origins,
    methods: ALLOWED_METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
