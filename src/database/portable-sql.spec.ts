import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));
const filesMatching = (pattern: RegExp) => files.filter(({ text }) => pattern.test(text)).map(({ path }) => path);

// The distributed PostgreSQL-compatible engines lack advisory locks (CockroachDB) or have them
// behind a flag (YugabyteDB): docs/scaling.md, "Portable SQL".
describe('portable SQL: advisory locks stay off the correctness paths', () => {
  it('finds the source files (the scan itself works)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(filesMatching(/RowLock\.forUpdate\b/)).toContain('modules/expert-suites/expert-suites.repository.ts');
  });

  it('names an advisory lock function in src/database/locks.ts only (the migrations’ session lock)', () => {
    expect(filesMatching(/advisory_(xact_)?(un)?lock|advisory_lock/i)).toEqual(['database/locks.ts']);
    const locks = files.find(({ path }) => path === 'database/locks.ts')!.text;
    expect(locks.match(/pg_[a-z_]*advisory[a-z_]*/g)?.sort()).toEqual(['pg_advisory_lock', 'pg_advisory_unlock']);
  });

  it('takes the session advisory lock in the migration runner only', () => {
    expect(filesMatching(/withSessionAdvisoryLock\(/)).toEqual(['database/database.ts']);
    const database = files.find(({ path }) => path === 'database/database.ts')!.text;
    expect(database.match(/withSessionAdvisoryLock\([^\n]*/g)).toEqual([expect.stringContaining('applyMigrations(')]);
  });

  it('sends NOTIFY only where DATABASE_NOTIFICATIONS allows it', () => {
    expect(filesMatching(/pg_notify\(|[`'"]NOTIFY /i)).toEqual(['common/audit/audit-event.ts', 'common/auth/api-keys.repository.ts']);
    const apiKeys = files.find(({ path }) => path === 'common/auth/api-keys.repository.ts')!.text;
    expect(apiKeys.match(/[^\n]*pg_notify\([^\n]*/g)).toEqual([expect.stringMatching(/DATABASE_NOTIFICATIONS === 'on' \? Prisma\.sql`, pg_notify\(/)]);
    const audit = files.find(({ path }) => path === 'common/audit/audit-event.ts')!.text;
    expect(audit.match(/[^\n]*pg_notify\([^\n]*/g)).toEqual([expect.stringMatching(/notifications === 'on' \? ` RETURNING pg_notify\(/)]);
  });
});
