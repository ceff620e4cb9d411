import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The import rules live in .dependency-cruiser.cjs (docs/architecture.md, "Import rules"); this
// runs them as `npm run lint:deps` does, so that `npm test` fails on a violation.

const root = join(__dirname, '..');
const config = join(root, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

interface CruiseResult {
  summary: { violations: Violation[]; totalCruised: number; ruleSetUsed: { forbidden: { name: string }[] } };
}

/** dependency-cruiser's command line in a child process: it is an ES module, which jest's CommonJS tests cannot load. */
function cruise(cwd: string, args: string[]): Promise<CruiseResult> {
  const command = [join(root, 'node_modules', '.bin', 'depcruise'), ...args, '--config', config, '--output-type', 'json'];
  return new Promise((resolve, reject) => {
    // It exits with the number of violations: the JSON on stdout says which.
    execFile(process.execPath, command, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (error, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout) as CruiseResult);
      } catch {
        reject(new Error(`depcruise printed no result (${error?.message ?? 'no error'}):\n${stderr}`));
      }
    });
  });
}

/** One line per violation, as a reader would want it: the rule, the import, and the cycle it closes. */
function readable(violations: Violation[]): string[] {
  return violations.map(({ rule, from, to, cycle }) => `${rule.name}: ${from} → ${to.replace(/^.*\bnode_modules\//, 'node_modules/')}${cycle ? ` (cycle: ${[from, ...cycle.map(({ name }) => name)].join(' → ')})` : ''}`).sort();
}

/** What `npm run lint:deps` cruises: the script is `depcruise <paths…> --config .dependency-cruiser.cjs`. */
function lintDepsPaths(): string[] {
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['lint:deps'];
  const [command, ...words] = script.split(' ');
  expect(command).toBe('depcruise');
  return words.slice(0, words.indexOf('--config'));
}

/** A scratch tree with the project's layout in which each rule is broken once, or kept where it allows an import. */
const scratchTree: Record<string, string> = {
  'src/config/app-config.ts': "import '../database/pool';", // config-imports-nothing-of-ours
  'src/database/pool.ts': "import '../common/clock';", // allowed: the Clock
  'src/database/notifications.ts': "import '../common/http/base-url';", // database-imports-config-only
  'src/database/sql-driver.ts': '',
  'src/common/clock.ts': '',
  'src/common/http/base-url.ts': "import '../../modules/widgets/widgets.service';", // common-imports-no-module
  'src/common/http/base-url.spec.ts': "import '../../modules/widgets/widgets.service'; import '../../../test/support/zip';", // allowed: a unit test
  'src/common/errors/app-error.ts': "import type { Code } from './error-code'; export type Error = { code: Code };", // no-circular, type-only
  'src/common/errors/error-code.ts': "import type { Error } from './app-error'; export type Code = Error['code'] | 'X';",
  'src/common/ids/uuid.ts': "import '../../../test/support/zip';", // src-imports-no-test-or-bench
  'src/modules/widgets/widgets.service.ts': "import '../../database/sql-driver'; import '../gadgets/gadgets.service';", // modules-reach-…, modules-independent
  'src/modules/widgets/widgets.module.ts': "import '../../admin/admin.service';", // module-imports-no-application
  'src/modules/gadgets/gadgets.service.ts': '',
  'src/modules/uploads/uploads.controller.ts': "import '../expert-suites/expert-suites.scopes'; import '../expert-suites/expert-suites.service';", // allowed; modules-independent
  'src/modules/expert-suites/expert-suites.scopes.ts': '',
  'src/modules/expert-suites/expert-suites.service.ts': "import '../uploads/upload-lookup.service';", // allowed
  'src/modules/uploads/upload-lookup.service.ts': '',
  'src/admin/admin.service.ts': "import '../cli/main';", // entry-points-imported-by-nothing
  'src/cli/main.ts': '',
  'test/support/zip.ts': '',
  'test/support/file-database.ts': "import './postgres-test-databases';",
  'test/support/postgres-test-databases.ts':
    "import type { Pool } from '../../src/database/pool'; export const open = () => import('../../src/database/pool'); import '../../src/database/notifications'; import 'pg';", // test-file-setup-loads-the-app-lazily (the static imports only)
};

describe('import rules (.dependency-cruiser.cjs)', () => {
  let scratch: string;
  let project: Promise<CruiseResult>;
  let broken: Promise<CruiseResult>;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'import-rules-'));
    for (const [path, text] of Object.entries(scratchTree)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), `${text}\nexport {};\n`);
    }
    symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
    // Both at once: each child spends most of its time loading TypeScript.
    project = cruise(root, lintDepsPaths());
    broken = cruise(scratch, ['src', 'test/support']);
  });

  afterAll(async () => {
    await Promise.allSettled([project, broken]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('hold for src, bench and the test file set-up', async () => {
    const { summary } = await project;
    expect(summary.totalCruised).toBeGreaterThan(300);
    expect(readable(summary.violations)).toEqual([]);
  });

  it('each catch the import they forbid (a scratch tree that breaks every rule once)', async () => {
    const { summary } = await broken;
    expect(readable(summary.violations)).toEqual([
      'common-imports-no-module: src/common/http/base-url.ts → src/modules/widgets/widgets.service.ts',
      'config-imports-nothing-of-ours: src/config/app-config.ts → src/database/pool.ts',
      'database-imports-config-only: src/database/notifications.ts → src/common/http/base-url.ts',
      'entry-points-imported-by-nothing: src/admin/admin.service.ts → src/cli/main.ts',
      'module-imports-no-application: src/modules/widgets/widgets.module.ts → src/admin/admin.service.ts',
      'modules-independent: src/modules/uploads/uploads.controller.ts → src/modules/expert-suites/expert-suites.service.ts',
      'modules-independent: src/modules/widgets/widgets.service.ts → src/modules/gadgets/gadgets.service.ts',
      'modules-reach-the-database-through-the-transaction-host: src/modules/widgets/widgets.service.ts → src/database/sql-driver.ts',
      'no-circular: src/common/errors/app-error.ts → src/common/errors/error-code.ts (cycle: src/common/errors/app-error.ts → src/common/errors/error-code.ts → src/common/errors/app-error.ts)',
      'src-imports-no-test-or-bench: src/common/ids/uuid.ts → test/support/zip.ts',
      'test-file-setup-loads-the-app-lazily: test/support/postgres-test-databases.ts → node_modules/pg/lib/index.js',
      'test-file-setup-loads-the-app-lazily: test/support/postgres-test-databases.ts → src/database/notifications.ts',
    ]);
    const rules = new Set(summary.ruleSetUsed.forbidden.map(({ name }) => name));
    expect(new Set(summary.violations.map(({ rule }) => rule.name))).toEqual(rules);
  });
});
