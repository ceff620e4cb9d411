import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import request from 'supertest';
import { AdminService } from '../../src/admin/admin.service';
import { createApp } from '../../src/app.factory';
import type { AppModuleOptions } from '../../src/app.module';
import { VerifiedKeyCache } from '../../src/common/auth/verified-key-cache';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { Database, openDatabase } from '../../src/database/database';
import { APP_REGISTRIES } from '../../src/app.module';
import { fileDatabaseUrl, serverDatabaseUrl } from './postgres-test-databases';
import { checkResponsesAgainstDocument, failOnResponseViolations } from './openapi-response-check';

// Every answer of every app built here is held to the OpenAPI document: a test fails when an
// answer it caused differs (a file fails for answers caused in its set-up and tear-down).
afterEach(failOnResponseViolations);
afterAll(failOnResponseViolations);

/**
 * PostgreSQL when TEST_DATABASE_URL is set (CI runs both): this test file's own copy of the migrated
 * template (test/support/postgres-test-databases.ts); otherwise undefined, for an in-memory PGlite.
 */
export function testDatabaseUrl(): string | undefined {
  const server = serverDatabaseUrl();
  return server && fileDatabaseUrl(server, expect.getState().testPath ?? '');
}

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return loadConfig(
    {},
    {
      DATABASE_URL: testDatabaseUrl(),
      DATA_DIR: 'memory://',
      LOG_LEVEL: 'error',
      RATE_LIMIT_PER_MINUTE: 0,
      AUTH_FAILURE_LIMIT_PER_MINUTE: 0,
      ...overrides,
    },
  );
}

/** Opens the test database and applies the migrations (a no-op when already applied). */
export async function openTestDatabase(config: AppConfig = testConfig()): Promise<Database> {
  const database = await openDatabase(config);
  await database.migrate();
  return database;
}

export interface TestApp {
  app: NestExpressApplication;
  http: () => ReturnType<typeof request>;
  close(): Promise<void>;
}

/** An app instance over `database`; several instances may share one database. Log lines go to `logDestination` when given (see captureLogs). */
export async function startTestApp(
  database: Database,
  overrides: Partial<AppConfig> = {},
  extraModules: AppModuleOptions['extraModules'] = [],
  logDestination?: DestinationStream,
): Promise<TestApp> {
  const app = await createApp({ config: testConfig(overrides), database, extraModules, logDestination });
  checkResponsesAgainstDocument(app);
  return {
    app,
    http: () => request(app.getHttpServer()),
    close: () => app.close(),
  };
}

export interface TestTenant {
  organizationId: string;
  apiKeyId: string;
  apiKey: string;
  /** The Authorization header value. */
  bearer: string;
}

/** A fresh organization with a key holding `scopes` (all three by default). */
export async function createTenant(database: Database, scopes: readonly string[] = APP_REGISTRIES.scopes.names): Promise<TestTenant> {
  const admin = new AdminService(database.sql);
  const organization = await admin.createOrganization(`Tenant ${Math.random().toString(36).slice(2, 8)}`);
  const key = await admin.createApiKey(organization.id, [...scopes]);
  return { organizationId: organization.id, apiKeyId: key.id, apiKey: key.key, bearer: `Bearer ${key.key}` };
}

export async function createApiKey(database: Database, organizationId: string, scopes: readonly string[]): Promise<TestTenant> {
  const key = await new AdminService(database.sql).createApiKey(organizationId, [...scopes]);
  return { organizationId, apiKeyId: key.id, apiKey: key.key, bearer: `Bearer ${key.key}` };
}

/**
 * Revokes a key in this process and returns once every given app instance has heard the
 * revocation. PGlite delivers it before the revoking statement returns; PostgreSQL on each
 * instance's own listening connection, which can be a moment behind the revoking one.
 */
