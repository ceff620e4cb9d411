import { createTemplateDatabase, serverDatabaseUrl } from './postgres-test-databases';

/** Once per run: on PostgreSQL, the migrated template every test file copies. (PGlite instances start from a migrated template already: docs/operations.md.) */
export default async function globalSetup(): Promise<void> {
  const server = serverDatabaseUrl();
  if (server) await createTemplateDatabase(server);
}
