import { AppError } from '../../common/errors/app-error';
import { breakCrc, buildZip, packageEntries, renameEntry, withCp437Names, type ZipEntry } from '../../../test/support/zip-builder';
import { readPackage } from './package-reader';

async function refusal(entries: ZipEntry[] | Buffer): Promise<unknown> {
  const zip = Buffer.isBuffer(entries) ? entries : await buildZip(entries);
  try {
    await readPackage(zip);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details;
  }
  throw new Error('the package was accepted');
}

const refused = (reason: string) => ({ field: 'file', reason });

describe('readPackage', () => {
  it('reads the layout: manifest, commands, skills, connectors and their references, readmes', async () => {
    const contents = await readPackage(await buildZip(packageEntries()));
    expect(contents).toMatchObject({ name: 'code-review', version: '2.1.0', readme_content: '# Code Review\nUse /review.' });
    expect(contents.commands.map((command) => command.name)).toEqual(['explain', 'review']);
    expect(contents.connector_refs).toEqual([
      { connector_id: 'github', connector_origin: 'official', required: true },
      { connector_id: 'jira', connector_origin: 'enterprise', required: true },
    ]);
  });

  describe('connectors.json: any objects, references only from those naming a connector', () => {
    it('keeps objects without connector_id or connector_origin, and derives no reference from them', async () => {
      const connectors = [{ slug: 'crm', title: 'CRM connector' }, { connector_id: 'github', connector_origin: 'official', required: false }, {}];
      const contents = await readPackage(await buildZip(packageEntries({ 'connectors.json': JSON.stringify(connectors) })));
      expect(contents.connectors).toEqual(connectors);
      expect(contents.connector_refs).toEqual([{ connector_id: 'github', connector_origin: 'official', required: false }]);
    });

    it('does not take an element whose connector_id or connector_origin is not a string as a reference', async () => {
      const connectors = [{ connector_id: 7, connector_origin: 'official' }, { connector_id: 'a', connector_origin: null }];
      const contents = await readPackage(await buildZip(packageEntries({ 'connectors.json': JSON.stringify(connectors) })));
      expect(contents.connectors).toEqual(connectors);
      expect(contents.connector_refs).toEqual([]);
    });

    it.each([
      ['an element that is not an object', ['github']],
      ['a reference with a blank connector_id', [{ connector_id: '\u200b', connector_origin: 'o' }]],
      ['a reference with a connector_origin over 64 characters', [{ connector_id: 'a', connector_origin: 'o'.repeat(65) }]],
      ['a reference whose required is not a boolean', [{ connector_id: 'a', connector_origin: 'o', required: 'yes' }]],
      ['the same reference twice', [{ connector_id: 'a', connector_origin: 'o' }, { connector_id: 'a', connector_origin: 'o', x: 1 }]],
    ])('refuses %s as invalid_manifest', async (_label, connectors) => {
      expect(await refusal(packageEntries({ 'connectors.json': JSON.stringify(connectors) }))).toEqual(refused('invalid_manifest'));
    });
  });

  describe('archive integrity', () => {
    it('refuses an entry whose data does not match its CRC-32 as invalid_archive', async () => {
      const zip = breakCrc(await buildZip(packageEntries()), 'commands/review.md');
      expect(await refusal(zip)).toEqual(refused('invalid_archive'));
    });

    it('refuses a wrong CRC-32 on an entry it does not keep (counted only) too', async () => {
      const zip = breakCrc(await buildZip(packageEntries()), 'skills/security-audit/checklist.txt');
      expect(await refusal(zip)).toEqual(refused('invalid_archive'));
    });
  });

  describe('entry names', () => {
    it.each([
      ['a C0 control character', 'ab\u0001evil'],
      ['a DEL', 'ab\u007fevil'],
      ['a tab', 'ab\tevil'],
    ])('refuses a name with %s as unsafe_path', async (_label, name) => {
      const zip = renameEntry(await buildZip([...packageEntries(), { name: 'ab/evil', content: 'x' }]), 'ab/evil', name);
      expect(await refusal(zip)).toEqual(refused('unsafe_path'));
    });

    it('refuses a C1 control character (U+0085) as unsafe_path', async () => {
      const zip = renameEntry(await buildZip([...packageEntries(), { name: 'abc/evil', content: 'x' }]), 'abc/evil', 'a\u0085/evil');
      expect(await refusal(zip)).toEqual(refused('unsafe_path'));
    });

    it('refuses a control byte in a name not flagged UTF-8 (where CP437 would show it as a symbol)', async () => {
      const zip = withCp437Names(renameEntry(await buildZip([...packageEntries(), { name: 'ab/evil', content: 'x' }]), 'ab/evil', 'ab\u0001evil'));
      expect(await refusal(zip)).toEqual(refused('unsafe_path'));
    });

    it('refuses a name flagged UTF-8 that is not UTF-8 as unsafe_path', async () => {
      const zip = await buildZip([...packageEntries(), { name: 'assets/é', content: 'x' }]);
      const broken = Buffer.from(zip);
      let at = broken.indexOf(Buffer.from('assets/é'));
      while (at !== -1) {
        broken[at + 7] = 0xff; // 0xff never occurs in UTF-8
        at = broken.indexOf(Buffer.from('assets/é'), at + 1);
      }
      expect(await refusal(broken)).toEqual(refused('unsafe_path'));
    });
  });

  describe('text that cannot be stored, and deep JSON', () => {
    it.each([
      ['a NUL byte in a README', { 'README.md': 'a\u0000b' }],
      ['a NUL byte in a command', { 'commands/review.md': '\u0000' }],
      ['an escaped NUL in suite.json', { 'suite.json': '{"name": "a\\u0000", "version": "1"}' }],
      ['an escaped lone surrogate in suite.json', { 'suite.json': '{"name": "a", "version": "1", "description": "\\ud800"}' }],
      ['an escaped NUL in a key of connectors.json', { 'connectors.json': '[{"conn\\u0000ector": 1}]' }],
      ['an escaped lone surrogate deep in connectors.json', { 'connectors.json': '[{"a": {"b": ["\\udfff"]}}]' }],
      ['connectors.json nested 65 levels deep', { 'connectors.json': `[${'['.repeat(64)}${']'.repeat(64)}]` }],
      ['a suite name made of zero-width and bidi characters', { 'suite.json': JSON.stringify({ name: '\u200b\u200f\u202e\ufeff', version: '1' }) }],
    ])('refuses %s as invalid_manifest', async (_label, overrides) => {
      expect(await refusal(packageEntries(overrides))).toEqual(refused('invalid_manifest'));
    });

    it('accepts JSON nested 64 levels deep and brackets inside strings', async () => {
      const connectors = `[${'['.repeat(63)}"[[[[{{{{"${']'.repeat(63)}]`;
      await expect(readPackage(await buildZip(packageEntries({ 'connectors.json': connectors })))).rejects.toMatchObject({
        details: refused('invalid_manifest'), // the elements are arrays, not objects: refused for that, not for depth
        detail: expect.stringContaining('must be an object'),
      });
    });
  });
});
