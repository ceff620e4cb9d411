import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createTemplateDatabase, serverDatabaseUrl } from './postgres-test-databases';

/**
 * Once per run, however jest was started (`npm test`, `npx jest file`, an editor): rebuilds dist/
 * when a source changed since the last build, for the tests that run the built service or CLI
 * (a no-op check after `npm test`'s own pretest); and on PostgreSQL, the migrated template every
 * test file copies. (PGlite instances start from a migrated template already: docs/operations.md.)
 */
export default async function globalSetup(): Promise<void> {
  execFileSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const server = serverDatabaseUrl();
  if (server) await createTemplateDatabase(server);
}
