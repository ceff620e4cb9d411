import { randomBytes, randomUUID } from 'node:crypto';
import { AdminService } from '../src/admin/admin.service';
import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { createApiKey, createTenant, openTestDatabase, startTestApp, type TestApp, type TestTenant } from './support/test-app';
import { ONE_PIXEL_PNG as PNG } from './support/images';
import { buildZip, packageEntries, renameEntry, understateSizes, type ZipEntry } from './support/zip-builder';
import { ExpertSuitesScope } from '../src/modules/expert-suites/expert-suites.scopes';
import { QuotaScope } from '../src/modules/quota/quota.scopes';

const UPLOADS = '/api/openapi/v1/uploads';
const suitePath = (id: string) => `/api/openapi/v1/expert-suites/${id}`;
const SVG = Buffer.from('<?xml version="1.0"?>\n<!-- icon -->\n<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><script>alert(1)</script><rect width="8" height="8"/></svg>');
const ICON_LIMIT = 4096;

describe('uploads and applying them to expert suites', () => {
  let database: Database;
  let testApp: TestApp;
  let admin: AdminService;
  let tenant: TestTenant;

  beforeAll(async () => {
    database = await openTestDatabase();
    testApp = await startTestApp(database, { ICON_UPLOAD_LIMIT_BYTES: ICON_LIMIT });
    admin = new AdminService(database.sql);
    tenant = await createTenant(database);
  });

  afterAll(async () => {
    await testApp.close();
    await database.close();
  });

  const upload = (kind: string, file: Buffer, filename: string, bearer = tenant.bearer, app = testApp) =>
    app.http().post(UPLOADS).set('Authorization', bearer).field('kind', kind).attach('file', file, filename);
  const uploadPackage = async (entries: ZipEntry[], bearer = tenant.bearer) => upload('package', await buildZip(entries), 'suite.zip', bearer);
  const created201 = (response: Awaited<ReturnType<typeof upload>>) => {
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
    return response;
  };
  const patch = (id: string, body: object, bearer = tenant.bearer) => testApp.http().patch(suitePath(id)).set('Authorization', bearer).send(body);
  const newSuite = (organizationId = tenant.organizationId) => admin.createExpertSuite(organizationId, `suite-${randomUUID().slice(0, 8)}`);

  describe('packages', () => {
    it('accepts a package built in code, applies it to a suite, then publishes the suite', async () => {
      const created = created201(await uploadPackage(packageEntries()));
      expect(created.body).toEqual({
        upload_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        kind: 'package',
        size: expect.any(Number),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        content_type: 'application/zip',
        package: { name: 'code-review', version: '2.1.0', command_count: 2, skill_count: 1, connector_count: 2 },
        created_at: expect.any(String),
        expires_at: expect.any(String),
      });
      expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(24 * 60 * 60 * 1000);

      const suite = await newSuite();
      const applied = await patch(suite.id, { upload_id: created.body.upload_id, command_count: 2, expected_revision: 1 }).expect(200);
      expect(applied.body).toMatchObject({
        has_package: true,
        version: '2.1.0',
        command_count: 2,
        skill_count: 1,
        connector_count: 2,
        status: 'draft',
        revision: 2,
        readme_content: '# Code Review\nUse /review.',
        readme_content_cn: '# 代码评审\n使用 /review。',
        display_name: suite.display_name,
      });
      expect(applied.body.commands).toEqual([
        { name: 'explain', content: '# /explain\nExplain the selected code.' },
        { name: 'review', content: '# /review\nReview the current diff.' },
      ]);
      expect(applied.body.skills).toEqual([{ name: 'security-audit', content: '---\nname: security-audit\n---\nFind vulnerabilities.' }]);
      expect(applied.body.connectors).toEqual([
        { connector_id: 'github', connector_origin: 'official', required: true, scopes: ['repo'] },
        { connector_id: 'jira', connector_origin: 'enterprise' },
      ]);
      // `required` left out in connectors.json means a required connector.
      expect(applied.body.connector_refs).toEqual([
        { connector_id: 'github', connector_origin: 'official', required: true },
        { connector_id: 'jira', connector_origin: 'enterprise', required: true },
      ]);

      const published = await patch(suite.id, { status: 'published', expected_revision: 2 }).expect(200);
      expect(published.body).toMatchObject({ status: 'published', revision: 3 });
      await patch(suite.id, { status: 'disabled' }).expect(200);
      const republished = await patch(suite.id, { status: 'published' }).expect(200);
      expect(republished.body).toMatchObject({ status: 'published', revision: 5 });
    });

    it('applies a package and publishes in one request, and re-applying it changes nothing', async () => {
      const created = created201(await uploadPackage(packageEntries()));
      const suite = await newSuite();
      const first = await patch(suite.id, { upload_id: created.body.upload_id, status: 'published' }).expect(200);
      expect(first.body).toMatchObject({ status: 'published', has_package: true, revision: 2 });
      const again = await patch(suite.id, { upload_id: created.body.upload_id, skill_count: 1, version: '2.1.0' }).expect(200);
      expect(again.body).toEqual(first.body);
    });

    it('keeps connector_refs sent with the package, and connector_count follows them', async () => {
      const created = created201(await uploadPackage(packageEntries()));
      const suite = await newSuite();
      const refs = [{ connector_id: 'slack', connector_origin: 'official', required: false }];
      const { body } = await patch(suite.id, { upload_id: created.body.upload_id, connector_refs: refs }).expect(200);
      expect(body).toMatchObject({ connector_refs: refs, connector_count: 1 });
      expect(body.connectors).toHaveLength(2);
    });

    it('keeps connectors.json objects that name no connector: connector_count follows the list, connector_refs only the named ones', async () => {
      const connectors = [{ slug: 'crm', title: 'CRM connector' }, { connector_id: 'github', connector_origin: 'official', required: false }];
      const created = created201(await uploadPackage(packageEntries({ 'connectors.json': JSON.stringify(connectors) })));
      expect(created.body.package.connector_count).toBe(2);
      const suite = await newSuite();
      const { body } = await patch(suite.id, { upload_id: created.body.upload_id }).expect(200);
      expect(body).toMatchObject({ connectors, connector_count: 2, connector_refs: [{ connector_id: 'github', connector_origin: 'official', required: false }] });
    });

    it.each([
      [{ command_count: 3 }, 'command_count', '2'],
      [{ skill_count: 0 }, 'skill_count', '1'],
      [{ version: '9.9.9' }, 'version', '2.1.0'],
    ])('refuses %j disagreeing with the package with 400 invalid_value, changing nothing', async (extra, field, suggestion) => {
      const created = created201(await uploadPackage(packageEntries()));
      const suite = await newSuite();
      const response = await patch(suite.id, { upload_id: created.body.upload_id, display_name: 'not kept', ...extra });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field, reason: 'invalid_value', suggestion });
      const stored = await database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
      expect({ hasPackage: stored.hasPackage, displayName: stored.displayName, revision: stored.revision }).toEqual({
        hasPackage: false,
        displayName: suite.display_name,
        revision: 1n,
      });
    });

    it('checks counts against the stored package once the suite has one', async () => {
      const created = created201(await uploadPackage(packageEntries()));
      const suite = await newSuite();
      await patch(suite.id, { upload_id: created.body.upload_id }).expect(200);
      const response = await patch(suite.id, { command_count: 5 });
      expect(response.body.details).toEqual({ field: 'command_count', reason: 'invalid_value', suggestion: '2' });
      await patch(suite.id, { command_count: 2, skill_count: 1 }).expect(200);
    });

    it('reads a package without optional files as empty', async () => {
      const created = created201(await uploadPackage(packageEntries({ 'connectors.json': undefined, 'README.zh-CN.md': undefined, 'README.md': undefined })));
      const suite = await newSuite();
      const { body } = await patch(suite.id, { upload_id: created.body.upload_id }).expect(200);
      expect(body).toMatchObject({ connectors: [], connector_refs: [], connector_count: 0, readme_content: '', readme_content_cn: '' });
    });
  });

  describe('refused packages (400, nothing kept)', () => {
    const expectRefused = async (response: Awaited<ReturnType<typeof upload>>, reason: string) => {
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'file', reason });
      expect(await database.prisma.upload.count({ where: { organizationId: tenant.organizationId, kind: 'package' } })).toBe(packagesBefore);
      expect(await database.prisma.uploadChunk.count()).toBe(chunksBefore);
    };
    let packagesBefore: number;
    let chunksBefore: number;

    beforeEach(async () => {
      packagesBefore = await database.prisma.upload.count({ where: { organizationId: tenant.organizationId, kind: 'package' } });
      chunksBefore = await database.prisma.uploadChunk.count();
    });

    it('refuses an entry that climbs out of the archive (path traversal)', async () => {
      const zip = renameEntry(await buildZip([...packageEntries(), { name: 'xx/evil.sh', content: 'rm -rf /' }]), 'xx/evil.sh', '../evil.sh');
      await expectRefused(await upload('package', zip, 'suite.zip'), 'unsafe_path');
    });

    it('refuses an absolute path', async () => {
      const zip = renameEntry(await buildZip([...packageEntries(), { name: 'etc/passwd', content: 'root' }]), 'etc/passwd', '/etc/passw');
      await expectRefused(await upload('package', zip, 'suite.zip'), 'unsafe_path');
    });

    it('refuses a backslash path', async () => {
      const zip = renameEntry(await buildZip([...packageEntries(), { name: 'ab/evil', content: 'x' }]), 'ab/evil', '..\\evil');
      await expectRefused(await upload('package', zip, 'suite.zip'), 'unsafe_path');
    });

    it('refuses a symbolic link', async () => {
      const zip = await buildZip([...packageEntries(), { name: 'skills/security-audit/link', content: '/etc/passwd', mode: 0o120777 }]);
      await expectRefused(await upload('package', zip, 'suite.zip'), 'unsafe_path');
    });

    it('refuses a zip bomb by compression ratio', async () => {
      const zip = await buildZip([...packageEntries(), { name: 'assets/zeros.bin', content: Buffer.alloc(8 * 1024 * 1024) }]);
      expect(zip.length).toBeLessThan(64 * 1024);
      const response = await upload('package', zip, 'suite.zip');
      await expectRefused(response, 'too_large');
      expect(response.body.detail).toContain('zip bomb');
    });

    it('refuses an archive whose directory understates the uncompressed sizes', async () => {
      const zip = understateSizes(await buildZip([...packageEntries(), { name: 'assets/data.bin', content: randomBytes(32 * 1024) }]), 10);
      await expectRefused(await upload('package', zip, 'suite.zip'), 'invalid_archive');
    });

    it('refuses a package that decompresses to more than 64 MiB in total, each entry under the ratio limit', async () => {
      // One random byte in 64: compresses about 27:1, below the ratio limit.
      const chunk = Buffer.alloc(8 * 1024 * 1024);
      randomBytes(chunk.length / 64).forEach((byte, i) => (chunk[i * 64] = byte));
      const assets = Array.from({ length: 9 }, (_, i) => ({ name: `assets/part${i}.bin`, content: chunk }));
      const zip = await buildZip([...packageEntries(), ...assets]);
      expect(zip.length).toBeLessThan(20 * 1024 * 1024);
      const response = await upload('package', zip, 'suite.zip');
      await expectRefused(response, 'too_large');
      expect(response.body.detail).toContain(`more than ${64 * 1024 * 1024} bytes`);
    });

    it('refuses too many entries', async () => {
      const extra = Array.from({ length: 1000 }, (_, i) => ({ name: `assets/f${i}.txt`, content: 'x' }));
      await expectRefused(await uploadPackage([...packageEntries(), ...extra]), 'too_many_entries');
    });

    it('refuses a text file over 1 MiB', async () => {
      const big = randomBytes(800 * 1024).toString('base64');
      await expectRefused(await uploadPackage(packageEntries({ 'README.md': big })), 'too_large');
    });

    it('refuses garbage bytes, with or without a zip signature, and an empty file', async () => {
      await expectRefused(await upload('package', randomBytes(2048), 'suite.zip'), 'invalid_archive');
      await expectRefused(await upload('package', Buffer.alloc(0), 'suite.zip'), 'invalid_archive');
      await expectRefused(await upload('package', Buffer.from('PK\u0003\u0004 not really a zip'), 'suite.zip'), 'invalid_archive');
    });

    it.each([
      ['no suite.json', { 'suite.json': undefined }],
      ['suite.json that is not JSON', { 'suite.json': '{"name": ' }],
      ['suite.json without version', { 'suite.json': JSON.stringify({ name: 'x' }) }],
      ['suite.json with a blank name', { 'suite.json': JSON.stringify({ name: ' ', version: '1' }) }],
      ['a version over 64 characters', { 'suite.json': JSON.stringify({ name: 'x', version: 'v'.repeat(65) }) }],
      ['connectors.json that is not an array', { 'connectors.json': '{}' }],
      ['a connector that is not an object', { 'connectors.json': JSON.stringify(['github']) }],
      ['a connector listed twice', { 'connectors.json': JSON.stringify([{ connector_id: 'a', connector_origin: 'o' }, { connector_id: 'a', connector_origin: 'o' }]) }],
      ['a skill folder without SKILL.md', { 'skills/orphan/notes.md': 'no skill file' }],
      ['a README that is not UTF-8', { 'README.md': undefined }],
    ])('refuses a manifest with %s as invalid_manifest', async (label, overrides) => {
      const entries = packageEntries(overrides);
      if (label.startsWith('a README')) entries.push({ name: 'README.md', content: Buffer.from([0xff, 0xfe, 0xfd]) });
      await expectRefused(await uploadPackage(entries), 'invalid_manifest');
    });
  });

  describe('icons', () => {
    it('stores a PNG and serves it publicly with its detected type and safe headers', async () => {
      const created = await upload('icon', PNG, 'icon.svg').expect(201);
      expect(created.body).toMatchObject({ kind: 'icon', size: PNG.length, content_type: 'image/png', package: null });
      const served = await testApp.http().get(`${UPLOADS}/${created.body.upload_id}/content`).buffer(true).expect(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers['content-security-policy']).toContain('sandbox');
      expect(Buffer.from(served.body).equals(PNG)).toBe(true);
    });

    it('serves an SVG so that its script cannot run: CSP sandbox without script, as an attachment', async () => {
      const created = await upload('icon', SVG, 'icon.png').expect(201);
      expect(created.body.content_type).toBe('image/svg+xml');
      const served = await testApp.http().get(`${UPLOADS}/${created.body.upload_id}/content`).buffer(true).expect(200);
      expect(served.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(served.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
      expect(served.headers['content-disposition']).toMatch(/^attachment/);
      expect(served.headers['x-content-type-options']).toBe('nosniff');
    });

    it.each([
      ['HTML', Buffer.from('<html><script>alert(1)</script></html>')],
      ['an SVG with a DOCTYPE', Buffer.from('<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>')],
      ['a GIF', Buffer.from('GIF89a\u0001\u0000\u0001\u0000')],
      ['a zip', Buffer.from('PK\u0003\u0004rest')],
    ])('refuses %s as unsupported_type whatever its name', async (_label, bytes) => {
      const response = await upload('icon', bytes, 'icon.png');
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'file', reason: 'unsupported_type' });
    });

    it('refuses an icon over the icon limit with 413', async () => {
      const big = Buffer.concat([PNG, Buffer.alloc(ICON_LIMIT)]);
      expectErrorBody(await upload('icon', big, 'big.png'), 413, 'PAYLOAD_TOO_LARGE', 'payload_too_large');
    });

    it('sets icon_url to the served address with icon_upload_id, loadable without a key', async () => {
      const created = await upload('icon', PNG, 'icon.png').expect(201);
      const suite = await newSuite();
      const { body } = await patch(suite.id, { icon_upload_id: created.body.upload_id }).expect(200);
      const url = new URL(body.icon_url);
      expect(url.protocol).toBe('http:');
      expect(url.pathname).toBe(`${UPLOADS}/${created.body.upload_id}/content`);
      await testApp.http().get(url.pathname).expect(200);
      const direct = await patch(suite.id, { icon_url: 'https://cdn.example.com/x.png' }).expect(200);
      expect(direct.body.icon_url).toBe('https://cdn.example.com/x.png');
    });

    it('uses PUBLIC_BASE_URL for the icon address when configured', async () => {
      const other = await startTestApp(database, { PUBLIC_BASE_URL: 'https://admin.example.com' });
      try {
        const created = await upload('icon', PNG, 'icon.png', tenant.bearer, other).expect(201);
        const suite = await newSuite();
        const { body } = await other.http().patch(suitePath(suite.id)).set('Authorization', tenant.bearer).send({ icon_upload_id: created.body.upload_id }).expect(200);
        expect(body.icon_url).toBe(`https://admin.example.com${UPLOADS}/${created.body.upload_id}/content`);
      } finally {
        await other.close();
      }
    });

    it('stores no address for an uploaded icon: each answer builds it from the instance\'s PUBLIC_BASE_URL or the request', async () => {
      const created = await upload('icon', PNG, 'icon.png').expect(201);
      const suite = await newSuite();
      await patch(suite.id, { icon_upload_id: created.body.upload_id }).expect(200);
      const stored = await database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
      expect({ iconUrl: stored.iconUrl, iconUploadId: stored.iconUploadId }).toEqual({ iconUrl: '', iconUploadId: created.body.upload_id });

      const moved = await startTestApp(database, { PUBLIC_BASE_URL: 'https://moved.example.com' });
      try {
        const read = await moved.http().get(suitePath(suite.id)).set('Authorization', tenant.bearer).expect(200);
        expect(read.body.icon_url).toBe(`https://moved.example.com${UPLOADS}/${created.body.upload_id}/content`);
        // Naming the same icon again changes nothing, whichever address the answer shows.
        const again = await moved.http().patch(suitePath(suite.id)).set('Authorization', tenant.bearer).send({ icon_upload_id: created.body.upload_id }).expect(200);
        expect(again.body.revision).toBe(read.body.revision);
      } finally {
        await moved.close();
      }
      const viaRequest = await testApp.http().get(suitePath(suite.id)).set('Authorization', tenant.bearer).set('Host', 'admin.internal:8080').expect(200);
      expect(viaRequest.body.icon_url).toBe(`http://admin.internal:8080${UPLOADS}/${created.body.upload_id}/content`);
    });

    it('does not serve packages or unknown ids', async () => {
      const pkg = created201(await uploadPackage(packageEntries()));
      expectErrorBody(await testApp.http().get(`${UPLOADS}/${pkg.body.upload_id}/content`), 404, 'NOT_FOUND', 'not_found');
      expectErrorBody(await testApp.http().get(`${UPLOADS}/${randomUUID()}/content`), 404, 'NOT_FOUND', 'not_found');
    });
  });

  describe('using uploads in a PATCH', () => {
    it("refuses another organization's upload exactly like an unknown one", async () => {
      const other = await createTenant(database);
      const foreignPackage = created201(await uploadPackage(packageEntries(), other.bearer));
      const foreignIcon = await upload('icon', PNG, 'icon.png', other.bearer).expect(201);
      const suite = await newSuite();
      const pkg = await patch(suite.id, { upload_id: foreignPackage.body.upload_id });
      expectErrorBody(pkg, 422, 'UPLOAD_NOT_FOUND', 'unprocessable_entity');
      expect(pkg.body.details).toEqual({ field: 'upload_id', reason: 'not_found' });
      const icon = await patch(suite.id, { icon_upload_id: foreignIcon.body.upload_id });
      expectErrorBody(icon, 422, 'UPLOAD_NOT_FOUND', 'unprocessable_entity');
      const unknown = await patch(suite.id, { upload_id: randomUUID() });
      expect({ ...unknown.body, detail: undefined }).toEqual({ ...pkg.body, detail: undefined });
      const stored = await database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
      expect(stored.revision).toBe(1n);
    });

    it('refuses an upload of the wrong kind and an expired one with 422 UPLOAD_NOT_USABLE', async () => {
      const icon = await upload('icon', PNG, 'icon.png').expect(201);
      const pkg = created201(await uploadPackage(packageEntries()));
      const suite = await newSuite();
      const wrongKind = await patch(suite.id, { upload_id: icon.body.upload_id });
      expectErrorBody(wrongKind, 422, 'UPLOAD_NOT_USABLE', 'unprocessable_entity');
      expect(wrongKind.body.details).toEqual({ field: 'upload_id', reason: 'wrong_kind' });
      const iconAsPackage = await patch(suite.id, { icon_upload_id: pkg.body.upload_id });
      expect(iconAsPackage.body.details).toEqual({ field: 'icon_upload_id', reason: 'wrong_kind' });

      await database.prisma.upload.update({ where: { id: pkg.body.upload_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const expired = await patch(suite.id, { upload_id: pkg.body.upload_id, display_name: 'not kept' });
      expectErrorBody(expired, 422, 'UPLOAD_NOT_USABLE', 'unprocessable_entity');
      expect(expired.body.details).toEqual({ field: 'upload_id', reason: 'expired' });
      const stored = await database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
      expect({ hasPackage: stored.hasPackage, revision: stored.revision }).toEqual({ hasPackage: false, revision: 1n });
    });
  });

  describe('the upload request', () => {
    it('requires the file, a known kind, and no other fields', async () => {
      const noFile = await testApp.http().post(UPLOADS).set('Authorization', tenant.bearer).field('kind', 'icon');
      expectErrorBody(noFile, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(noFile.body.details).toEqual({ field: 'file', reason: 'required' });
      const noKind = await testApp.http().post(UPLOADS).set('Authorization', tenant.bearer).attach('file', PNG, 'icon.png');
      expect(noKind.body.details).toEqual({ field: 'kind', reason: 'required' });
      const badKind = await upload('avatar', PNG, 'icon.png');
      expect(badKind.body.details).toEqual({ field: 'kind', reason: 'invalid_value' });
      const extra = await testApp.http().post(UPLOADS).set('Authorization', tenant.bearer).field('kind', 'icon').field('name', 'x').attach('file', PNG, 'icon.png');
      expect(extra.body.details).toEqual({ field: 'name', reason: 'unknown_field' });
      const otherPart = await testApp.http().post(UPLOADS).set('Authorization', tenant.bearer).field('kind', 'icon').attach('image', PNG, 'icon.png');
      expectErrorBody(otherPart, 400, 'VALIDATION_FAILED', 'bad_request');
    });

    it('answers a JSON body with 415, no key with 401 and a key without the scope with 403', async () => {
      expectErrorBody(await testApp.http().post(UPLOADS).set('Authorization', tenant.bearer).send({ kind: 'icon' }), 415, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported_media_type');
      expectErrorBody(await testApp.http().post(UPLOADS).field('kind', 'icon').attach('file', PNG, 'icon.png'), 401, 'UNAUTHENTICATED', 'unauthorized');
      const readOnly = await createApiKey(database, tenant.organizationId, [QuotaScope.Read]);
      expectErrorBody(await upload('icon', PNG, 'icon.png', readOnly.bearer), 403, 'INSUFFICIENT_SCOPE', 'forbidden');
    });

    it('answers a file over the largest upload limit with 413 while reading the form', async () => {
      const small = await startTestApp(database, { PACKAGE_UPLOAD_LIMIT_BYTES: 8192, ICON_UPLOAD_LIMIT_BYTES: 4096 });
      try {
        const response = await upload('package', randomBytes(16 * 1024), 'suite.zip', tenant.bearer, small);
        expectErrorBody(response, 413, 'PAYLOAD_TOO_LARGE', 'payload_too_large');
      } finally {
        await small.close();
      }
    });

    it('documents the multipart upload and the content route in OpenAPI', async () => {
      const document = (await testApp.http().get('/docs-json').expect(200)).body;
      const post = document.paths[UPLOADS].post;
      expect(post['x-required-scope']).toBe(ExpertSuitesScope.Manage);
      const form = post.requestBody.content['multipart/form-data'].schema;
      expect(form.properties.file).toEqual(expect.objectContaining({ type: 'string', format: 'binary' }));
      expect(form.properties.kind.enum).toEqual(['package', 'icon']);
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '413', '415']));
      const content = document.paths[`${UPLOADS}/{uploadId}/content`].get;
      // Public: an explicit empty security requirement (what the OpenAPI lint asks for), no scope.
      expect(content.security).toEqual([]);
      expect(content['x-required-scope']).toBeUndefined();
      // The image types are the 200's alone; its errors are the JSON error body.
      expect(Object.keys(content.responses['200'].content)).toEqual(['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml']);
      expect(Object.keys(content.responses['404'].content)).toEqual(['application/json']);
    });
  });
});
