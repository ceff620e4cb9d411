import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';
import { IsTrustedProxyList, trustedProxyList } from './trusted-proxies';
import { IsRetrySchedule, retryScheduleMs } from './retry-schedule';

const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

// Decimal digits only: Number() would also read " 42 ", 0x50, 1e3 and 0b11. Anything else stays a string and fails @IsInt.
const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value);
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/**
 * Every setting of the service, read from the environment and validated at start:
 * a wrong value stops the process with a message naming the variable.
 */
export class AppConfig {
  /** HTTP port of the API (0 picks a free one). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /**
   * PostgreSQL connection string; unset means the embedded database (PGlite) in DATA_DIR.
   * @example postgresql://app:secret@localhost:5432/workspace_admin
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  /**
   * A direct connection to the same PostgreSQL server, for what a pooler in transaction mode
   * cannot carry: LISTEN (the key cache's revocation notices) and the migrations' session lock
   * (`npm run db:migrate`). Set it when DATABASE_URL points at a pooler such as PgBouncer;
   * unset, DATABASE_URL serves both.
   * @example postgresql://app:secret@db:5432/workspace_admin
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_DIRECT_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_DIRECT_URL?: string;

  /**
   * A streaming read replica of the PostgreSQL database (a hot standby, or a pooler in front of
   * one): reads that may lag behind the latest writes (the lists, the metering policy) go there;
   * reads a client bases its next write on (a resource by id with its ETag), every write and
   * everything inside one stay on DATABASE_URL (docs/scaling.md, "Reads on a replica"). While the
   * replica cannot be reached those reads go to DATABASE_URL. Unset: every read goes to DATABASE_URL.
   * Not with the embedded database, which has no replicas.
   * @example postgresql://app:secret@db-replica:5432/workspace_admin
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_REPLICA_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_REPLICA_URL?: string;

  /** Embedded database directory (only without DATABASE_URL); `memory://` keeps it in memory only. */
  @IsString()
  @MinLength(1)
  DATA_DIR = '.data/pglite';

  /** PostgreSQL connections per instance. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE = 10;

  /** Connections per instance to DATABASE_REPLICA_URL (only when it is set). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_REPLICA_POOL_SIZE = 10;

  /**
   * Longest a request waits for a free pooled PostgreSQL connection (or for a new one to open)
   * before it is answered 503 with `Retry-After: 1` (logged as "Database busy", not as an outage).
   * Requests beyond the pool's size queue meanwhile.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  DATABASE_POOL_TIMEOUT_MS = 5000;

  /**
   * Longest one PostgreSQL statement may run, waiting for a lock included (a table locked by a
   * migration or an admin session), before the service cancels it and answers 503 with
   * `Retry-After: 1`, in milliseconds. Kept by the service (a cancel request), not by a session
   * setting, so it holds behind a connection pooler too (docs/operations.md).
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  DATABASE_STATEMENT_TIMEOUT_MS = 5000;

  /**
   * Distinct hot statements each PostgreSQL connection keeps prepared (parsed and planned once).
   * `0` sends every statement unnamed: needed behind a pooler in transaction mode that does not
   * carry prepared statements across its server connections (PgBouncer before 1.21, or 1.21+ with
   * `max_prepared_statements = 0`).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000)
  DATABASE_PREPARED_STATEMENTS = 100;

  /**
   * `on`: API key revocations reach every instance at once through LISTEN/NOTIFY. `off`, for a
   * database without them (CockroachDB; docs/scaling.md): each instance polls the revocation
   * version every API_KEY_REVOCATION_POLL_MS instead, and a revocation takes effect everywhere
   * within that interval. Every instance and the admin CLI of one deployment must agree.
   */
  @IsIn(['on', 'off'])
  DATABASE_NOTIFICATIONS: 'on' | 'off' = 'on';

  /** The least severe lines written: `log` writes events and one line per request (pino's `info` level). */
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevelName = 'log';

  /** `json`: one JSON object per line, for log collectors (the container image sets it); `text`: one readable line each, for people. */
  @IsIn(['text', 'json'])
  LOG_FORMAT: 'text' | 'json' = 'text';

