#!/usr/bin/env node
// Authors the next Prisma migration without the native schema engine (it cannot be downloaded
// here): the WebAssembly schema engine replays prisma/migrations onto an in-memory PGlite shadow
// database and diffs the result against prisma/schema.prisma.
//
//   node scripts/migration-diff.mjs               print the SQL, or "-- no changes"
//   node scripts/migration-diff.mjs --name foo    write prisma/migrations/<timestamp>_foo/migration.sql
//
// Paths are relative to the working directory (the project root).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';

const SCHEMA_PATH = 'prisma/schema.prisma';
const MIGRATIONS_DIR = 'prisma/migrations';

async function loadSchemaEngine() {
  // The package's entry imports its .wasm as an ES module, which Node 20 cannot do, so we
  // instantiate the module ourselves and hand it to the wasm-bindgen glue.
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('@prisma/schema-engine-wasm'));
  const bindings = await import(pathToFileURL(join(pkgDir, 'schema_engine_bg.js')).href);
  const bytes = await readFile(join(pkgDir, 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bindings });
  bindings.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return bindings.SchemaEngine;
}

async function readMigrationsList() {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const migrationDirectories = await Promise.all(
    names.map(async (name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: await readFile(join(MIGRATIONS_DIR, name, 'migration.sql'), 'utf8') },
      },
    })),
  );
  const lockfile = join(MIGRATIONS_DIR, 'migration_lock.toml');
  return {
    baseDir: join(process.cwd(), MIGRATIONS_DIR),
    lockfile: { path: 'migration_lock.toml', content: await readFile(lockfile, 'utf8') },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

function printEngineProblems(line) {
  const { level, fields } = JSON.parse(line);
  if (level === 'WARN' || level === 'ERROR') console.error(`schema engine ${level}: ${fields?.message}`);
}

/** An adapter factory whose shadow database is a fresh in-memory PGlite. */
function inMemoryPGliteFactory() {
  const factory = new PrismaPGlite(new PGlite());
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => awaitingScripts(await connectToShadowDb());
  return factory;
}

// pglite-prisma-adapter 0.7.2 does not await exec() in executeScript, so a migration that fails
// on the shadow database would pass silently and the diff would start from a wrong state.
function awaitingScripts(adapter) {
  adapter.executeScript = async (script) => {
    try {
      await adapter.client.exec(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

/** Returns the SQL of the next migration, or null when the schema matches the migrations. */
async function diffMigrationsToSchema() {
  const SchemaEngine = await loadSchemaEngine();
  const schemaFiles = [{ path: SCHEMA_PATH, content: await readFile(SCHEMA_PATH, 'utf8') }];
  const adapter = bindMigrationAwareSqlAdapterFactory(inMemoryPGliteFactory());
  const engine = await SchemaEngine.new(
    { datamodels: schemaFiles.map((f) => [f.path, f.content]) },
    printEngineProblems,
    adapter,
  );
  const result = await engine.diff({
    from: { tag: 'migrations', ...(await readMigrationsList()) },
    to: { tag: 'schemaDatamodel', files: schemaFiles },
    script: true,
    exitCode: true, // makes exitCode 2 mean "there are changes"
    filters: { externalTables: [], externalEnums: [] },
  });
  return result.exitCode === 2 ? result.stdout : null;
}

function utcStamp(date) {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}

/** Now, unless that would sort before the newest migration (whose time may be in the future). */
async function nextTimestamp() {
  const stamps = (await readdir(MIGRATIONS_DIR)).map((n) => n.match(/^(\d{14})_/)?.[1]).filter(Boolean);
  const newest = stamps.sort().at(-1);
  const now = utcStamp(new Date());
  if (!newest || now > newest) return now;
  const newestDate = new Date(newest.replace(/(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/, '$1-$2-$3T$4:$5:$6Z'));
  return utcStamp(new Date(newestDate.getTime() + 1000));
}

async function writeMigration(name, sql) {
  const dir = join(MIGRATIONS_DIR, `${await nextTimestamp()}_${name}`);
  await mkdir(dir);
  const file = join(dir, 'migration.sql');
  await writeFile(file, sql);
  return file;
}

async function main() {
  const { values } = parseArgs({ options: { name: { type: 'string' } } });
  if (values.name !== undefined && !/^[a-z0-9_]+$/.test(values.name)) {
    throw new Error(`--name must be snake_case (a-z, 0-9, _), got "${values.name}"`);
  }
  const sql = await diffMigrationsToSchema();
  if (sql === null) console.log('-- no changes');
  else if (values.name) console.log(await writeMigration(values.name, sql));
  else process.stdout.write(sql);
}

try {
  await main();
  // The engine leaves timers pending that would keep Node alive for ~10 more seconds.
  process.exit(0);
} catch (error) {
  console.error(`migration-diff: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
