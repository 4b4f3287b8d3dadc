/**
 * A prompt's page, in Debian's Chromium (issue 34): tags set through the API show on their
 * version (bug 3); a tag set from the page moves to that version (the API then finds the version
 * by it); a tag removed from the page is gone; a version's details, and a diff of two versions.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import { eventually, firstAdminLogin, launchChromium, openPage, startAuthServer, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe('UI: prompt tags', () => {
  let server: TestServer;
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);

  before(async () => {
    server = await startAuthServer('');
    opened = await openPage(browser);
    await firstAdminLogin(opened.page, server.url);
  });
  after(async () => {
    await opened?.close();
    await server?.close();
  });

  test("shows, sets and removes a version's tags", async () => {
    const { page } = opened;
    const name = unique('reply').toLowerCase();
    const version = (text: string) => ({
      model_provider: 'OPENAI',
      model_name: 'gpt-4o-mini',
      template_type: 'CHAT',
      template_format: 'MUSTACHE',
      template: { type: 'chat', messages: [{ role: 'user', content: text }] },
      invocation_parameters: { type: 'openai', openai: {} },
    });
    const ids: string[] = [];
    for (const text of ['first {{q}}', 'second {{q}}']) {
      const created = await page.request.post(`${server.url}/v1/prompts`, { data: { prompt: { name }, version: version(text) } });
      assert.equal(created.status(), 200, await created.text());
      ids.push(((await created.json()) as { data: { id: string } }).data.id);
    }
    const tagged = await page.request.post(`${server.url}/v1/prompt_versions/${encodeURIComponent(ids[0]!)}/tags`, {
      data: { name: 'production' },
    });
    assert.equal(tagged.status(), 204);

    await page.goto(`${server.url}/prompts/${encodeURIComponent(name)}`);
    const rows = page.getByTestId('prompt-version-row');
    // Newest first: version 2, then version 1 with its API-set tag.
    await rows.nth(1).getByText('production').waitFor();
    assert.equal(await rows.nth(0).getByText('production').count(), 0);

    // Moving "production" to version 2 from the page.
    await page.getByLabel('Add a tag to version 2').fill('production');
    await page.getByLabel('Add a tag to version 2').press('Enter');
    await rows.nth(0).getByText('production').waitFor();
    await eventually(async () => assert.equal(await rows.nth(1).getByText('production').count(), 0));
    const byTag = await page.request.get(`${server.url}/v1/prompts/${encodeURIComponent(name)}/tags/production`);
    assert.equal(((await byTag.json()) as { data: { id: string } }).data.id, ids[1]);

    await page.getByRole('button', { name: 'Remove tag production from version 2' }).click();
    await eventually(async () => assert.equal(await page.getByText('production', { exact: true }).count(), 0));
    const gone = await page.request.get(`${server.url}/v1/prompts/${encodeURIComponent(name)}/tags/production`);
    assert.equal(gone.status(), 404);

    // A version's details, and what changed between the two.
    await rows.nth(0).getByRole('button', { name: 'Details' }).click();
    assert.match((await page.getByTestId('version-details').innerText()) ?? '', /"invocation_parameters"/);
    await page.getByLabel('Pick version 1 for a diff').check();
    await page.getByText('Pick one more version to see what changed.').waitFor();
    await page.getByLabel('Pick version 2 for a diff').check();
    const diff = page.getByTestId('version-diff');
    await diff.getByText('version 1 → version 2').waitFor();
    assert.equal(await diff.locator('[data-change="removed"]').innerText(), '- first {{q}}');
    assert.equal(await diff.locator('[data-change="added"]').innerText(), '+ second {{q}}');
  });
});
