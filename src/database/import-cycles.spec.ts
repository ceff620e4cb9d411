import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Each file of src/database/ and the files of the same folder it imports (type-only imports too: they tie the files as much). */
function importGraph(directory: string): Map<string, string[]> {
  const files = readdirSync(directory).filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'));
  return new Map(
    files.map((name) => {
      const source = readFileSync(join(directory, name), 'utf8');
      const local = [...source.matchAll(/from '\.\/([^']+)'/g)].map((match) => `${match[1]}.ts`).filter((file) => files.includes(file));
      return [name, local];
    }),
  );
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const visit = (file: string, path: string[]) => {
    for (const next of graph.get(file) ?? []) {
      if (path.includes(next)) found.push([...path.slice(path.indexOf(next)), next]);
      else visit(next, [...path, next]);
    }
  };
  for (const file of graph.keys()) visit(file, [file]);
  return found;
}

describe('src/database imports', () => {
  it('form no cycle', () => {
    const graph = importGraph(resolve(__dirname));
    expect(graph.size).toBeGreaterThan(10);
    expect(cycles(graph)).toEqual([]);
  });

  it('would report one (the check can fail)', () => {
    expect(cycles(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']]]))).toContainEqual(['a.ts', 'b.ts', 'a.ts']);
  });
});
