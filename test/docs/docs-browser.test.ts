// /docs in a real browser (Debian's chromium, driven by playwright-core; never a browser download): the
// page loads with no request leaving the machine and no console error, shows every operation of the
// served document with getPet deprecated and the beta operations (x-stability) marked "(beta)" under
// the one tag, and "Try it out" calls the API with a pasted key, which
// never shows up in a URL, a cookie or the server's log. Skipped with one line where chromium is absent;
// ANIMAL_STORE_TEST_BROWSER=required (CI) makes that a failure.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { createLogger } from '../../src/logging/logger.js';
import { startServer, TEST_KEY, type TestServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const required = process.env.ANIMAL_STORE_TEST_BROWSER === 'required';
const present = existsSync(CHROMIUM);
if (!present && required) throw new Error(`${CHROMIUM} is missing and ANIMAL_STORE_TEST_BROWSER=required`);
const skip = present ? false : `no browser at ${CHROMIUM} (apt-get install -y chromium)`;

let server: TestServer;
let browser: Browser;
const logLines: string[] = [];

before(async () => {
  if (!present) return;
  server = await startServer({ logger: createLogger({ level: 'info', write: (line) => logLines.push(line) }) });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test(
  'the reference renders every operation offline, and Try it out calls the API with a pasted key',
  { skip, timeout: 120_000 },
  async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const origin = new URL(server.url).origin;
    const outside: string[] = [];
    const problems: string[] = [];
    // Every request is looked at: one for another origin fails the test (and is not sent).
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${origin}/docs`);
    await page.locator('.opblock').first().waitFor();
    const document = (await (await fetch(`${origin}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; summary?: string; 'x-stability'?: string }>>;
    };
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    for (const operation of operations) {
      const block = page.locator(`[id$="${operation.operationId}"]`);
      assert.equal(await block.count(), 1, `${operation.operationId} is shown`);
    }
    const getPet = page.locator('[id$="getPet"]');
    assert.match((await getPet.getAttribute('class')) ?? '', /opblock-deprecated/, 'getPet shows as deprecated');
    // Each operation's summary as shown: "(beta)" after those that carry x-stability: beta, and only those.
    const beta = operations.filter((operation) => operation['x-stability'] === 'beta');
    assert.ok(beta.length >= 3, 'the order operations are beta in the document');
    for (const operation of operations) {
      const shown = await page
        .locator(`[id$="${operation.operationId}"] .opblock-summary-description`)
        .first()
        .innerText();
      if (operation['x-stability'] === 'beta')
        assert.equal(shown, `${operation.summary} (beta)`, operation.operationId);
      else assert.equal(shown, operation.summary, operation.operationId);
    }
    assert.equal(await page.locator('.opblock-tag-section').count(), 1, 'one tag, as the document has');

    // Authorize with the key, then run createPet and listPets from the page.
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    await page.locator('.modal-ux input[type="text"], .modal-ux input[type="password"]').first().fill(TEST_KEY);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done, .modal-ux .close-modal').first().click();

    const createPet = page.locator('[id$="createPet"]');
    await createPet.locator('.opblock-summary').click();
    await createPet.getByRole('button', { name: 'Try it out' }).click();
    await createPet.locator('textarea.body-param__text').fill('{"name":"Rex from the browser","categoryId":3}');
    await createPet.getByRole('button', { name: 'Execute' }).click();
    await createPet.locator('.live-responses-table tr.response .response-col_status').first().waitFor();
    assert.match(
      await createPet.locator('.live-responses-table tr.response .response-col_status').first().innerText(),
      /201/,
      `${await createPet.locator('.responses-wrapper').innerText()} outside: ${outside.join(' ')}`,
    );

    const listPets = page.locator('[id$="listPets"]');
    await listPets.locator('.opblock-summary').click();
    await listPets.getByRole('button', { name: 'Try it out' }).click();
    await listPets.getByRole('button', { name: 'Execute' }).click();
    await listPets.locator('.live-responses-table tr.response .response-col_status').first().waitFor();
    assert.match(
      await listPets.locator('.live-responses-table tr.response .response-col_status').first().innerText(),
      /200/,
    );
    assert.match(await listPets.locator('.live-responses-table').innerText(), /Rex from the browser/);

    assert.deepEqual(outside, [], 'no request left the machine');
    assert.deepEqual(problems, [], 'no console error');
    assert.deepEqual(await context.cookies(), [], 'no cookie');
    assert.ok(!page.url().includes(TEST_KEY), 'the key is not in the page URL');
    const storage: unknown = await page.evaluate(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })',
    );
    assert.ok(typeof storage === 'string' && !storage.includes(TEST_KEY), 'the key is not kept in storage');
    assert.ok(logLines.length > 0 && !logLines.join('').includes(TEST_KEY), 'the key is not in the log');
    // A wrong key: the page shows the 401 and its error body.
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    await page.locator('.modal-ux button.btn-done, .modal-ux button:has-text("Logout")').first().click();
    await page
      .locator('.modal-ux input[type="text"], .modal-ux input[type="password"]')
      .first()
      .fill('not-the-right-key-0123456789');
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done, .modal-ux .close-modal').first().click();
    await listPets.getByRole('button', { name: 'Execute' }).click();
    await listPets
      .locator('.live-responses-table tr.response .response-col_status')
      .filter({ hasText: '401' })
      .first()
      .waitFor();
    assert.match(await listPets.locator('.live-responses-table').innerText(), /"code": "unauthorized"/);
    // The browser itself reports the refused request; nothing else goes to the console.
    assert.deepEqual(
      problems.filter((line) => !/status of 401/.test(line)),
      [],
      'no console error but the 401 itself',
    );
    // For people to look at: the page as the test left it (screenshots/ is git-ignored).
    await page.screenshot({
      path: fileURLToPath(new URL('../../screenshots/docs.png', import.meta.url)),
      fullPage: true,
    });
    await context.close();
  },
);
