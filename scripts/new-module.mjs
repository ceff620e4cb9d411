#!/usr/bin/env node
// Generates a working resource module from scripts/module-template/ (docs/adding-a-module.md):
//
//   npm run new:module -- widgets                      plural kebab-case name; singular guessed (widget)
//   npm run new:module -- cost-centers
//   npm run new:module -- people --singular person     when the guess is wrong
//   npm run new:module -- widgets --no-client          skip regenerating test/client/schema.d.ts (then run `npm run openapi:client`)
//
// It writes src/modules/<name>/ (controller, service, repository, …), test/<name>.e2e-spec.ts (over HTTP) and
// test/<name>-repository.e2e-spec.ts (service and repository on the database) from the template, appends the model to
// prisma/schema.prisma (with its relation on Organization), imports the module in AppModule, writes
// the migration (`npm run db:diff -- --name create_<name>`), regenerates the Prisma client, rebuilds
// dist/ and regenerates the committed client types. Paths are relative to the project root.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATE = join(root, 'scripts', 'module-template');
const SCHEMA = join(root, 'prisma', 'schema.prisma');
const APP_MODULE = join(root, 'src', 'app.module.ts');
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

class UsageError extends Error {}

/** A plural English noun's singular, for the common endings; `--singular` overrides it. */
function guessSingular(plural) {
  if (/ies$/.test(plural)) return plural.replace(/ies$/, 'y');
  if (/(ss|x|ch|sh)es$/.test(plural)) return plural.replace(/es$/, '');
  if (/[^s]s$/.test(plural)) return plural.slice(0, -1);
  return plural;
}

const words = (kebab) => kebab.split('-');
const pascal = (kebab) => words(kebab).map((word) => word[0].toUpperCase() + word.slice(1)).join('');
const camel = (kebab) => pascal(kebab)[0].toLowerCase() + pascal(kebab).slice(1);

/** Every template token and its value; replaced longest first, so `__singular_snake___id` becomes `widget_id`. */
export function tokensFor(name, singular = guessSingular(name)) {
  if (!KEBAB.test(name) || name.length > 40) throw new UsageError(`The module name must be kebab-case (a-z, 0-9, single dashes), at most 40 characters, plural: got "${name}"`);
  if (!KEBAB.test(singular)) throw new UsageError(`--singular must be kebab-case, got "${singular}"`);
  return {
    __kebab__: name,
    __singular_kebab__: singular,
    __snake__: words(name).join('_'),
    __singular_snake__: words(singular).join('_'),
    __SINGULAR_UPPER__: words(singular).join('_').toUpperCase(),
    __Plural__: pascal(name),
    __Singular__: pascal(singular),
    __pluralCamel__: camel(name),
    __words__: words(name).join(' '),
    __singular_words__: words(singular).join(' '),
    __Title__: words(name).map((word) => word[0].toUpperCase() + word.slice(1)).join(' '),
  };
}

function render(text, tokens) {
  const names = Object.keys(tokens).sort((a, b) => b.length - a.length);
  return names.reduce((out, token) => out.split(token).join(tokens[token]), text);
}

function templateFiles(dir = TEMPLATE) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? templateFiles(path) : [relative(TEMPLATE, path)];
  });
}

/** Refuses a name whose folder, model, table or scopes exist already, before anything is written. */
function checkFree(tokens) {
  const schema = readFileSync(SCHEMA, 'utf8');
  const taken = [
    [existsSync(join(root, 'src', 'modules', tokens.__kebab__)), `src/modules/${tokens.__kebab__} exists`],
    ...[`${tokens.__kebab__}.e2e-spec.ts`, `${tokens.__kebab__}-repository.e2e-spec.ts`].map((test) => [existsSync(join(root, 'test', test)), `test/${test} exists`]),
    [new RegExp(`^model ${tokens.__Singular__} \\{`, 'm').test(schema), `prisma/schema.prisma has a model ${tokens.__Singular__}`],
    [schema.includes(`@@map("${tokens.__snake__}")`), `prisma/schema.prisma has a table ${tokens.__snake__}`],
    [readFileSync(APP_MODULE, 'utf8').includes(`${tokens.__Plural__}Module`), `AppModule already names ${tokens.__Plural__}Module`],
  ].filter(([isTaken]) => isTaken);
  if (taken.length > 0) throw new UsageError(`Cannot generate "${tokens.__kebab__}": ${taken.map(([, why]) => why).join('; ')}`);
}

