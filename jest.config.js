const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  // Through PgBouncer: only when PGBOUNCER_URL is set (.ci/run's pooler step; test/pooler.e2e-spec.ts).
  // On a streaming replica: only when REPLICA_URL is set (.ci/run's replica step; test/replica.e2e-spec.ts).
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env.PGBOUNCER_URL === undefined ? ['<rootDir>/test/pooler\\.e2e-spec\\.ts$'] : []),
    ...(process.env.REPLICA_URL === undefined ? ['<rootDir>/test/replica\\.e2e-spec\\.ts$'] : []),
    // Without the browser: .ci/run's second and third runs (another engine, another Node), where Swagger UI's page is the same.
    ...(process.env.TEST_WITHOUT_BROWSER === '1' ? ['<rootDir>/test/swagger-ui-browser\\.e2e-spec\\.ts$'] : []),
  ],
  // Transpile only, as tsconfig's isolatedModules allows: `npm run typecheck` checks types once.
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          // As tsc emits for tsconfig.json: legacy decorators with design-type metadata (Nest's
          // injection reads it), ES2022 class fields.
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  // jest's module loader: V8's compiled code of every module kept for the worker's next test files, and each file's AsyncLocalStorage instances released at its end.
  runtime: '<rootDir>/test/support/test-file-runtime.js',
  // PostgreSQL: a migrated template once per run, a copy of it per e2e file (test/support/postgres-test-databases.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The files known to take longest first (a clean clone has no timings of earlier runs).
  testSequencer: '<rootDir>/test/support/longest-first-sequencer.js',
  setupFilesAfterEnv: ['<rootDir>/test/support/file-database.ts'],
  testTimeout: 60000,
  // One and a half workers per core, three on 2 cores: many files wait on child processes, Redis or the browser (docs/performance.md, "The test suite"). `npm test -- --maxWorkers=100%` for one per core.
  maxWorkers: Math.ceil(availableParallelism() * 1.5),
};
