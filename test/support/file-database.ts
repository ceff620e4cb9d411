import { testDatabaseUrl } from './test-app';
import { copyTemplateDatabase, serverDatabaseUrl } from './postgres-test-databases';

// Before an e2e file's own hooks: its copy of the migrated template (PostgreSQL only; unit tests
// use no database).
beforeAll(async () => {
  const server = serverDatabaseUrl();
  const url = testDatabaseUrl();
  if (server && url && expect.getState().testPath?.endsWith('.e2e-spec.ts')) await copyTemplateDatabase(server, url);
});