function writeTemplate(tokens) {
  const written = [];
  for (const file of templateFiles()) {
    if (file.startsWith('prisma')) continue;
    const target = join(root, render(file, tokens));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, render(readFileSync(join(TEMPLATE, file), 'utf8'), tokens));
    written.push(relative(root, target));
  }
  return written;
}

/** Appends the model and gives Organization its side of the relation (Prisma requires both). */
function addModel(tokens) {
  let schema = readFileSync(SCHEMA, 'utf8');
  const organizationMap = /\n(\n?)(\s*@@map\("organizations"\))/;
  if (!organizationMap.test(schema)) throw new Error('prisma/schema.prisma: no @@map("organizations") line in model Organization to add the relation before');
  schema = schema.replace(organizationMap, `\n  ${tokens.__pluralCamel__} ${tokens.__Singular__}[]\n$1$2`);
  schema = schema.replace(/\n*$/, '\n') + render(readFileSync(join(TEMPLATE, 'prisma', 'model.prisma'), 'utf8'), tokens);
  writeFileSync(SCHEMA, schema);
}

/** Imports the module beside the other feature modules and adds it last to FEATURE_MODULES (mounted, and its definitions collected). */
function addToAppModule(tokens) {
  let source = readFileSync(APP_MODULE, 'utf8');
  const importLine = `import { ${tokens.__Plural__}Module } from './modules/${tokens.__kebab__}/${tokens.__kebab__}.module';\n`;
  const moduleImports = [...source.matchAll(/^import .* from '\.\/modules\/.*';\n/gm)];
  const last = moduleImports.at(-1);
  if (!last) throw new Error("src/app.module.ts: no import from './modules/' to add the new one after");
  source = source.slice(0, last.index + last[0].length) + importLine + source.slice(last.index + last[0].length);
  const list = /^(const FEATURE_MODULES\b[^\n]*\n(?: {2}\S[^\n]*\n)*)(\];)$/m;
  if (!list.test(source)) throw new Error('src/app.module.ts: no `const FEATURE_MODULES = [ … ];` list to add the module to');
  source = source.replace(list, `$1  ${tokens.__Plural__}Module,\n$2`);
  writeFileSync(APP_MODULE, source);
}

function run(step, command, args, env = {}) {
  console.log(`new:module: ${step}`);
  return execFileSync(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
}

function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { singular: { type: 'string' }, 'no-client': { type: 'boolean' } } });
  if (positionals.length !== 1) throw new UsageError('Usage: npm run new:module -- <plural-kebab-name> [--singular <name>] [--no-client]');
  const tokens = tokensFor(positionals[0], values.singular);
  checkFree(tokens);

  const written = writeTemplate(tokens);
  addModel(tokens);
  addToAppModule(tokens);
  console.log(`new:module: wrote ${written.join(', ')}; edited prisma/schema.prisma, src/app.module.ts`);

  const migration = run('writing the migration (db:diff)', process.execPath, ['scripts/migration-diff.mjs', '--name', `create_${tokens.__snake__}`]).trim();
  if (!migration.endsWith('migration.sql')) throw new Error(`db:diff wrote no migration: ${migration}`);
  console.log(`new:module: wrote ${migration}`);
  run('generating the Prisma client (npm run db:generate)', 'npm', ['run', '--silent', 'db:generate']);
  run('building dist/', process.execPath, ['scripts/build.mjs']);
  if (!values['no-client']) {
    run('regenerating test/client/schema.d.ts (npm run openapi:client)', 'npm', ['run', '--silent', 'openapi:client']);
  }
  console.log(`new:module: done. Next: npm run typecheck && npm test -- test/${tokens.__kebab__}.e2e-spec.ts test/${tokens.__kebab__}-repository.e2e-spec.ts`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error(`new:module: ${error instanceof Error ? error.message : error}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  }
}
