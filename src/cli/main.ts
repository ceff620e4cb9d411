import { AdminService } from '../admin/admin.service';
import { loadConfig } from '../config/app-config';
import { loadDotEnv } from '../config/dot-env';
import { openDatabase } from '../database/database';
import { errorLine, parseCommand, runCommand, USAGE, UsageError, usesDatabase } from './cli';

async function main(argv: string[]): Promise<number> {
  const io = { out: (line: string) => process.stdout.write(`${line}\n`), err: (line: string) => process.stderr.write(`${line}\n`) };
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    io.err(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  let parsed;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(errorLine('usage_error', error.message, error.usage));
    return 2;
  }
  if (!usesDatabase(parsed)) return runCommand(parsed, undefined, io);
  loadDotEnv();
  const config = loadConfig();
  const database = await openDatabase(config);
  try {
    if (database.kind === 'embedded') await database.migrate();
    return await runCommand(parsed, new AdminService(database.sql, undefined, config.DATABASE_NOTIFICATIONS), io);
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${errorLine('internal_error', error instanceof Error ? error.message : String(error))}\n`);
    process.exitCode = 1;
  },
);
