import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';

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
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /** PostgreSQL connection string; when unset the embedded database (PGlite) is used. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  /** Where the embedded database keeps its files; `memory://` keeps it in memory only. */
  @IsString()
  @MinLength(1)
  DATA_DIR = '.data/pglite';

  /** Where uploaded files are stored (local-disk storage). */
  @IsString()
  @MinLength(1)
  UPLOAD_DIR = '.data/uploads';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE = 10;

  /**
   * Longest a request waits for a free pooled PostgreSQL connection (or for a new one to open)
   * before it is answered 503 with Retry-After. Requests beyond the pool's size queue meanwhile.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  DATABASE_POOL_TIMEOUT_MS = 10_000;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevelName = 'log';

  /** `json`: one JSON object per line, for log collectors; `text`: for people. */
  @IsIn(['text', 'json'])
  LOG_FORMAT: 'text' | 'json' = 'text';

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  JSON_BODY_LIMIT_BYTES = 1024 * 1024;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  PACKAGE_UPLOAD_LIMIT_BYTES = 20 * 1024 * 1024;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  ICON_UPLOAD_LIMIT_BYTES = 1024 * 1024;

  /** How long an upload may be named by upload_id / icon_upload_id after it was made. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  UPLOAD_TTL_SECONDS = 24 * 60 * 60;

  /** How often each instance removes expired uploads nothing needs any more; 0 turns the purge off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  UPLOAD_PURGE_INTERVAL_SECONDS = 15 * 60;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

  /** How often each instance deletes expired idempotency records; 0 turns the purge off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  IDEMPOTENCY_PURGE_INTERVAL_SECONDS = 15 * 60;

  /** How long a metering policy read from the database is answered from memory as fresh. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  METERING_CACHE_TTL_MS = 5000;

  /** How old a cached metering policy may be and still be answered as stale while the database is unreachable. */
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
   * accepted by routes that can answer from cached data (the metering policy); 0 turns this off.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  API_KEY_OUTAGE_GRACE_SECONDS = 15 * 60;

  /**
   * Longest a verified API key is answered from memory without the database. Revocations reach
   * every instance at once through NOTIFY; this age bounds the rest (a lost notification). 0 = no cache.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  API_KEY_CACHE_MAX_AGE_SECONDS = 300;

  /** Requests per minute per API key; 0 turns rate limiting off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE = 600;

  /** Longest a database transaction may run before it is rolled back. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  TRANSACTION_TIMEOUT_MS = 15000;

  /**
   * On SIGTERM/SIGINT: how long readiness answers 503 while new connections are still served, so
   * that a load balancer stops sending before the listener closes. 0 for a process no balancer feeds.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SHUTDOWN_DELAY_MS = 0;

  /** Then: how long requests in flight may take to finish before their connections are cut. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  /** Base URL clients reach the service at; used for addresses the service hands out (icon_url). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+[^/\s]$/, { message: 'PUBLIC_BASE_URL must be an http(s) URL without a trailing slash' })
  PUBLIC_BASE_URL?: string;

  get usesEmbeddedDatabase(): boolean {
    return this.DATABASE_URL === undefined;
  }
}

export class ConfigError extends Error {}

/** Reads and validates the settings; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const known = Object.keys(new AppConfig());
  const values: Record<string, unknown> = {};
  for (const name of [...known, 'DATABASE_URL', 'PUBLIC_BASE_URL']) {
    if (env[name] !== undefined) values[name] = env[name];
  }
  const config = plainToInstance(AppConfig, { ...values, ...overrides });
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => `  ${e.property}=${JSON.stringify(values[e.property] ?? e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}
