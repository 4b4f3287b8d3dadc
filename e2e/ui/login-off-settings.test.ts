/**
 * Settings with sign-in off, the quick start's default, in Debian's Chromium (issue 34, bug 8):
 * the model prices, providers and jobs are there, and a provider key is stored without
 * SERVICE_SECRET (under the key the server keeps in its working directory, SQLite only).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { LOCAL_SECRET_FILE } from '../../packages/server/src/playground/local-secret.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe('UI: settings with sign-in off', () => {
  let server: TestServer;
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);

  before(async () => {
    server = await startTestServer('sqlite');
    opened = await openPage(browser);
  });
  after(async () => {
    await opened?.close();
    await server?.close();
  });

  test('offers model prices, providers and jobs, and stores a provider key', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/settings`);
    await page.getByText('Authentication is off').waitFor();
    await page.getByRole('tab', { name: 'Model prices' }).waitFor();
    await page.getByRole('tab', { name: 'Jobs' }).waitFor();
    await page.getByRole('tab', { name: 'Providers' }).click();

    const secret = 'sk-quick-start-0123456789';
    await page.getByRole('button', { name: 'Set OPENAI_API_KEY' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^OPENAI_API_KEY/).fill(secret);
    await dialog.getByRole('button', { name: 'Store' }).click();
    await page.getByTestId('secret-OPENAI_API_KEY').getByTestId('secret-stored').waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the key is never shown back');
    assert.ok(fs.existsSync(path.join(server.database.workingDir, LOCAL_SECRET_FILE)), 'sealed under the local key');
  });
});
