// The import rules of the code (docs/architecture.md, "Import rules"), checked by dependency-cruiser:
// `npm run lint:deps`, and src/import-rules.spec.ts in `npm test`.
//
// The layers, from the bottom: config → database → common → modules → the application (admin,
// bootstrap, cli and the files at the top of src/). A layer imports only the layers below it;
// src/generated/ (the Prisma client, the constraint names) is imported from every layer above config.

/** The application layer: it wires and starts everything, so nothing below imports it. */
const APPLICATION = '^src/(admin|bootstrap|cli)/|^src/[^/]+\\.ts$';

/** A module imports no other module except these (module → what of another module it may import). */
const MODULE_IMPORTS = {
  // An expert suite names its package and icon uploads (UploadLookupService, the upload kinds and errors).
  'expert-suites': ['^src/modules/uploads/'],
  // Uploads serve expert suites: their routes take the suites' manage scope.
  uploads: ['^src/modules/expert-suites/expert-suites\\.scopes\\.ts$'],
  // A webhook delivery's payload is the audit event in its wire form.
  webhooks: ['^src/modules/audit-events/audit-event\\.mapper\\.ts$'],
  // Users are part of the directory: their routes take the directory's scopes, and a taken
  // external_id is the directory's one code (CONTRACT.md section 11).
  users: ['^src/modules/directory/directory\\.(scopes|errors)\\.ts$'],
  // SCIM is a second door to the directory's users (CONTRACT.md section 12): it reads and writes
  // them through UsersService (its module, its row types) and answers their conflicts' codes.
  scim: [
    '^src/modules/users/users\\.(module|service|repository|errors)\\.ts$',
    // Its Groups are the departments (DepartmentsService, their rows and codes) with their direct
    // members, changed through the memberships' own statements under the users' limit.
    '^src/modules/users/(memberships\\.repository|dto/user-fields)\\.ts$',
    '^src/modules/directory/(directory\\.(module|errors)|departments\\.(service|repository)|department\\.mapper|dto/department\\.dto)\\.ts$',
  ],
};

/** Unit tests (the .spec.ts files under src/) may reach across layers and into test/support/ (a catalog test loads the whole app); the cycle and entry-point rules hold for them too. */
const SPEC = '\\.spec\\.ts$';

const excepted = Object.keys(MODULE_IMPORTS).join('|');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files import each other in one direction only (type-only imports count: they tie files as much).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'config-imports-nothing-of-ours',
      severity: 'error',
      comment: 'src/config/ is the bottom layer: it reads and validates settings and imports no other folder of the project.',
      from: { path: '^src/config/', pathNot: SPEC },
      to: { path: '^(src|test|bench)/', pathNot: '^src/config/' },
    },
    {
      name: 'database-imports-config-only',
      severity: 'error',
      comment:
        'src/database/ imports only src/config/, the generated Prisma client and constraint names (src/generated/), and the Clock (src/common/clock.ts, which imports nothing of ours).',
      from: { path: '^src/database/', pathNot: SPEC },
      to: { path: '^(src|test|bench)/', pathNot: ['^src/(database|config|generated)/', '^src/common/clock\\.ts$'] },
    },
    {
      name: 'common-imports-no-module',
      severity: 'error',
      comment: 'src/common/ holds what every module uses; it imports no module (src/modules/) and nothing of the application layer.',
      from: { path: '^src/common/', pathNot: SPEC },
      to: { path: ['^src/modules/', APPLICATION] },
    },
    {
      name: 'module-imports-no-application',
      severity: 'error',
      comment: 'A module (src/modules/) imports nothing of the application layer (admin, bootstrap, cli, app.module, main, openapi).',
      from: { path: '^src/modules/', pathNot: SPEC },
      to: { path: APPLICATION },
    },
    {
      name: 'modules-independent',
      severity: 'error',
      comment: 'A module imports no other module: what modules share lives in src/common/.',
      from: { path: '^src/modules/([^/]+)/', pathNot: [`^src/modules/(${excepted})/`, SPEC] },
      to: { path: '^src/modules/', pathNot: '^src/modules/$1/' },
    },
    ...Object.entries(MODULE_IMPORTS).map(([module, allowed]) => ({
      name: 'modules-independent',
      severity: 'error',
      comment: `A module imports no other module: what modules share lives in src/common/ (${module} may import only ${allowed.join(', ')}).`,
      from: { path: `^src/modules/${module}/`, pathNot: SPEC },
      to: { path: '^src/modules/', pathNot: [`^src/modules/${module}/`, ...allowed] },
    })),
    {
      name: 'modules-reach-the-database-through-the-transaction-host',
      severity: 'error',
      comment:
        'Module code reaches the database through its repositories on SqlHost: it imports neither SqlDriver (what TransactionHost is built on) nor SqlSession (the migrator\'s bare session).',
      from: { path: '^src/modules/', pathNot: SPEC },
      to: { path: '^src/database/(sql-driver|sql-session)\\.ts$' },
    },
    {
      name: 'src-imports-no-test-or-bench',
      severity: 'error',
      comment: 'The service does not import the tests or the benchmarks.',
      from: { path: '^src/', pathNot: SPEC },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'entry-points-imported-by-nothing',
      severity: 'error',
      comment: 'An entry point (main.ts, *.main.ts, bench/run.ts, bench/delivery.ts) starts a process when loaded; import what it uses instead.',
      from: {},
      to: { path: ['(^|/)main\\.ts$', '\\.main\\.ts$', '^bench/(run|delivery)\\.ts$'] },
    },
    {
      name: 'test-file-setup-loads-the-app-lazily',
      severity: 'error',
      comment:
        'test/support/file-database.ts runs before every test file, unit tests included: it and what it imports load pg and src/ only through import() when a PostgreSQL copy is needed.',
      from: { path: '^test/support/(file-database|postgres-test-databases)\\.ts$' },
      to: { path: ['^src/', '(^|/)node_modules/pg/'], dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
  ],
  options: {
    // Type-only imports are dependencies too (they are part of cycles and layering).
    tsPreCompilationDeps: true,
    // The dependencies of packages and of the generated Prisma client are not ours to check.
    doNotFollow: { path: ['(^|/)node_modules/', '^src/generated/'] },
    // Resolve imports as tsc does for this project.
    tsConfig: { fileName: `${__dirname}/tsconfig.json` },
    skipAnalysisNotInRules: true,
  },
};