export async function revokeAndAwaitNotice(database: Database, apiKeyId: string, ...apps: TestApp[]): Promise<void> {
  const spies = apps.map((testApp) => jest.spyOn(testApp.app.get(VerifiedKeyCache), 'revoked'));
  try {
    await new AdminService(database.sql).revokeApiKey(apiKeyId);
    await until(() => spies.every((spy) => spy.mock.calls.some(([id]) => id === apiKeyId)));
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Waits for a condition; the test's own timeout bounds the wait. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

export interface TestDatabaseFixture {
  database: Database;
  /** Organizations, keys and suites made directly, as the CLI makes them. */
  admin: AdminService;
}

/**
 * For the tests of one file: the test database, closed after the file. Its fields are set in
 * beforeAll. `config` sets the database's own settings (the transaction deadline, the statement
 * timeout), which an app's overrides do not reach: the database is opened before the app.
 */
export function useTestDatabase(config?: AppConfig): TestDatabaseFixture {
  const fixture = {} as TestDatabaseFixture;
  beforeAll(async () => {
    fixture.database = await openTestDatabase(config);
    fixture.admin = new AdminService(fixture.database.sql);
  });
  afterAll(async () => {
    await fixture.database?.close();
  });
  return fixture;
}

export interface TestAppFixture extends TestDatabaseFixture {
  app: TestApp;
  /** An organization whose key holds every scope. */
  tenant: TestTenant;
  http: () => ReturnType<typeof request>;
  /** A new draft expert suite of the organization (the file's tenant's by default). */
  newSuite: (organizationId?: string) => ReturnType<AdminService['createExpertSuite']>;
  /** An Idempotency-Key no other request of the run has used. */
  newIdempotencyKey: () => string;
  /** With `listen`: the loopback port the app listens on, and its address. */
  port: number;
  baseUrl: string;
}

/** Starts `testApp` listening on a free loopback port; returns its base address (`http://127.0.0.1:<port>`). */
export async function listenOnLoopback(testApp: TestApp): Promise<string> {
  await testApp.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(testApp.app.getHttpServer().address() as AddressInfo).port}`;
}

export interface TestAppOptions {
  overrides?: Partial<AppConfig>;
  extraModules?: AppModuleOptions['extraModules'];
  /** Listen on a free loopback port, for raw sockets, browsers and child processes, which supertest cannot stand in for. */
  listen?: boolean;
  /** Where the app's log lines go instead of stdout (test/support/log-capture.ts). */
  logDestination?: DestinationStream;
  /**
   * A database the file opened with useTestDatabase, shared by its describe blocks, instead of one
   * of the app's own (opening one costs the most of a fixture's set-up). It stays open after the app.
   */
  database?: TestDatabaseFixture;
}

let idempotencyKeys = 0;

/**
 * For the tests of one file: the test database, an app instance on it and a tenant holding every
 * scope, closed after the file. Fields are set in beforeAll.
 */
export function useTestApp({ overrides = {}, extraModules = [], listen = false, logDestination, database }: TestAppOptions = {}): TestAppFixture {
  const fixture = {
    http: () => fixture.app.http(),
    newSuite: (organizationId = fixture.tenant.organizationId) => fixture.admin.createExpertSuite(organizationId, `suite-${randomUUID().slice(0, 8)}`),
    newIdempotencyKey: () => `test-${process.pid}-${Date.now()}-${++idempotencyKeys}`,
  } as TestAppFixture;
  beforeAll(async () => {
    fixture.database = database?.database ?? (await openTestDatabase());
    fixture.admin = new AdminService(fixture.database.sql);
    fixture.app = await startTestApp(fixture.database, overrides, extraModules, logDestination);
    fixture.tenant = await createTenant(fixture.database);
    if (listen) {
      fixture.baseUrl = await listenOnLoopback(fixture.app);
      fixture.port = Number(new URL(fixture.baseUrl).port);
    }
  });
  afterAll(async () => {
    await fixture.app?.close();
    if (!database) await fixture.database?.close();
  });
  return fixture;
}

export interface TwoInstances {
  database: Database;
  /** The instance most requests go to. */
  app: TestApp;
  /** A second instance on the same database, as behind a load balancer. */
  otherApp: TestApp;
}

/**
 * For the tests of one file (or describe block): a database and two app instances on it with the
 * same settings and modules, closed after them. With `database`, the file's shared database,
 * which stays open.
 */
export function useTwoInstances({ overrides = {}, extraModules = [], database }: Pick<TestAppOptions, 'overrides' | 'extraModules' | 'database'> = {}): TwoInstances {
  const context = {} as TwoInstances;
  beforeAll(async () => {
    context.database = database?.database ?? (await openTestDatabase());
    [context.app, context.otherApp] = await Promise.all([startTestApp(context.database, overrides, extraModules), startTestApp(context.database, overrides, extraModules)]);
  });
  afterAll(async () => {
    await Promise.all([context.app?.close(), context.otherApp?.close()]);
    if (!database) await context.database?.close();
  });
  return context;
}
