import { loadConfig } from '../config/app-config';
import { loadDotEnv } from '../config/dot-env';
import { openDatabase } from './database';

/** `npm run db:migrate`: applies pending migrations to PostgreSQL (over DATABASE_DIRECT_URL when set, else DATABASE_URL), or to the embedded database. */
async function main(): Promise<void> {
  loadDotEnv();
  const database = await openDatabase(loadConfig());
  try {
    const applied = await database.migrate();
    const target = database.kind === 'postgres' ? 'PostgreSQL' : 'the embedded database';
    process.stdout.write(applied.length > 0 ? `Applied to ${target}: ${applied.join(', ')}\n` : `${target} is up to date.\n`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
