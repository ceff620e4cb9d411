import { Prisma } from '../../generated/prisma/client';
import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { sameValue, withoutUnchanged } from './suite-changes';

const stored = {
  displayName: 'Tax helper',
  clients: ['web', 'desktop'],
  connectorRefs: [{ connector_id: 'crm', connector_origin: 'acme', required: true }],
  commandCount: 3n,
  iconUploadId: null,
  iconUrl: '',
} as unknown as ExpertSuiteWithMarketItem;

describe('change detection: a value equal to the stored one is not a change', () => {
  it('drops what equals the stored value and keeps what differs', () => {
    expect(
      withoutUnchanged(stored, {
        displayName: 'Tax helper',
        clients: ['web', 'desktop'],
        connectorRefs: [{ required: true, connector_origin: 'acme', connector_id: 'crm' }],
        commandCount: 3n,
        iconUrl: 'https://cdn.example.com/x.png',
      }),
    ).toEqual({ iconUrl: 'https://cdn.example.com/x.png' });
  });

  it.each([
    ['the same text', 'a', 'a', true],
    ['other text', 'a', 'b', false],
    ['objects in another key order', { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ['arrays in another order (order matters)', ['web', 'desktop'], ['desktop', 'web'], false],
    ['equal int64', 5n, 5n, true],
    ['int64 against a number', 5n, 5, false],
    ['null against DbNull', null, Prisma.DbNull, true],
    ['a value against DbNull', ['web'], Prisma.DbNull, false],
    ['null against an empty string', null, '', false],
  ])('%s: %s', (_case, storedValue, wanted, same) => {
    expect(sameValue(storedValue, wanted)).toBe(same);
  });
});
