import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { useTwoInstances, type TestAppOptions, type TwoInstances } from './test-app';

/** The Redis every test run shares (CI starts it: .ci/run, ensure_redis). */
export const SHARED_REDIS_URL = 'redis://127.0.0.1:6379';
export const REDIS_SERVER = '/usr/bin/redis-server';

// Asked once, synchronously, when a test file is loaded: jest decides there whether to skip.
function sharedRedisAnswers(): boolean {
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `const socket = require('node:net').connect(6379, '127.0.0.1');
       socket.setTimeout(2000, () => process.exit(1));
       socket.on('error', () => process.exit(1));
       socket.on('data', (data) => process.exit(String(data).startsWith('+PONG') ? 0 : 1));
       socket.write('PING\\r\\n');`,
    ],
    { timeout: 5000 },
  );
  return probe.status === 0 && existsSync(REDIS_SERVER);
}

const redisAvailable = sharedRedisAnswers();

/**
 * `describe` for tests that need Redis at 127.0.0.1:6379 and the redis-server program. Without
 * them a developer's machine skips the file; CI (CI=true) runs it anyway, so that it fails.
 */
export const describeWithRedis = redisAvailable || process.env.CI === 'true' ? describe : describe.skip;

export interface SharedRedis {
  /** A prefix no other test run uses: keys of this file only, removed after it. */
  keyPrefix: string;
  /** A client of the shared Redis, without the prefix. */
  client: Redis;
  keys(): Promise<string[]>;
}

/** For the tests of one file: the shared Redis and a key prefix of their own, cleaned up after the file. */
export function useSharedRedis(): SharedRedis {
  const context = { keyPrefix: `wsa-test:${randomUUID()}:` } as SharedRedis;
  context.keys = () => keysWithPrefix(context.client, context.keyPrefix);
  beforeAll(async () => {
    if (!redisAvailable) throw new Error(`Redis at ${SHARED_REDIS_URL} (with ${REDIS_SERVER}) is needed and CI=true: start it (.ci/run does)`);
    context.client = new Redis(SHARED_REDIS_URL);
  });
  afterAll(async () => {
    if (!context.client) return;
    const keys = await context.keys();
    if (keys.length > 0) await context.client.del(...keys);
    context.client.disconnect();
  });
  return context;
}

/**
 * For the tests of one describe block: two app instances on the file's database that share the
 * Redis at SHARED_REDIS_URL under a key prefix of their own (removed afterwards), as instances
 * behind a load balancer do. Fields are set in beforeAll.
 */
export function useTwoInstancesOnSharedRedis({ overrides = {}, ...options }: Pick<TestAppOptions, 'overrides' | 'extraModules' | 'database'>): { redis: SharedRedis; instances: TwoInstances } {
  const redis = useSharedRedis();
  const instances = useTwoInstances({ ...options, overrides: { ...overrides, REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: redis.keyPrefix } });
  return { redis, instances };
}

export async function keysWithPrefix(client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** A redis-server of the test's own, on a free port, that the test can stop and start again. */
export class OwnRedisServer {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async onFreePort(): Promise<OwnRedisServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return new OwnRedisServer(port);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (nothing persisted, so a restart begins empty) and waits until it answers. */
  async start(): Promise<void> {
    this.process = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (;;) {
      const client = new Redis(this.url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.ping();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        client.disconnect();
      }
    }
  }

  async stop(): Promise<void> {
    const running = this.process;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }

  /** Freezes it: connections stay open, nothing is answered (a hung or overloaded Redis). */
  pause(): void {
    this.process?.kill('SIGSTOP');
  }

  resume(): void {
    this.process?.kill('SIGCONT');
  }

  client(): Redis {
    return new Redis(this.url);
  }
}
