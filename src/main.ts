import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { drainOnSignals } from './common/lifecycle/graceful-shutdown';
import { AdminService } from './admin/admin.service';
import { serveDemoExamples } from './bootstrap/demo-examples';
import { describeDemoSeed, describeExistingDemo, seedDemoIfEmpty } from './bootstrap/demo-seed';
import { ConfigError, isProduction, loadConfig, unknownSettingLookalikes } from './config/app-config';
import { loadDotEnv } from './config/dot-env';
import { SqlDriver } from './database/sql-driver';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const app = await createApp({ config });
  await app.listen(config.PORT);
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const baseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  const logger = new Logger('Main');
  drainOnSignals(app, config, logger);
  for (const name of unknownSettingLookalikes()) logger.warn(`${name} is not a setting of this service and is ignored (a typo? see docs/configuration.md)`);
  logger.log(`Listening on port ${port} (${config.usesEmbeddedDatabase ? `embedded database in ${config.DATA_DIR}` : 'PostgreSQL'})`);
  logger.log(`Swagger UI: ${baseUrl}/docs   OpenAPI: ${baseUrl}/docs-json`);
  // A production deployment issues its keys with the CLI; a key printed there would reach log storage.
  if (config.usesEmbeddedDatabase && !isProduction()) {
    const sql = app.get(SqlDriver);
    const seed = await seedDemoIfEmpty(sql);
    // Printed straight to the console, never through the logger: the key must not reach log storage.
    if (seed) process.stdout.write(`${describeDemoSeed(seed, baseUrl)}\n`);
    else {
      const existing = await describeExistingDemo(sql);
      if (existing) logger.log(existing);
    }
    const demoOrganizationId = seed?.organizationId ?? (await new AdminService(sql).demoOrganizationId());
    if (demoOrganizationId) await serveDemoExamples(app, demoOrganizationId);
  }
  // The one line that says start-up is over (listening, and the demo seed, if any, printed).
  logger.log('Ready: start-up complete');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
