import { PGlite } from '@electric-sql/pglite';
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { accessSync, constants, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { applyMigrations, defaultMigrationsDir, type Migration, readMigrations } from './migrator';
import { pgliteSession } from './sql-session';

/**
 * How every embedded instance runs. PGlite's default 128 MB of shared buffers are touched at
 * start and stay resident; 16 MB keeps a new instance near 160 MB and is plenty for one process.
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * Opens the embedded database at `dataDir`. A new one (missing or empty directory, or memory://)
 * starts as a copy of the template instead of running initdb; the caller's migrate() then finds
 * nothing to do unless migrations were added since.
 */
export async function openEmbeddedPGlite(dataDir: string): Promise<PGlite> {
  if (dataDir.startsWith('memory://')) {
    const { tarball } = await embeddedTemplate();
    return PGlite.create(dataDir, { startParams: PGLITE_START_PARAMS, loadDataDir: new Blob([readFileSync(tarball)]) });
  }
  if (isMissingOrEmpty(dataDir)) copyInto(dataDir, (await embeddedTemplate()).dataDir);
  return PGlite.create(dataDir, { startParams: PGLITE_START_PARAMS });
}

function isMissingOrEmpty(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/** Copies beside the target and renames, so an interrupted copy never leaves a half data directory. */
function copyInto(dataDir: string, templateDataDir: string): void {
  const target = resolve(dataDir);
  const staging = `${target}.${randomUUID()}.tmp`;
  try {
    cpSync(templateDataDir, staging, { recursive: true });
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A migrated, cleanly shut down data directory, and the same as a tarball for in-memory instances. */
export interface EmbeddedTemplate {
  dataDir: string;
  tarball: string;
}

/**
 * The template for the current PGlite version and migrations, prepared once and cached. Running
 * initdb takes about 10 s and 800 MB, which a process keeps as its peak; so when the compiled
 * builder is at hand (a built service or CLI) it runs in a child process.
 */
export async function embeddedTemplate(migrationsDir = defaultMigrationsDir()): Promise<EmbeddedTemplate> {
  const migrations = readMigrations(migrationsDir);
  const existing = cachedTemplate(migrations);
  if (existing) return existing;
  const builder = join(__dirname, 'embedded-template.main.js');
  if (existsSync(builder)) {
    await promisify(execFile)(process.execPath, [builder, migrationsDir]);
    const built = cachedTemplate(migrations);
    if (!built) throw new Error(`${builder} finished without leaving a template in ${cacheRoots().join(' or ')}`);
    return built;
  }
  return buildTemplate(migrations);
}

/** Builds the template unless the cache already holds it; what `embedded-template.main` runs. */
export async function buildTemplate(migrations: Migration[]): Promise<EmbeddedTemplate> {
  const existing = cachedTemplate(migrations);
  if (existing) return existing;
  const root = writableCacheRoot();
  const staging = join(root, `${templateKey(migrations)}.${randomUUID()}.tmp`);
  const template = templateIn(staging);
  try {
    mkdirSync(staging);
    const pglite = await PGlite.create(template.dataDir, { startParams: PGLITE_START_PARAMS, initDbStartParams: TEMPLATE_INITDB_PARAMS });
    try {
      await applyMigrations(pgliteSession(pglite), migrations);
      await dropTemplateDatabases(pglite);
      await pglite.exec('CHECKPOINT');
      const tarball = await pglite.dumpDataDir('none');
      writeFileSync(template.tarball, Buffer.from(await tarball.arrayBuffer()));
    } finally {
      await pglite.close();
    }
    publish(staging, join(root, templateKey(migrations)));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return cachedTemplate(migrations)!;
}

/**
 * Every embedded instance starts as a copy of the template, and an in-memory one holds all of it in
 * memory: 1 MB WAL segments instead of 16 MB, and without the template databases that initdb makes
 * for CREATE DATABASE, which one embedded service never runs (docs/adr/0001-embedded-pglite-by-default.md).
 */
const TEMPLATE_INITDB_PARAMS = ['--wal-segsize=1'];

async function dropTemplateDatabases(pglite: PGlite): Promise<void> {
  for (const name of ['template1', 'template0']) {
    await pglite.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
    await pglite.exec(`DROP DATABASE ${name}`);
  }
}

function cachedTemplate(migrations: Migration[]): EmbeddedTemplate | undefined {
  return cacheRoots()
    .map((root) => templateIn(join(root, templateKey(migrations))))
    .find((template) => existsSync(template.tarball));
}

function templateIn(dir: string): EmbeddedTemplate {
  return { dataDir: join(dir, 'pgdata'), tarball: join(dir, 'pgdata.tar') };
}

/** A data directory is only valid for the PGlite (PostgreSQL) build that wrote it, the way it was made and the migrations applied. */
function templateKey(migrations: Migration[]): string {
  const hash = createHash('sha256').update(`pglite ${pgliteVersion()} initdb ${TEMPLATE_INITDB_PARAMS.join(' ')} without template databases`);
  for (const migration of migrations) hash.update(`\n${migration.name} ${migration.checksum}`);
  return hash.digest('hex').slice(0, 16);
}

function pgliteVersion(): string {
  // The package does not export its package.json; it sits one level above the resolved entry's dist/.
  const entry = require.resolve('@electric-sql/pglite');
  return (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** Under node_modules/.cache, as build tools keep theirs; else the temporary directory (a read-only container image). */
function cacheRoots(): string[] {
  const nodeModules = resolve(dirname(require.resolve('@electric-sql/pglite')), '..', '..', '..');
  return [join(nodeModules, '.cache', 'workspace-admin-api', 'embedded-template'), join(tmpdir(), 'workspace-admin-api-embedded-template')];
}

function writableCacheRoot(): string {
  for (const root of cacheRoots()) {
    try {
      mkdirSync(root, { recursive: true });
      accessSync(root, constants.W_OK);
      return root;
    } catch {
      // try the next place
    }
  }
  throw new Error(`None of ${cacheRoots().join(', ')} is writable for the embedded database template`);
}

/** Moves a finished template into place (a concurrent builder may have won) and drops templates of older keys. */
function publish(staging: string, final: string): void {
  try {
    renameSync(staging, final);
  } catch (error) {
    if (!existsSync(join(final, 'pgdata.tar'))) throw error;
  }
  const root = dirname(final);
  for (const entry of readdirSync(root)) {
    const path = join(root, entry);
    if (path !== final && /^[0-9a-f]{16}$/.test(entry)) rmSync(path, { recursive: true, force: true });
  }
}
