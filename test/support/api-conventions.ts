import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/**
 * The codes docs/api-conventions.md's table names, each with the status of its row
 * (`| 409 | \`A\`, \`B\` (remark) |`): the codes of a row come before its first remark in parentheses.
 */
export function documentedErrorCodes(): Array<{ code: string; status: number }> {
  const markdown = readFileSync(join(root, 'docs', 'api-conventions.md'), 'utf8');
  return [...markdown.matchAll(/^\| (\d{3}) \| (.*) \|$/gm)].flatMap((row) =>
    [...row[2].split(' (')[0].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => ({ code: match[1], status: Number(row[1]) })),
  );
}

/** Every scope name (`admin.v1.…`) README.md and docs/*.md mention, with the file that does. */
export function scopesNamedInDocs(): Array<{ file: string; scope: string }> {
  const docs = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  return docs.flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/\badmin\.v1\.[a-z0-9.-]*[a-z0-9]/g)].map((match) => ({ file, scope: match[0] })),
  );
}
