import { fileDatabaseUrl, serverDatabaseUrl } from './postgres-test-databases';

// Before an e2e file's own hooks: its copy of the migrated template (PostgreSQL only; unit tests
// use no database). This file runs before every test file, unit tests included, so it loads only
// what that copy needs: the application's modules (Nest, Prisma) are loaded by the files that use them.
beforeAll(async () => {
  const server = serverDatabaseUrl();
  const testPath = expect.getState().testPath;
  if (server && testPath?.endsWith('.e2e-spec.ts')) {
    const { copyTemplateDatabase } = await import('./postgres-test-databases');
    await copyTemplateDatabase(server, fileDatabaseUrl(server, testPath));
  }
});