  /** Largest JSON request body, in bytes (413 beyond). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  JSON_BODY_LIMIT_BYTES = 1024 * 1024;

  /** Largest package upload, in bytes (413 beyond). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  PACKAGE_UPLOAD_LIMIT_BYTES = 20 * 1024 * 1024;

  /** Largest icon upload, in bytes (413 beyond). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  ICON_UPLOAD_LIMIT_BYTES = 1024 * 1024;

  /**
   * Uploads one instance receives at once; one more is answered 503 with Retry-After before its
   * body is read (docs/uploads.md).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  UPLOADS_IN_FLIGHT_LIMIT = 16;

  /**
   * Bytes of uploads one instance holds in memory at once (icons, packages on the embedded
   * database, and the piece of a streamed package being written); an upload that would pass it is
   * answered 503 with Retry-After and nothing of it is kept.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1024 * 1024)
  UPLOAD_BUFFER_LIMIT_BYTES = 64 * 1024 * 1024;

  /** An upload whose body sends nothing for this long is answered 408 and dropped, in milliseconds. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  UPLOAD_STALL_TIMEOUT_MS = 10_000;

  /**
   * Bytes of uploads an organization may keep stored (until the purge removes expired ones); an
   * upload past it is 413 UPLOAD_QUOTA_EXCEEDED. 0 turns the quota off.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  UPLOAD_STORAGE_QUOTA_BYTES = 1024 * 1024 * 1024;

  /** How long an upload can be applied to an expert suite (as upload_id / icon_upload_id), in seconds; served icons stay. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  UPLOAD_TTL_SECONDS = 24 * 60 * 60;

  /**
   * How often each instance removes expired uploads nothing needs (packages; icons no suite uses,
   * see docs/uploads.md), in seconds; 0 turns the purge off.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  UPLOAD_PURGE_INTERVAL_SECONDS = 15 * 60;

  /** How long a successful idempotent response is kept for replay, in seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

  /**
   * Longest a request waits for another request with the same Idempotency-Key that is still being
   * processed, in milliseconds: if that one finishes in time, this one gets its replay; otherwise
   * 409 IDEMPOTENCY_REQUEST_IN_PROGRESS with `Retry-After: 1` (docs/idempotency.md).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  IDEMPOTENCY_CLAIM_WAIT_MS = 1000;

  /** How often each instance deletes expired idempotency records, in seconds; 0 turns the purge off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  IDEMPOTENCY_PURGE_INTERVAL_SECONDS = 15 * 60;

  /** How long audit events are kept, in days (docs/audit.md); older ones are deleted by the audit purge. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  AUDIT_RETENTION_DAYS = 365;

  /** How often each instance deletes audit events older than AUDIT_RETENTION_DAYS, in seconds; 0 turns the purge off (events are then kept for ever). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  AUDIT_PURGE_INTERVAL_SECONDS = 60 * 60;

  /** How long a metering policy read from the database is answered from memory as fresh, in milliseconds. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  METERING_CACHE_TTL_MS = 5000;

  /** How old a cached metering policy may be and still be answered (as `stale`) while the database is unreachable, in seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  METERING_MAX_STALENESS_SECONDS = 15 * 60;

  /** Most organizations whose metering policy is kept in memory; the least recently read go first. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  METERING_CACHE_MAX_ENTRIES = 10_000;

  /**
   * While the database is unreachable, a key last verified less than this long ago is still
   * accepted by routes that can answer from cached data (the metering policy), in seconds; 0 turns this off.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  API_KEY_OUTAGE_GRACE_SECONDS = 15 * 60;

  /**
   * Longest a verified API key is answered from memory without the database, in seconds. Revocations
   * reach every instance at once through NOTIFY; this age bounds the rest (a lost notification). 0 looks
   * every key up.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  API_KEY_CACHE_MAX_AGE_SECONDS = 300;

  /**
   * With DATABASE_NOTIFICATIONS=off, how often each instance reads the revocation version, in
   * milliseconds: a revocation takes effect on every instance within this (twice this at worst,
   * when a read is slow), and a cached key is answered only while the last read is that recent.
   */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  API_KEY_REVOCATION_POLL_MS = 1000;

