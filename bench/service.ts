import { join } from 'node:path';
import { createDatabase, databaseUrl, seed, type Fixture } from './databases';
import { shippedStartCommand } from './environment';
import { runNodeScript, startServer, type ServerProcess } from './processes';

/**
 * A new database of `postgresUrl`, migrated by the `migrate` script of the checkout under test and
 * seeded with the fixture. Processes under test run in an empty directory, so that no .env of the
 * checkout reaches them.
 */
export async function prepareDatabase(migrate: string, postgresUrl: string, name: string, fixture: Fixture, workDirectory: string): Promise<void> {
  await createDatabase(postgresUrl, name);
  const url = databaseUrl(postgresUrl, name);
  await runNodeScript(migrate, { ...process.env, DATABASE_URL: url }, workDirectory);
  await seed(url, fixture);
}

/**
 * The service of the checkout at `root`, started as its package.json's start command starts it,
 * with `settings` (its database, at least) and no request logs or rate limit in the way.
 */
export function startService(label: string, root: string, settings: Record<string, string>, workDirectory: string, extraNodeArgs: string[]): Promise<ServerProcess> {
  const shipped = shippedStartCommand(root);
  const environment = { ...process.env, ...shipped.environment, ...settings, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' };
  return startServer(label, join(root, shipped.script), environment, workDirectory, [...shipped.nodeOptions, ...extraNodeArgs]);
}
