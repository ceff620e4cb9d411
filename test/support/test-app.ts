import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import request from 'supertest';
import { AdminService } from '../../src/admin/admin.service';
import { createApp } from '../../src/app.factory';
import type { AppModuleOptions } from '../../src/app.module';
import { VerifiedKeyCache } from '../../src/common/auth/verified-key-cache';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { Database, openDatabase } from '../../src/database/database';
import { allScopes } from '../../src/common/auth/scope-catalog';

/** PostgreSQL when TEST_DATABASE_URL is set (CI runs both), otherwise an in-memory PGlite. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return loadConfig(
    {},
    {
      DATABASE_URL: testDatabaseUrl(),
      DATA_DIR: 'memory://',
      UPLOAD_DIR: mkdtempSync(join(tmpdir(), 'wsa-uploads-')),
      LOG_LEVEL: 'error',
      RATE_LIMIT_PER_MINUTE: 0,
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
export async function createTenant(database: Database, scopes: readonly string[] = allScopes()): Promise<TestTenant> {
  const admin = new AdminService(database.prisma);
  const organization = await admin.createOrganization(`Tenant ${Math.random().toString(36).slice(2, 8)}`);
  const key = await admin.createApiKey(organization.id, [...scopes]);
  return { organizationId: organization.id, apiKeyId: key.id, apiKey: key.key, bearer: `Bearer ${key.key}` };
}

export async function createApiKey(database: Database, organizationId: string, scopes: readonly string[]): Promise<TestTenant> {
  const key = await new AdminService(database.prisma).createApiKey(organizationId, [...scopes]);
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
    await new AdminService(database.prisma).revokeApiKey(apiKeyId);
    await until(() => spies.every((spy) => spy.mock.calls.some(([id]) => id === apiKeyId)));
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Waits for a condition; the test's own timeout bounds the wait. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

export interface ListeningTestApp {
  database: Database;
  app: TestApp;
  port: number;
}

/**
 * For the tests of one file: a database and an app listening on a free loopback port (for raw
 * sockets and child processes, which supertest cannot stand in for), closed after the file.
 */
export function useListeningTestApp(overrides: Partial<AppConfig> = {}): ListeningTestApp {
  const context = {} as ListeningTestApp;
  beforeAll(async () => {
    context.database = await openTestDatabase();
    context.app = await startTestApp(context.database, overrides);
    await context.app.app.listen(0, '127.0.0.1');
    context.port = (context.app.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await context.app.close();
    await context.database.close();
  });
  return context;
}

export interface TwoInstances {
  database: Database;
  /** The instance most requests go to. */
  app: TestApp;
  /** A second instance on the same database, as behind a load balancer. */
  otherApp: TestApp;
}

/** For the tests of one file: a database and two app instances on it, closed after the file. */
export function useTwoInstances(): TwoInstances {
  const context = {} as TwoInstances;
  beforeAll(async () => {
    context.database = await openTestDatabase();
    [context.app, context.otherApp] = await Promise.all([startTestApp(context.database), startTestApp(context.database)]);
  });
  afterAll(async () => {
    await Promise.all([context.app.close(), context.otherApp.close()]);
    await context.database.close();
  });
  return context;
}
