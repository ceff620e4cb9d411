import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { ONE_PIXEL_PNG } from './support/images';
import { secondPressStatus } from './support/prefilled-requests';
import { freshEmbeddedEnvironment, printedDemoKey, startService, stopService, type RunningService } from './support/started-service';

// Swagger UI under the service's real headers, in headless Chromium (the Debian `chromium`
// package; CHROMIUM_PATH points elsewhere). .ci/run installs it, so in CI (CI=true) it always
// runs; a developer machine without it skips this file.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const describeWithChromium = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

/**
 * Operations that cannot answer 2xx with nothing typed, each with what the test supplies and why.
 * Every other operation of the served document, those added later included, is pressed untouched.
 */
const TYPED_BY_THE_TEST: Record<string, { why: string; fill: (block: Locator) => Promise<void> }> = {
  createUpload: {
    why: 'its body is a file, which a document cannot prefill',
    fill: (block) => block.locator('input[type=file]').setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG }),
  },
};

interface DocumentedOperation {
  method: string;
  path: string;
  operationId: string;
  tag: string;
}

function operationsOf(document: { paths: Record<string, Record<string, { operationId: string; tags?: string[] }>> }): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, pathItem]) =>
    Object.entries(pathItem).map(([method, operation]) => ({ method, path, operationId: operation.operationId, tag: operation.tags?.[0] ?? '' })),
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

/** Presses Execute; returns the status and body of the request it sent, once the page shows that status. */
async function execute(page: Page, block: Locator, { method, path }: DocumentedOperation): Promise<{ status: number; body: string }> {
  const pathPattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === method.toUpperCase() && pathPattern.test(new URL(candidate.url()).pathname)),
    block.locator('.execute').click(),
  ]);
  const status = response.status();
  await block.locator('.live-responses-table tbody tr.response .response-col_status', { hasText: String(status) }).first().waitFor();
  return { status, body: await response.text().catch(() => '') };
}

describeWithChromium('Swagger UI at /docs of the embedded demo, in headless Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let service: RunningService;
  let demoKey: string;

  beforeAll(async () => {
    [browser, service] = await Promise.all([
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
      // What a new user starts: `npm start` on a new embedded database, which prints the demo key.
      startService(freshEmbeddedEnvironment('wsa-swagger-')),
    ]);
    demoKey = printedDemoKey(service.output());
    context = await browser.newContext();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (service) await stopService(service);
  });

  // What a new user does: Authorize with the printed key, then "Try it out" and "Execute" without
  // typing anything, and Execute once more on a change. Every press answers 2xx, but the second of a delete (404:
  // the row is gone) or of a SCIM create (409: no Idempotency-Key), as the operation's description says; no console error and no
  // Content-Security-Policy violation after any operation. The page is loaded anew for each tag's
  // operations (a new document: Swagger UI's state, its prefilled values, a new Idempotency-Key):
  // a load per operation would take this 2-core machine four minutes instead of under two.
  // Each step waits at most 10 s (a stuck page fails there); the test's own limit only has to hold the
  // whole tour, about 100 s alone and 250 s beside other test files on 2 cores.
  it('answers 2xx to every operation of the served document executed untouched (a change twice), with a clean console', async () => {
    const document = (await (await fetch(`${service.baseUrl}/docs-json`)).json()) as Parameters<typeof operationsOf>[0];
    const operations = operationsOf(document);
    const outcomes: string[] = [];
    const expected: string[] = [];
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    let problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    for (const [index, operation] of operations.entries()) {
      const label = `${operation.method.toUpperCase()} ${operation.path}`;
      if (index === 0 || operation.tag !== operations[index - 1].tag) {
        await page.goto(`${service.baseUrl}/docs`);
        await page.waitForFunction(`document.querySelectorAll('.opblock').length === ${operations.length}`);
        // Pressed once; later loads keep the key, as Swagger UI does for a user (persistAuthorization).
        if (index === 0) await authorize(page, demoKey);
        else await page.locator('.auth-wrapper .authorize.locked').waitFor();
      }
      problems = [];
      const block = await tryOut(page, operation);
      await TYPED_BY_THE_TEST[operation.operationId]?.fill(block);
      // A read pressed again proves nothing more; a change pressed again must still answer as promised.
      for (const press of operation.method === 'get' ? [1] : [1, 2]) {
        const { status, body } = await execute(page, block, operation);
        const refused = press === 2 ? secondPressStatus(operation.method, operation.path) : undefined;
        // The body is in the message when the answer is not the one expected.
        outcomes.push(`${label} #${press}: ${refused !== undefined && status === refused ? refused : status >= 200 && status < 300 ? '2xx' : `${status} ${body}`}`);
        expected.push(`${label} #${press}: ${refused ?? '2xx'}`);
      }
      if (operation.operationId === 'getUploadContent') {
        // The icon is shown from a blob: URL, which the page's Content-Security-Policy must allow.
        await block.locator('.response-col_description img').waitFor();
        await page.screenshot({ path: join(tmpdir(), 'swagger-ui-icon.png') });
      }
      // The refused second press (a delete's 404, a SCIM create's 409) is logged by the browser as a failed resource load.
      const refusal = secondPressStatus(operation.method, operation.path);
      const unexpected = problems.filter((problem) => !(refusal !== undefined && new RegExp(`status of ${refusal}`).test(problem)));
      outcomes.push(`${label} console: ${unexpected.length === 0 ? 'clean' : unexpected.join(' | ')}`);
      expected.push(`${label} console: clean`);
      // Closed again, so that the next operation's block is found among short ones.
      await block.locator('.opblock-summary').click();
    }
    expect(outcomes).toEqual(expected);
  }, 600_000);
});
