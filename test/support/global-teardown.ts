import { dropTestDatabases, serverDatabaseUrl } from './postgres-test-databases';

export default async function globalTeardown(): Promise<void> {
  const server = serverDatabaseUrl();
  if (server) await dropTestDatabases(server);
}
