import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { useTestApp } from './support/test-app';

// Swagger UI under the service's real headers, in headless Chromium (the Debian `chromium`
// package; CHROMIUM_PATH points elsewhere). .ci/run installs it, so in CI (CI=true) it always
// runs; a developer machine without it skips this file.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const describeWithChromium = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

describeWithChromium('Swagger UI at /docs in headless Chromium', () => {
  const fixture = useTestApp({ listen: true });
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

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

    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(fixture.tenant.apiKey);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux h6', { hasText: 'Authorized' }).waitFor();
    await page.locator('.modal-ux button.btn-done').click();

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
});