  /** Requests per minute per API key; 0 turns rate limiting off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE = 600;

  /**
   * Requests per minute that fail authentication (401) from one client address (under TRUST_PROXY the
   * address taken from `X-Forwarded-For`); past it that address's requests without a valid key get
   * 429 for a minute. Counted with the per-key limits (in Redis when REDIS_URL is set). 0 turns it off.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  AUTH_FAILURE_LIMIT_PER_MINUTE = 60;

  /**
   * Redis that holds the rate-limit counters (`rediss://` for TLS), so that all instances share each
   * key's budget; unset: each instance counts in its own memory (N instances allow N × the limit).
   * While Redis is unreachable the instance counts in memory and keeps serving, and goes back to Redis
   * when it answers (docs/operations.md). The URL is never logged (only host and port).
   * @example redis://:password@redis:6379/0
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /** Put before every key the service writes to Redis, so that several services or environments can share one Redis. */
  @Matches(/^[\w:.-]+$/, { message: 'REDIS_KEY_PREFIX must be letters, digits and _ : . - only' })
  REDIS_KEY_PREFIX = 'workspace-admin:';

  /**
   * The proxies (load balancers) in front of the service whose `X-Forwarded-For` is believed:
   * comma-separated IP addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the names `loopback`,
   * `linklocal`, `uniquelocal` (Express's `trust proxy` list); the client address is then the
   * rightmost address in `X-Forwarded-For` that is not a trusted proxy. Unset: nobody is trusted and
   * the client address is the connection's peer, whatever a client puts in `X-Forwarded-For`. `true`
   * and hop counts are refused (trusting whoever connects is what this prevents).
   * @example uniquelocal
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsTrustedProxyList()
  TRUST_PROXY?: string;

  /**
   * Longest a database transaction may wait for and hold a connection before it is rolled back, in
   * milliseconds; on PostgreSQL a statement still running at that point (blocked on a lock) is cancelled.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  TRANSACTION_TIMEOUT_MS = 15000;

  /**
   * On SIGTERM/SIGINT: how long readiness answers 503 while new connections are still served, so
   * that a load balancer stops sending before the listener closes, in milliseconds: the balancer's
   * health-check interval times its failure threshold (the image sets 5000). 0 for a process no balancer feeds.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SHUTDOWN_DELAY_MS = 0;

  /**
   * How long an idle keep-alive connection stays open, in milliseconds. Above the idle timeout of the load
   * balancer in front (60 s on common ones), so that the balancer, not the service, closes idle
   * connections: otherwise it may send a request on a connection the service is just closing.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  /** Longest the request headers may take to arrive, in milliseconds; keep it above the keep-alive timeout, as Node advises. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  HTTP_HEADERS_TIMEOUT_MS = 66_000;

  /** After SHUTDOWN_DELAY_MS: how long requests in flight may take to finish before their connections are cut, in milliseconds. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  /**
   * Port of the separate HTTP server answering `GET /metrics` (Prometheus text format); unset: no
   * metrics server, 0: a free port. Never the API port, so that metrics are not public by accident
   * (the image sets 9464).
   * @example 9464
   */
  @Transform((params) => toInt({ value: emptyToUndefined(params) }))
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * Address clients reach the service at, without a trailing slash: used in the addresses the service
   * hands out (icon_url) and the start-up message. Unset: the scheme and Host of each request, checked
   * (a Host that is not a host is 400; from X-Forwarded-Proto only http or https); set it behind a proxy.
   * @example https://admin-api.example.com
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+[^/\s]$/, { message: 'PUBLIC_BASE_URL must be an http(s) URL without a trailing slash' })
  PUBLIC_BASE_URL?: string;

  /**
   * Browser origins allowed to call the API cross-origin, comma-separated exact origins
   * (`https://admin.example.com,http://localhost:5173`); unset or empty: no CORS headers at all.
   * Allowed origins may use the methods `GET`, `HEAD`, `POST`, `PUT`, `PATCH`, `DELETE`, send the headers `Authorization`,
   * `Content-Type`, `Idempotency-Key`, `If-Match`, `If-None-Match`, `X-Request-Id` and read the headers
   * `X-Request-Id`, `Idempotent-Replayed`, `Retry-After`, `RateLimit`, `RateLimit-Policy`, `ETag`.
   * @example https://admin.example.com,http://localhost:5173
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^/\s,]+(\s*,\s*https?:\/\/[^/\s,]+)*$/, {
    message: 'CORS_ORIGINS must be comma-separated http(s) origins without a path (https://app.example.com)',
  })
  CORS_ORIGINS?: string;

  /**
   * With NODE_ENV=production the embedded database is used only when this is `true`: a missing or
   * misspelled DATABASE_URL must not quietly start a production service on a local database.
   * A production start on the embedded database never prints a demo key (issue keys with the CLI).
   */
  @IsIn(['true', 'false'])
  EMBEDDED_DATABASE_IN_PRODUCTION: 'true' | 'false' = 'false';

  /**
   * `true` lets webhook endpoints use `http` and private, loopback and link-local addresses (tests,
   * receivers inside the cluster). `false`: only `https` URLs whose host resolves to public
   * addresses, checked at creation and again at every delivery (docs/webhooks.md).
   */
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' | 'false' = 'false';

  /** Whether this instance delivers webhooks (every instance does by default; deliveries are shared out through the database). */
  @IsIn(['true', 'false'])
  WEBHOOK_WORKER_ENABLED: 'true' | 'false' = 'true';

  /** Longest a webhook delivery may take to resolve the receiver's address and connect (TLS included), in milliseconds. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  WEBHOOK_CONNECT_TIMEOUT_MS = 5000;

  /** Longest a receiver may take to answer a delivery once connected (the whole answer), in milliseconds; longer counts as a failed attempt. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  WEBHOOK_RESPONSE_TIMEOUT_MS = 10_000;

  /**
   * How often each instance looks for due webhook deliveries without being woken, in milliseconds.
   * New events wake the workers at once through NOTIFY; this catches retries that fall due and any
   * wake-up missed while the listening connection was down.
   */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  WEBHOOK_POLL_INTERVAL_MS = 2000;

  /** Webhook deliveries one instance sends at once (and claims per statement). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_WORKER_CONCURRENCY = 16;

  /**
   * Webhook deliveries of one organization that one instance sends at once, of its
   * WEBHOOK_WORKER_CONCURRENCY: the rest stay free for other organizations, so that one
   * organization's backlog or slow receivers cannot hold up another's deliveries.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_ORGANIZATION_CONCURRENCY = 4;

  /**
   * How long an endpoint whose receiver failed is left alone, with all its deliveries, after 1, 2, …
   * failed attempts in a row (the last wait repeats), each ±10 %; then one delivery probes it, and
   * its first success lets the others through again. Same format as WEBHOOK_RETRY_SCHEDULE.
   * @example 5s,30s,2m,5m
   */
  @IsRetrySchedule()
  WEBHOOK_ENDPOINT_BACKOFF = '5s,30s,2m,5m';

  /** Webhook endpoints one organization may have; creating one more is 422 WEBHOOK_ENDPOINT_LIMIT_REACHED. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_ENDPOINTS_PER_ORGANIZATION = 20;

  /**
   * The waits between the attempts of a webhook delivery, comma-separated, each a number with `ms`,
   * `s`, `m` or `h`: a failed first attempt is retried after the first wait, and so on; after the
   * last, the delivery is failed. Each wait gets ±10 % jitter. The default is Standard Webhooks' (Svix's) schedule.
   * @example 5s,5m,30m,2h,5h,10h,10h
   */
  @IsRetrySchedule()
  WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

  get corsOrigins(): string[] {
    return this.CORS_ORIGINS ? this.CORS_ORIGINS.split(',').map((origin) => origin.trim()) : [];
  }

  get trustedProxies(): string[] {
    return this.TRUST_PROXY ? trustedProxyList(this.TRUST_PROXY) : [];
  }

  /** WEBHOOK_RETRY_SCHEDULE in milliseconds. */
  get webhookRetryDelaysMs(): number[] {
    return retryScheduleMs(this.WEBHOOK_RETRY_SCHEDULE);
  }

  /** WEBHOOK_ENDPOINT_BACKOFF in milliseconds. */
  get webhookEndpointBackoffMs(): number[] {
    return retryScheduleMs(this.WEBHOOK_ENDPOINT_BACKOFF);
  }

  get usesEmbeddedDatabase(): boolean {
    return this.DATABASE_URL === undefined;
  }
}

