import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { auditedChanges, diffOf, packageStateOf, sameValue } from './suite-changes';
import { ownFieldWrites, packageWrites } from './suite-patch';
import type { PackageContents } from '../uploads/package-contents';

const stored = {
  displayName: 'Tax helper',
  status: 'draft',
  clients: ['web', 'desktop'],
  connectorRefs: [{ connector_id: 'crm', connector_origin: 'acme', required: true }],
  connectorCount: 3n,
  commandCount: 3n,
  skillCount: 0n,
  hasPackage: false,
  iconUploadId: null,
  iconUrl: '',
  marketItem: null,
} as unknown as ExpertSuiteWithMarketItem;

const packaged = { ...stored, hasPackage: true } as ExpertSuiteWithMarketItem;
const diff = (suite: ExpertSuiteWithMarketItem, body: object) => diffOf(suite, ownFieldWrites(body), packageStateOf(suite));

describe('change detection: a value equal to the stored one is not a change', () => {
  it('drops what equals the stored value and keeps what differs', () => {
    expect(
      diff(stored, {
        display_name: 'Tax helper',
        clients: ['web', 'desktop', 'web'],
        connector_refs: [{ required: true, connector_origin: 'acme', connector_id: 'crm' }],
        icon_url: 'https://cdn.example.com/x.png',
      }),
    ).toEqual({ columns: { connectorCount: 1n, iconUrl: 'https://cdn.example.com/x.png' }, isChange: true });
  });

  it('takes connector_count along with a change, but not as a change of its own', () => {
    expect(diff(stored, { connector_refs: [{ connector_id: 'crm', connector_origin: 'acme', required: true }] })).toEqual({ columns: { connectorCount: 1n }, isChange: false });
  });

  it('sets the counts while the suite has no package, and holds them to the package once it has one', () => {
    expect(diff(stored, { command_count: 3, skill_count: 2 })).toEqual({ columns: { skillCount: 2n }, isChange: true });
    expect(diff(packaged, { command_count: 3 })).toEqual({ columns: {}, isChange: false });
    expect(() => diff(packaged, { command_count: 2 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'command_count', suggestion: '3' }) }));
  });

  it('allows only the transitions of suite-status.ts, and publishing only with a package', () => {
    expect(diff(stored, { status: 'draft' })).toEqual({ columns: {}, isChange: false });
    expect(diff(stored, { status: 'disabled' })).toEqual({ columns: { status: 'disabled' }, isChange: true });
    expect(() => diff(stored, { status: 'published' })).toThrow(expect.objectContaining({ code: 'PACKAGE_REQUIRED' }));
    expect(diff(packaged, { status: 'published' })).toEqual({ columns: { status: 'published' }, isChange: true });
    expect(() => diff({ ...stored, status: 'disabled' } as ExpertSuiteWithMarketItem, { status: 'draft' })).toThrow(expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION' }));
  });

  it('names audited columns by their wire names and leaves the copied package contents out', () => {
    const contents = { version: '2.0', commands: [], skills: [], connectors: [{}], connector_refs: [], readme_content: 'r', readme_content_cn: '' } as unknown as PackageContents;
    const { columns } = diffOf(stored, packageWrites(contents, 'upload-1', true), { hasPackage: true, commandCount: 0n, skillCount: 0n });
    expect(auditedChanges(stored, columns, undefined)).toEqual({
      command_count: { old: 3n, new: 0n },
      connector_refs: { old: stored.connectorRefs, new: [] },
      connector_count: { old: 3n, new: 1n },
      has_package: { old: false, new: true },
      upload_id: { old: null, new: 'upload-1' },
      version: { old: null, new: '2.0' },
    });
  });

  it.each([
    ['the same text', 'a', 'a', true],
    ['other text', 'a', 'b', false],
    ['objects in another key order', { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ['arrays in another order (order matters)', ['web', 'desktop'], ['desktop', 'web'], false],
    ['equal int64', 5n, 5n, true],
    ['int64 against a number', 5n, 5, false],
    ['null against null', null, null, true],
    ['a value against null', ['web'], null, false],
    ['null against an empty string', null, '', false],
  ])('%s: %s', (_case, storedValue, wanted, same) => {
    expect(sameValue(storedValue, wanted)).toBe(same);
  });
});
