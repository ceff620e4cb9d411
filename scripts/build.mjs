#!/usr/bin/env node
// Compiles the service (`nest build`) and prepares the embedded database template, so that
// `npm start` on a new data directory neither compiles nor runs initdb.
//
//   node scripts/build.mjs              build (npm install runs this, and `npm run build`)
//   node scripts/build.mjs --if-stale   build only when a source changed since the last successful build (npm start)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeConstraintNames } from './constraint-names.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const sources = ['src', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'].map((path) => join(root, path));
// Inside dist/, which `nest build` empties first: it exists only after a build that succeeded.
const stamp = join(root, 'dist', '.build-succeeded');

/** Directories count too: deleting or renaming a file changes its directory's mtime. */
function newestChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

function upToDate() {
  return existsSync(stamp) && statSync(stamp).mtimeMs > Math.max(...sources.filter(existsSync).map(newestChange));
}

function run(command, args) {
  try {
    execFileSync(command, args, { cwd: root, stdio: 'inherit' });
  } catch (error) {
    // The command has printed why; do not add a stack trace of this script.
    process.exit(error.status ?? 1);
  }
}

// Generated source the build compiles (src/generated/constraints.ts), rewritten only when the migrations changed it.
writeConstraintNames();

if (!(process.argv.includes('--if-stale') && upToDate())) {
  run(join(root, 'node_modules', '.bin', 'nest'), ['build']);
  writeFileSync(stamp, '');
  run(process.execPath, [join(root, 'dist', 'src', 'database', 'embedded-template.main.js')]);
}
