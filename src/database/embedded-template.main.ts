import { buildTemplate } from './embedded-template';
import { defaultMigrationsDir, readMigrations } from './migrator';

/**
 * Prepares the embedded database template: run by `npm install` so that the first start is quick,
 * and by the service in a child process when the template is missing.
 */
buildTemplate(readMigrations(process.argv[2] ?? defaultMigrationsDir())).then(
  (template) => process.stdout.write(`Embedded database template ready in ${template.dataDir}\n`),
  (error: unknown) => {
    process.stderr.write(`Could not prepare the embedded database template: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
