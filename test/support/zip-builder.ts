import { ZipFile } from 'yazl';

export interface ZipEntry {
  name: string;
  content?: string | Buffer;
  /** Unix mode, e.g. 0o120777 for a symbolic link. */
  mode?: number;
}

/** Builds a zip in memory with yazl (deflated entries). */
export function buildZip(entries: ZipEntry[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const entry of entries) {
    const content = typeof entry.content === 'string' ? Buffer.from(entry.content) : (entry.content ?? Buffer.alloc(0));
    zip.addBuffer(content, entry.name, entry.mode === undefined ? {} : { mode: entry.mode });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * Rewrites an entry name inside a built zip (local header and central directory alike), for names
 * yazl itself refuses to write such as `../evil`. Both names must have the same length in bytes.
 */
export function renameEntry(zip: Buffer, from: string, to: string): Buffer {
  if (Buffer.byteLength(from) !== Buffer.byteLength(to)) throw new Error('names must have the same length');
  const result = Buffer.from(zip);
  const needle = Buffer.from(from);
  let at = result.indexOf(needle);
  if (at === -1) throw new Error(`${from} not found`);
  while (at !== -1) {
    Buffer.from(to).copy(result, at);
    at = result.indexOf(needle, at + needle.length);
  }
  return result;
}

/** Makes the central directory under-declare the uncompressed size of every entry (a lying zip). */
export function understateSizes(zip: Buffer, declared: number): Buffer {
  return editCentralDirectory(zip, (result, at) => result.writeUInt32LE(declared, at + 24));
}

/** The files of a valid package (docs/uploads.md), overridable per test. */
export function packageEntries(overrides: Record<string, string | undefined> = {}): ZipEntry[] {
  const files: Record<string, string | undefined> = {
    'suite.json': JSON.stringify({ name: 'code-review', version: '2.1.0', display_name: 'Code Review', description: 'Reviews code.' }),
    'commands/review.md': '# /review\nReview the current diff.',
    'commands/explain.md': '# /explain\nExplain the selected code.',
    'skills/security-audit/SKILL.md': '---\nname: security-audit\n---\nFind vulnerabilities.',
    'skills/security-audit/checklist.txt': 'owasp top 10',
    'connectors.json': JSON.stringify([
      { connector_id: 'github', connector_origin: 'official', required: true, scopes: ['repo'] },
      { connector_id: 'jira', connector_origin: 'enterprise' },
    ]),
    'README.md': '# Code Review\nUse /review.',
    'README.zh-CN.md': '# 代码评审\n使用 /review。',
    ...overrides,
  };
  return Object.entries(files)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, content]) => ({ name, content }));
}

const CENTRAL_DIRECTORY_HEADER = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

/** Calls `edit` with the offset of each central directory header (what yauzl reads) and its entry name. */
function editCentralDirectory(zip: Buffer, edit: (result: Buffer, at: number, name: string) => void): Buffer {
  const result = Buffer.from(zip);
  let at = result.indexOf(CENTRAL_DIRECTORY_HEADER);
  while (at !== -1) {
    const nameLength = result.readUInt16LE(at + 28);
    edit(result, at, result.subarray(at + 46, at + 46 + nameLength).toString('latin1'));
    at = result.indexOf(CENTRAL_DIRECTORY_HEADER, at + 4);
  }
  return result;
}

/** Records a wrong CRC-32 for the entry `name`: its data no longer matches. */
export function breakCrc(zip: Buffer, name: string): Buffer {
  return editCentralDirectory(zip, (result, at, entry) => {
    if (entry === name) result.writeUInt32LE((result.readUInt32LE(at + 16) ^ 1) >>> 0, at + 16);
  });
}

/** Clears the "names are UTF-8" flag of every entry, so readers decode the names as CP437. */
export function withCp437Names(zip: Buffer): Buffer {
  return editCentralDirectory(zip, (result, at) => result.writeUInt16LE(result.readUInt16LE(at + 8) & ~0x800, at + 8));
}
