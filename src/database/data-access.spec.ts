import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const modules = resolve(__dirname, '..', 'modules');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('Module code', () => {
  it('reaches the database only through the TransactionHost (docs/architecture.md, "One way to the database")', () => {
    const files = sourceFiles(modules);
    expect(files.length).toBeGreaterThan(0);
    const offending = files.filter((file) => /\bPrismaService\b|\$(queryRaw|executeRaw)(Unsafe)?\b|\bSqlSession\b/.test(readFileSync(file, 'utf8')));
    expect(offending.map((file) => relative(modules, file))).toEqual([]);
  });
});
