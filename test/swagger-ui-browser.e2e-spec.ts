import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { ONE_PIXEL_PNG } from './support/images';
import { useTestApp } from './support/test-app';

// Swagger UI under the service's real headers, in headless Chromium (the Debian `chromium`
// package; CHROMIUM_PATH points elsewhere). .ci/run installs it, so in CI (CI=true) it always
// runs; a developer machine without it skips this file.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const describeWithChromium = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

interface DocumentedOperation {
  method: string;
  path: string;
  pathParameters: string[];
}

function operationsOf(document: { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> }): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, pathItem]) =>
    Object.entries(pathItem).map(([method, operation]) => ({
      method,
      path,
      pathParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
    })),
  );
}

async function authorize(page: Page, apiKey: string): Promise<void> {
  await page.locator('.auth-wrapper .authorize').click();
  await page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(apiKey);
  await page.locator('.modal-ux button.authorize').click();
  await page.locator('.modal-ux h6', { hasText: 'Authorized' }).waitFor();
  await page.locator('.modal-ux button.btn-done').click();
}

/** The operation's block in Swagger UI, opened, with "Try it out" pressed. */
async function tryOut(page: Page, { method, path }: DocumentedOperation): Promise<Locator> {
  const block = page.locator(`.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
  await block.locator('.opblock-summary').click();
  await block.locator('.try-out__btn').click();
  return block;
}

/** Presses Execute; returns the status and body text of the live response. */
async function execute(block: Locator): Promise<{ status: number; body: string }> {
  await block.locator('.execute').click();
  const row = block.locator('.live-responses-table tbody tr.response').first();
  await row.locator('.response-col_status').waitFor();
  const status = Number((await row.locator('.response-col_status').textContent())?.trim());
  const body = (await row.locator('.response-col_description pre').first().textContent().catch(() => '')) ?? '';
  return { status, body };
}

describeWithChromium('Swagger UI at /docs in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);

  // Declared before the app's fixture, so that it runs first (jest runs afterAll hooks in the order
  // they are declared): the app then closes with no browser connection still open to it.
  afterAll(async () => {
    await browser?.close();
  });

  const fixture = useTestApp({ listen: true });

  it('renders the operations, authorizes with a key, runs an operation, and violates no Content-Security-Policy', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${fixture.baseUrl}/docs`);
    const openApi = (await fixture.http().get('/docs-json').expect(200)).body as { paths: Record<string, object> };
    const operations = Object.values(openApi.paths).flatMap((pathItem) => Object.keys(pathItem)).length;
    await page.waitForFunction(`document.querySelectorAll('.opblock').length === ${operations}`);

    await authorize(page, fixture.tenant.apiKey);

    const operation = page.locator('.opblock-get').filter({ hasText: '/metering-policy' }).first();
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');

    await page.screenshot({ path: join(tmpdir(), 'swagger-ui.png'), fullPage: false });
    expect(problems).toEqual([]);
  }, 60_000);

  // What a new user does: Authorize, then "Try it out" and "Execute" on each operation, adding only
  // what the form leaves empty and requires: an Idempotency-Key, a file to upload, an id in a path.
  it('answers 2xx to every operation executed with the values Swagger UI prefills', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${fixture.baseUrl}/docs`);
    const operations = operationsOf((await fixture.http().get('/docs-json').expect(200)).body);
    await page.waitForFunction(`document.querySelectorAll('.opblock').length === ${operations.length}`);
    await authorize(page, fixture.tenant.apiKey);

    const suite = await fixture.newSuite();
    const ids: Record<string, string> = { resourceId: suite.id };
    const executed: string[] = [];
    // Those without a path parameter first: their answers give the ids the others need; deletes last, the innermost
    // resource first (a department's member before the user and the department).
    const order = (operation: DocumentedOperation) => (operation.method === 'delete' ? 100 - operation.pathParameters.length : operation.pathParameters.length);
    for (const operation of [...operations].sort((a, b) => order(a) - order(b))) {
      const block = await tryOut(page, operation);
      for (const name of operation.pathParameters) {
        expect(ids[name]).toBeDefined();
        await block.locator(`tr[data-param-name="${name}"] input`).fill(ids[name]);
      }
      const idempotencyKey = block.locator('tr[data-param-name="Idempotency-Key"] input');
      if ((await idempotencyKey.count()) > 0) await idempotencyKey.fill(fixture.newIdempotencyKey());
      const file = block.locator('input[type=file]');
      if ((await file.count()) > 0) await file.setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
      const { status, body } = await execute(block);
      const label = `${operation.method.toUpperCase()} ${operation.path}`;
      // The answer's body is in the message when it is not a success.
      expect(`${label} ${status >= 200 && status < 300 ? '2xx' : `${status} ${body}`}`).toBe(`${label} 2xx`);
      executed.push(label);
      if (body.trim().startsWith('{')) {
        const json = JSON.parse(body) as Record<string, unknown>;
        // An answer's `<resource>_id` (or its first list item's) fills the path parameter of that name, snake_case or
        // camelCase (`upload_id` → `uploadId`), unless an earlier answer filled it (an audit event's `resource_id`
        // names any kind of record); its `id` fills the parameter of the item path below the operation's
        // (POST /webhook-endpoints → {endpoint_id} of /webhook-endpoints/{endpoint_id}).
        const firstItem = Array.isArray(json.items) && typeof json.items[0] === 'object' ? (json.items[0] as Record<string, unknown>) : {};
        for (const [field, value] of [...Object.entries(firstItem), ...Object.entries(json)]) {
          if (!field.endsWith('_id') || typeof value !== 'string') continue;
          ids[field] ??= value;
          ids[field.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] ??= value;
        }
        // A SCIM list (ListResponse) gives its first resource's `id` the same way (GET /scim/v2/Schemas → {schemaId}).
        const itemParameter = new RegExp(`^${operation.path.replace(/[{}]/g, '\\$&')}/\\{([^}]+)\\}$`);
        const itemPath = operations.map(({ path }) => itemParameter.exec(path)).find((match) => match !== null);
        const firstResource = Array.isArray(json.Resources) && typeof json.Resources[0] === 'object' ? (json.Resources[0] as Record<string, unknown>) : {};
        const itemId = typeof json.id === 'string' ? json.id : firstResource.id;
        if (typeof itemId === 'string' && itemPath && ids[itemPath[1]] === undefined) ids[itemPath[1]] = itemId;
      }
      await block.locator('.opblock-summary').click();
    }
    expect(executed).toHaveLength(operations.length);
    // About 2.5 s an operation on a loaded CI machine, and 39 operations since SCIM's.
  }, 180_000);
});
