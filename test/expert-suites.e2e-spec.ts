import { randomUUID } from 'node:crypto';
import { expectErrorBody } from './support/error-body';
import { createApiKey, createTenant, startTestApp, useTestApp } from './support/test-app';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import { ExpertSuitesScope } from '../src/modules/expert-suites/expert-suites.scopes';
import { QuotaScope } from '../src/modules/quota/quota.scopes';

const path = (id: string) => `/api/openapi/v1/expert-suites/${id}`;

describe('PATCH /api/openapi/v1/expert-suites/{resourceId}', () => {
  const fixture = useTestApp();
  const { newSuite } = fixture;
  const patch = (id: string, body: unknown, bearer = fixture.tenant.bearer) => fixture.http().patch(path(id)).set('Authorization', bearer).send(body as object);

  describe('access', () => {
    it('returns 401 without a key and 403 with a key lacking admin.v1.expert-suites.manage', async () => {
      const suite = await newSuite();
      expectErrorBody(await fixture.http().patch(path(suite.id)).send({}), 401, 'UNAUTHENTICATED', 'unauthorized');
      const readOnly = await createApiKey(fixture.database, fixture.tenant.organizationId, [QuotaScope.Read, DirectoryScope.Manage]);
      const response = await patch(suite.id, { display_name: 'x' }, readOnly.bearer);
      expectErrorBody(response, 403, 'INSUFFICIENT_SCOPE', 'forbidden');
      expect(response.body.detail).toContain(ExpertSuitesScope.Manage);
    });

    it('returns 400 when resourceId is not a uuid', async () => {
      const response = await patch('not-a-uuid', {});
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'resourceId', reason: 'invalid_format' });
    });

    it("answers another organization's suite exactly like a missing one, and leaves it unchanged", async () => {
      const other = await createTenant(fixture.database);
      const foreign = await newSuite(other.organizationId);
      const missing = await patch(randomUUID(), { display_name: 'taken' });
      const crossTenant = await patch(foreign.id, { display_name: 'taken' });
      expectErrorBody(missing, 404, 'NOT_FOUND', 'not_found');
      expectErrorBody(crossTenant, 404, 'NOT_FOUND', 'not_found');
      expect(crossTenant.body).toEqual(missing.body);
      const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: foreign.id } });
      expect(stored.displayName).toBe(foreign.display_name);
      expect(stored.revision).toBe(1n);
    });

    it('accepts an upper-case uuid for the same suite', async () => {
      const suite = await newSuite();
      const response = await patch(suite.id.toUpperCase(), { description: 'upper' }).expect(200);
      expect(response.body.id).toBe(suite.id);
    });
  });

  describe('response', () => {
    it('returns every field of an expert suite plus category_id and market_item_revision, in JSON types', async () => {
      const suite = await newSuite();
      const { body } = await patch(suite.id, { display_name: 'Shown' }).expect(200);
      expect(Object.keys(body).sort()).toEqual(
        [
          'id', 'name', 'display_name', 'display_name_cn', 'description', 'description_cn', 'version', 'status', 'origin',
          'source_type', 'clients', 'command_count', 'commands', 'skill_count', 'skills', 'connector_count', 'connectors',
          'connector_refs', 'has_package', 'icon_url', 'readme_content', 'readme_content_cn', 'revision', 'created_at',
          'updated_at', 'category_id', 'market_item_revision',
        ].sort(),
      );
      expect(body).toMatchObject({
        id: suite.id,
        name: suite.name,
        display_name: 'Shown',
        status: 'draft',
        origin: 'enterprise',
        source_type: 'official',
        clients: null,
        command_count: 0,
        commands: null,
        skill_count: 0,
        skills: null,
        connector_count: 0,
        connectors: null,
        connector_refs: null,
        has_package: false,
        icon_url: '',
        revision: 2,
        category_id: null,
        market_item_revision: 1,
      });
      expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(body.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(body.updated_at)).toBeGreaterThanOrEqual(Date.parse(body.created_at));
    });
  });

  describe('fields', () => {
    it('updates the texts, trimming names and version, and keeps fields left out', async () => {
      const suite = await newSuite();
      const { body } = await patch(suite.id, {
        display_name: '  Code Review  ',
        display_name_cn: ' 代码评审 ',
        description: ' keeps its spaces ',
        description_cn: '说明',
        version: ' 1.2.0 ',
      }).expect(200);
      expect(body).toMatchObject({
        display_name: 'Code Review',
        display_name_cn: '代码评审',
        description: ' keeps its spaces ',
        description_cn: '说明',
        version: '1.2.0',
        name: suite.name,
        revision: 2,
      });
      const second = await patch(suite.id, { description_cn: '新说明' }).expect(200);
      expect(second.body).toMatchObject({ display_name: 'Code Review', version: '1.2.0', description_cn: '新说明', revision: 3 });
    });

    it.each([
      ['display_name', 255],
      ['display_name_cn', 255],
      ['description', 4000],
      ['description_cn', 4000],
      ['version', 64],
    ])('refuses %s over %i characters (code points) with the cut value as suggestion', async (field, limit) => {
      const suite = await newSuite();
      await patch(suite.id, { [field]: '字'.repeat(limit) }).expect(200);
      const response = await patch(suite.id, { [field]: '字'.repeat(limit + 1) });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field, reason: 'too_long', suggestion: '字'.repeat(limit) });
    });

    it.each([
      [{ display_name: null }, 'display_name', 'invalid_type'],
      [{ display_name: '   ' }, 'display_name', 'must_not_be_blank'],
      [{ version: '' }, 'version', 'must_not_be_blank'],
      [{ description: 12 }, 'description', 'invalid_type'],
      [{ status: 'archived' }, 'status', 'invalid_value'],
      [{ status: null }, 'status', 'invalid_type'],
      [{ origin: 'official' }, 'origin', 'unknown_field'],
      [{ source_type: 'official' }, 'source_type', 'unknown_field'],
      [{ revision: 5 }, 'revision', 'unknown_field'],
      [{ command_count: -1 }, 'command_count', 'invalid_value'],
      [{ command_count: 1.5 }, 'command_count', 'invalid_type'],
      [{ command_count: '3' }, 'command_count', 'invalid_type'],
      [{ skill_count: 2 ** 64 }, 'skill_count', 'invalid_value'],
      [{ expected_revision: 0 }, 'expected_revision', 'invalid_value'],
      [{ expected_revision: '1' }, 'expected_revision', 'invalid_type'],
      [{ expected_market_item_revision: -3 }, 'expected_market_item_revision', 'invalid_value'],
      [{ clear_category: 'yes' }, 'clear_category', 'invalid_type'],
      [{ category_id: 'abc' }, 'category_id', 'invalid_format'],
      [{ upload_id: 'abc' }, 'upload_id', 'invalid_format'],
      [{ icon_upload_id: 7 }, 'icon_upload_id', 'invalid_type'],
      [{ icon_url: 'ftp://example.com/icon.png' }, 'icon_url', 'invalid_format'],
      [{ icon_url: 'javascript:alert(1)' }, 'icon_url', 'invalid_format'],
      [{ icon_url: '/relative/icon.png' }, 'icon_url', 'invalid_format'],
      [{ clients: 'web' }, 'clients', 'invalid_type'],
      [{ clients: [1] }, 'clients', 'invalid_type'],
      [{ clients: ['Web App'] }, 'clients', 'invalid_format'],
      [{ connector_refs: null }, 'connector_refs', 'invalid_type'],
      [{ connector_refs: [{ connector_id: 'a', connector_origin: 'official' }] }, 'connector_refs[0].required', 'required'],
      [{ connector_refs: [{ connector_id: 'a', required: true }] }, 'connector_refs[0].connector_origin', 'required'],
      [{ connector_refs: [{ connector_origin: 'x', required: true }] }, 'connector_refs[0].connector_id', 'required'],
      [{ connector_refs: [{ connector_id: 'a', connector_origin: 'o', required: 'yes' }] }, 'connector_refs[0].required', 'invalid_type'],
      [{ connector_refs: [{ connector_id: 'a', connector_origin: 'o', required: true, extra: 1 }] }, 'connector_refs[0].extra', 'unknown_field'],
      [{ connector_refs: ['a'] }, 'connector_refs[0]', 'invalid_type'],
      [
        { connector_refs: [{ connector_id: 'a', connector_origin: 'o', required: true }, { connector_id: 'a', connector_origin: 'o', required: false }] },
        'connector_refs',
        'duplicate',
      ],
    ])('refuses %j with 400 %s %s and changes nothing', async (body, field, reason) => {
      const suite = await newSuite();
      const response = await patch(suite.id, body);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toMatchObject({ field, reason });
      const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
      expect(stored.revision).toBe(1n);
    });

    it('refuses an icon_url over 2048 characters', async () => {
      const suite = await newSuite();
      const response = await patch(suite.id, { icon_url: `https://example.com/${'a'.repeat(2048)}` });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toMatchObject({ field: 'icon_url', reason: 'too_long' });
    });

    it('refuses more than 32 clients', async () => {
      const suite = await newSuite();
      const response = await patch(suite.id, { clients: Array.from({ length: 33 }, (_, i) => `c${i}`) });
      expect(response.body.details).toMatchObject({ field: 'clients', reason: 'too_long' });
    });

    it('suggests the lower-cased client name', async () => {
      const suite = await newSuite();
      const response = await patch(suite.id, { clients: ['web', 'Desktop'] });
      expect(response.body.details).toEqual({ field: 'clients', reason: 'invalid_format', suggestion: 'desktop' });
    });

    it('de-duplicates clients keeping their order, and takes null as every client', async () => {
      const suite = await newSuite();
      const listed = await patch(suite.id, { clients: ['web', 'desktop', 'web', 'ide-plugin'] }).expect(200);
      expect(listed.body.clients).toEqual(['web', 'desktop', 'ide-plugin']);
      const same = await patch(suite.id, { clients: ['web', 'desktop', 'ide-plugin', 'desktop'] }).expect(200);
      expect(same.body.revision).toBe(listed.body.revision);
      const everyone = await patch(suite.id, { clients: null }).expect(200);
      expect(everyone.body.clients).toBeNull();
      expect(everyone.body.revision).toBe(listed.body.revision + 1);
    });

    it('replaces connector_refs as a whole and sets connector_count to its length', async () => {
      const suite = await newSuite();
      const refs = [
        { connector_id: 'github', connector_origin: 'official', required: true },
        { connector_id: 'jira', connector_origin: 'enterprise', required: false },
        { connector_id: 'github', connector_origin: 'enterprise', required: false },
      ];
      const first = await patch(suite.id, { connector_refs: refs }).expect(200);
      expect(first.body.connector_refs).toEqual(refs);
      expect(first.body.connector_count).toBe(3);
      const replaced = await patch(suite.id, { connector_refs: [refs[1]] }).expect(200);
      expect(replaced.body.connector_refs).toEqual([refs[1]]);
      expect(replaced.body.connector_count).toBe(1);
      const emptied = await patch(suite.id, { connector_refs: [] }).expect(200);
      expect(emptied.body).toMatchObject({ connector_refs: [], connector_count: 0 });
    });

    it('sets the counts directly while the suite has no package', async () => {
      const suite = await newSuite();
      const { body } = await patch(suite.id, { command_count: 4, skill_count: 2 }).expect(200);
      expect(body).toMatchObject({ command_count: 4, skill_count: 2, has_package: false });
    });

    it('sets an http(s) icon_url and removes it with an empty string', async () => {
      const suite = await newSuite();
      const set = await patch(suite.id, { icon_url: 'https://cdn.example.com/icons/suite.png?v=2' }).expect(200);
      expect(set.body.icon_url).toBe('https://cdn.example.com/icons/suite.png?v=2');
      const cleared = await patch(suite.id, { icon_url: '' }).expect(200);
      expect(cleared.body.icon_url).toBe('');
    });

    it('refuses icon_url together with icon_upload_id as conflicting fields', async () => {
      const suite = await newSuite();
      const response = await patch(suite.id, { icon_url: 'https://example.com/a.png', icon_upload_id: randomUUID() });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'icon_upload_id', reason: 'conflicting_fields' });
    });

    it('answers an unknown upload_id or icon_upload_id with 422 UPLOAD_NOT_FOUND', async () => {
      const suite = await newSuite();
      const pkg = await patch(suite.id, { upload_id: randomUUID() });
      expectErrorBody(pkg, 422, 'UPLOAD_NOT_FOUND', 'unprocessable_entity');
      expect(pkg.body.details).toEqual({ field: 'upload_id', reason: 'not_found' });
      const icon = await patch(suite.id, { icon_upload_id: randomUUID() });
      expectErrorBody(icon, 422, 'UPLOAD_NOT_FOUND', 'unprocessable_entity');
      expect(icon.body.details).toEqual({ field: 'icon_upload_id', reason: 'not_found' });
    });

    it('refuses a body that is not a JSON object', async () => {
      const suite = await newSuite();
      const response = await patch(suite.id, ['display_name']);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
    });
  });

  describe('revisions', () => {
    it('increments revision by one per change and refuses a stale expected_revision with the current one as suggestion', async () => {
      const suite = await newSuite();
      const first = await patch(suite.id, { display_name: 'one', expected_revision: 1 }).expect(200);
      expect(first.body.revision).toBe(2);
      const stale = await patch(suite.id, { display_name: 'two', expected_revision: 1 });
      expectErrorBody(stale, 409, 'REVISION_CONFLICT', 'conflict');
      expect(stale.body.details).toEqual({ field: 'expected_revision', reason: 'revision_mismatch', suggestion: '2' });
      const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
      expect({ displayName: stored.displayName, revision: stored.revision }).toEqual({ displayName: 'one', revision: 2n });
      const next = await patch(suite.id, { display_name: 'two', expected_revision: 2 }).expect(200);
      expect(next.body.revision).toBe(3);
    });

    it('returns the stored suite without bumping revision or updated_at when nothing changes', async () => {
      const suite = await newSuite();
      const changed = await patch(suite.id, { display_name: 'same', clients: ['web'], connector_refs: [{ connector_id: 'c', connector_origin: 'o', required: true }] }).expect(200);
      const empty = await patch(suite.id, {}).expect(200);
      const equal = await patch(suite.id, {
        display_name: 'same',
        clients: ['web'],
        connector_refs: [{ required: true, connector_origin: 'o', connector_id: 'c' }],
        expected_revision: changed.body.revision,
        status: 'draft',
        clear_category: false,
      }).expect(200);
      for (const response of [empty, equal]) {
        expect(response.body.revision).toBe(changed.body.revision);
        expect(response.body.updated_at).toBe(changed.body.updated_at);
        expect(response.body).toEqual(changed.body);
      }
    });

    it('still checks expected_revision on a PATCH that changes nothing', async () => {
      const suite = await newSuite();
      const response = await patch(suite.id, { expected_revision: 7 });
      expectErrorBody(response, 409, 'REVISION_CONFLICT', 'conflict');
      expect(response.body.details.suggestion).toBe('1');
    });

    it('bumps updated_at with a change', async () => {
      const suite = await newSuite();
      const { body } = await patch(suite.id, { description: 'later' }).expect(200);
      expect(Date.parse(body.updated_at)).toBeGreaterThanOrEqual(Date.parse(suite.updated_at));
      expect(body.updated_at).not.toBe(suite.updated_at);
    });
  });

  describe('category (market item)', () => {
    it('sets, keeps and clears the category, bumping market_item_revision and the suite revision by one each', async () => {
      const suite = await newSuite();
      const category = await fixture.admin.createCategory(fixture.tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`);
      const set = await patch(suite.id, { category_id: category.id, expected_market_item_revision: 1 }).expect(200);
      expect(set.body).toMatchObject({ category_id: category.id, market_item_revision: 2, revision: 2 });
      expect(set.body.updated_at).not.toBe(suite.updated_at);
      const again = await patch(suite.id, { category_id: category.id.toUpperCase() }).expect(200);
      expect(again.body).toMatchObject({ category_id: category.id, market_item_revision: 2, revision: 2, updated_at: set.body.updated_at });
      const cleared = await patch(suite.id, { clear_category: true, expected_market_item_revision: 2 }).expect(200);
      expect(cleared.body).toMatchObject({ category_id: null, market_item_revision: 3, revision: 3 });
      const clearedAgain = await patch(suite.id, { clear_category: true }).expect(200);
      expect(clearedAgain.body).toMatchObject({ market_item_revision: 3, revision: 3 });
    });

    it('refuses category_id with clear_category: true as conflicting fields', async () => {
      const suite = await newSuite();
      const category = await fixture.admin.createCategory(fixture.tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`);
      const response = await patch(suite.id, { category_id: category.id, clear_category: true });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'clear_category', reason: 'conflicting_fields' });
    });

    it("answers an unknown or another organization's category with 422 CATEGORY_NOT_FOUND and changes nothing", async () => {
      const suite = await newSuite();
      const other = await createTenant(fixture.database);
      const foreign = await fixture.admin.createCategory(other.organizationId, 'foreign');
      for (const categoryId of [randomUUID(), foreign.id]) {
        const response = await patch(suite.id, { display_name: 'not kept', category_id: categoryId });
        expectErrorBody(response, 422, 'CATEGORY_NOT_FOUND', 'unprocessable_entity');
        expect(response.body.details).toEqual({ field: 'category_id', reason: 'not_found' });
      }
      const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
      expect({ displayName: stored.displayName, revision: stored.revision }).toEqual({ displayName: suite.display_name, revision: 1n });
    });

    it('refuses a stale expected_market_item_revision with 409 and keeps the other changes of the request out', async () => {
      const suite = await newSuite();
      const category = await fixture.admin.createCategory(fixture.tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`);
      await patch(suite.id, { category_id: category.id }).expect(200);
      const response = await patch(suite.id, { display_name: 'not kept', clear_category: true, expected_market_item_revision: 1 });
      expectErrorBody(response, 409, 'MARKET_ITEM_REVISION_CONFLICT', 'conflict');
      expect(response.body.details).toEqual({ field: 'expected_market_item_revision', reason: 'revision_mismatch', suggestion: '2' });
      const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id }, include: { marketItem: true } });
      expect(stored.displayName).toBe(suite.display_name);
      expect(stored.marketItem?.categoryId).toBe(category.id);
    });

    it('changes suite fields and category in one request, bumping each revision once', async () => {
      const suite = await newSuite();
      const category = await fixture.admin.createCategory(fixture.tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`);
      const { body } = await patch(suite.id, { display_name: 'both', category_id: category.id, expected_revision: 1, expected_market_item_revision: 1 }).expect(200);
      expect(body).toMatchObject({ display_name: 'both', category_id: category.id, revision: 2, market_item_revision: 2 });
    });
  });

  describe('status', () => {
    it('moves draft to disabled, refuses disabled to draft, and needs a package to publish', async () => {
      const suite = await newSuite();
      const publish = await patch(suite.id, { status: 'published', display_name: 'not kept' });
      expectErrorBody(publish, 422, 'PACKAGE_REQUIRED', 'unprocessable_entity');
      expect(publish.body.details).toMatchObject({ field: 'status' });
      const disabled = await patch(suite.id, { status: 'disabled' }).expect(200);
      expect(disabled.body).toMatchObject({ status: 'disabled', revision: 2, display_name: suite.display_name });
      const back = await patch(suite.id, { status: 'draft' });
      expectErrorBody(back, 409, 'INVALID_STATUS_TRANSITION', 'conflict');
      expect(back.body.details).toMatchObject({ field: 'status' });
      const republish = await patch(suite.id, { status: 'published' });
      expectErrorBody(republish, 422, 'PACKAGE_REQUIRED', 'unprocessable_entity');
    });
  });

  describe('concurrency', () => {
    it('lets exactly one of 10 concurrent PATCHes with the same expected_revision win, across two app instances', async () => {
      const second = await startTestApp(fixture.database);
      try {
        const suite = await newSuite();
        const apps = [fixture.app, second];
        const responses = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            apps[i % 2]
              .http()
              .patch(path(suite.id))
              .set('Authorization', fixture.tenant.bearer)
              .send({ expected_revision: 1, display_name: `writer ${i}`, description: `description of writer ${i}` }),
          ),
        );
        const statuses = responses.map((response) => response.status).sort();
        expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
        for (const conflict of responses.filter((response) => response.status === 409)) {
          expectErrorBody(conflict, 409, 'REVISION_CONFLICT', 'conflict');
        }
        const winner = responses.find((response) => response.status === 200)!;
        const index = Number(/writer (\d+)/.exec(winner.body.display_name)![1]);
        const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
        expect({ revision: stored.revision, displayName: stored.displayName, description: stored.description }).toEqual({
          revision: 2n,
          displayName: `writer ${index}`,
          description: `description of writer ${index}`,
        });
      } finally {
        await second.close();
      }
    });

    it('applies every one of 6 concurrent PATCHes without expected_revision, one after another', async () => {
      const second = await startTestApp(fixture.database);
      try {
        const suite = await newSuite();
        const apps = [fixture.app, second];
        const responses = await Promise.all(
          Array.from({ length: 6 }, (_, i) => apps[i % 2].http().patch(path(suite.id)).set('Authorization', fixture.tenant.bearer).send({ description: `d${i}` })),
        );
        expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
        expect(responses.map((response) => response.body.revision).sort()).toEqual([2, 3, 4, 5, 6, 7]);
        const last = responses.find((response) => response.body.revision === 7)!;
        const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
        expect({ revision: stored.revision, description: stored.description }).toEqual({ revision: 7n, description: last.body.description });
      } finally {
        await second.close();
      }
    });

    it('orders one-statement and transactional PATCHes of one suite: each of 8 concurrent changes bumps the revision once', async () => {
      const second = await startTestApp(fixture.database);
      try {
        const suite = await newSuite();
        const categories = await Promise.all([0, 1, 2, 3].map(() => fixture.admin.createCategory(fixture.tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`)));
        const apps = [fixture.app, second];
        const bodies = [0, 1, 2, 3].flatMap((i) => [{ description: `d${i}` }, { category_id: categories[i].id }]);
        const responses = await Promise.all(bodies.map((body, i) => apps[i % 2].http().patch(path(suite.id)).set('Authorization', fixture.tenant.bearer).send(body)));
        expect(responses.map((response) => response.status)).toEqual(Array(8).fill(200));
        expect(responses.map((response) => response.body.revision).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
        // Every answer shows the market item as of its own revision: one bump per category change so far.
        const inOrder = responses.map((response, i) => ({ body: response.body, setsCategory: i % 2 === 1 })).sort((a, b) => a.body.revision - b.body.revision);
        let categoryChanges = 0;
        for (const { body, setsCategory } of inOrder) {
          if (setsCategory) categoryChanges++;
          expect(body.market_item_revision).toBe(1 + categoryChanges);
        }
        const stored = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id }, include: { marketItem: true } });
        expect({ revision: stored.revision, marketItemRevision: stored.marketItem?.revision }).toEqual({ revision: 9n, marketItemRevision: 5n });
      } finally {
        await second.close();
      }
    });

    it('lets one of 10 concurrent identical status changes bump the revision; the others find nothing to change', async () => {
      const suite = await newSuite();
      const responses = await Promise.all(Array.from({ length: 10 }, () => patch(suite.id, { status: 'disabled' })));
      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
      expect(responses.map((response) => response.body.revision).sort()).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
      expect(responses.every((response) => response.body.status === 'disabled')).toBe(true);
    });
  });

  describe('OpenAPI', () => {
    it('documents the operation with its scope, path parameter, body and responses', async () => {
      const document = (await fixture.http().get('/docs-json').expect(200)).body;
      const operation = document.paths['/api/openapi/v1/expert-suites/{resourceId}'].patch;
      expect(operation['x-required-scope']).toBe(ExpertSuitesScope.Manage);
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'resourceId', in: 'path', schema: expect.objectContaining({ format: 'uuid' }) })]));
      expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '412', '413', '415', '422', '429', '500', '503']);
      const schema = document.components.schemas.UpdateExpertSuiteDto;
      expect(Object.keys(schema.properties).sort()).toEqual(
        [
          'category_id', 'clear_category', 'clients', 'command_count', 'connector_refs', 'description', 'description_cn',
          'display_name', 'display_name_cn', 'expected_market_item_revision', 'expected_revision', 'icon_upload_id',
          'icon_url', 'skill_count', 'status', 'upload_id', 'version',
        ].sort(),
      );
      expect(schema.properties.expected_revision).toMatchObject({ type: 'integer', format: 'int64' });
      expect(schema.properties.display_name).toMatchObject({ type: 'string', maxLength: 255 });
      expect(document.components.schemas.ExpertSuiteDto.properties.market_item_revision).toMatchObject({ type: 'integer', format: 'int64' });
    });
  });
});
