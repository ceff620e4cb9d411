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
  // That it imports neither PrismaService nor SqlSession is an import rule (.dependency-cruiser.cjs);
  // a raw query on the Prisma client is a call, which only the source text shows.
  it('calls no raw query of the Prisma client: it reaches the database through the TransactionHost (docs/database-access.md, "One way to the database")', () => {
    const files = sourceFiles(modules);
    expect(files.length).toBeGreaterThan(0);
    const offending = files.filter((file) => /\$(queryRaw|executeRaw)(Unsafe)?\b/.test(readFileSync(file, 'utf8')));
    expect(offending.map((file) => relative(modules, file))).toEqual([]);
  });
});