export class ConfigError extends Error {}

/**
 * What is wrong with one value. Not an integer says it all: the range checks of such a value fail
 * too, and "must not be greater than 65535; must not be less than 0" would contradict each other.
 */
function constraintMessages(constraints: Record<string, string>): string {
  return constraints.isInt ?? Object.values(constraints).join('; ');
}

// Settings without a default: absent from Object.keys(new AppConfig()).
const OPTIONAL_SETTINGS = ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_REPLICA_URL', 'PUBLIC_BASE_URL', 'CORS_ORIGINS', 'REDIS_URL', 'TRUST_PROXY', 'METRICS_PORT'];

/** The names of every setting: the environment variables the service reads. */
export function settingNames(): string[] {
  return [...Object.keys(new AppConfig()), ...OPTIONAL_SETTINGS];
}

/** Reads and validates the settings; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const values: Record<string, unknown> = {};
  for (const name of settingNames()) {
    if (env[name] !== undefined) values[name] = env[name];
  }
  const config = plainToInstance(AppConfig, { ...values, ...overrides });
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => `  ${e.property}=${JSON.stringify(values[e.property] ?? e.value)}: ${constraintMessages(e.constraints ?? {})}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (config.DATABASE_DIRECT_URL !== undefined && config.DATABASE_URL === undefined) {
    throw new ConfigError('Invalid configuration:\n  DATABASE_DIRECT_URL is set without DATABASE_URL: set DATABASE_URL too (the pooled connections), or neither.');
  }
  if (config.DATABASE_REPLICA_URL !== undefined && config.DATABASE_URL === undefined) {
    throw new ConfigError(
      'Invalid configuration:\n  DATABASE_REPLICA_URL is set without DATABASE_URL: the embedded database has no replicas; set DATABASE_URL to the primary PostgreSQL database, or unset DATABASE_REPLICA_URL.',
    );
  }
  if (isProduction(env) && config.usesEmbeddedDatabase && config.EMBEDDED_DATABASE_IN_PRODUCTION !== 'true') {
    throw new ConfigError(
      'Invalid configuration:\n  DATABASE_URL is not set, and NODE_ENV=production: set DATABASE_URL to the PostgreSQL database ' +
        '(or EMBEDDED_DATABASE_IN_PRODUCTION=true to run on the embedded database on purpose).',
    );
  }
  return config;
}

export function isProduction(env: Record<string, string | undefined> = process.env): boolean {
  return env.NODE_ENV === 'production';
}

// Shorter names (HOST, USER…) are two edits away from PORT without being typos of it.
const MIN_TYPO_LENGTH = 8;

// Words our setting names begin with that are distinctive enough to flag an unknown variable by.
const SETTING_PREFIX = /^(DATABASE|UPLOAD|IDEMPOTENCY|METERING|SHUTDOWN|TRANSACTION|EMBEDDED|API_KEY|RATE_LIMIT|JSON_BODY|PACKAGE_UPLOAD|ICON_UPLOAD|PUBLIC_BASE|REDIS|TRUST_PROX|METRICS|WEBHOOK)/;

/**
 * Environment variables that look like one of our settings but are none (a typo such as
 * DATABSE_URL or DATABASE_POOL_SIZ): they are ignored, so start-up warns about them.
 */
export function unknownSettingLookalikes(env: Record<string, string | undefined> = process.env): string[] {
  const known = new Set(settingNames());
  return Object.keys(env)
    .filter((name) => !known.has(name))
    .filter((name) => SETTING_PREFIX.test(name) || (name.length >= MIN_TYPO_LENGTH && [...known].some((setting) => editDistanceAtMost2(name, setting))))
    .sort();
}

/** Whether a can be turned into b by at most two single-character insertions, deletions or substitutions. */
function editDistanceAtMost2(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] <= 2;
}
