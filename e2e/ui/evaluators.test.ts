/**
 * The evaluators pages in Debian's Chromium (docs/evaluators.md): a code check and an LLM judge
 * (from a ready template, the judge a stand-in speaking OpenAI's wire format) are tried on an
 * item and saved from /evaluators, an edit makes a second version, and the judge is attached to
 * a dataset on its Evaluators tab. At 1440 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_SECRET, unique } from '../../packages/server/test/helpers/auth.js';
import { request } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { STANDIN_JUDGE_KEY, startStandinJudge, type StandinJudge } from '../../packages/server/test/helpers/standin-judge.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
let judge: StandinJudge;
before(async () => {
  browser = await launchChromium();
  judge = await startStandinJudge();
  server = await startTestServer('sqlite', { SERVICE_SECRET: TEST_SECRET, SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true' });
  const stored = await request(server.url, 'PUT', '/v1/secrets', {
    secrets: [
      { key: 'OPENAI_API_KEY', value: STANDIN_JUDGE_KEY },
      { key: 'OPENAI_BASE_URL', value: judge.url },
    ],
  });
  assert.equal(stored.status, 200, stored.text);
});
after(async () => {
  await server?.close();
  await judge?.close();
  await browser?.close();
});

const fitsTheScreen = async (page: Page, width: number) => {
  const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
};

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`UI: evaluators at ${viewport.width} px`, () => {
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);
    const names = { code: unique('exact'), judge: unique('judge') };
    before(async () => {
      opened = await openPage(browser, { viewport });
    });
    after(async () => {
      await opened?.close();
    });

    test('a code check is tried on an item and saved', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/evaluators`);
      await page.getByRole('button', { name: 'New evaluator' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^Name/).fill(names.code);
      await dialog.getByLabel(/^Output/).fill('Paris');
      await dialog.getByLabel(/^Reference/).fill('Paris');
      await dialog.getByRole('button', { name: 'Try it' }).click();
      await dialog.getByTestId('try-result').getByText('match', { exact: true }).waitFor();
      await dialog.getByLabel(/^Reference/).fill('Lyon');
      await dialog.getByRole('button', { name: 'Try it' }).click();
      await dialog.getByTestId('try-result').getByText('no_match', { exact: true }).waitFor();
      await fitsTheScreen(page, viewport.width);
      await dialog.getByRole('button', { name: 'Save evaluator' }).click();
      const row = page.getByTestId('evaluator-row').filter({ hasText: names.code });
      await row.getByText('code: exact_match').waitFor();
      await row.getByText('v1').waitFor();
    });

    test('an LLM judge from a template shows its prompt and answer, and an edit is a new version', async () => {
      const { page } = opened;
      await page.getByRole('button', { name: 'New evaluator' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^Name/).fill(names.judge);
      await dialog.getByRole('combobox', { name: 'Start from' }).click();
      await page.getByRole('option', { name: 'LLM judge: Correctness against a reference' }).click();
      await dialog.getByLabel(/^Judge model/).fill('openai:judge-model');
      await dialog.getByLabel(/^Output/).fill('GOOD: the capital is Paris');
      await dialog.getByLabel(/^Reference/).fill('Paris');
      await dialog.getByRole('button', { name: 'Try it' }).click();
      const result = dialog.getByTestId('try-result');
      await result.getByText('correct', { exact: true }).waitFor();
      await result.getByText('Prompt sent and raw answer').click();
      await result.getByText(/Answer to judge:\s+GOOD: the capital is Paris/).waitFor();
      await result.getByText('{"label":"correct"', { exact: false }).waitFor();
      await fitsTheScreen(page, viewport.width);
      await dialog.getByRole('button', { name: 'Save evaluator' }).click();
      const row = page.getByTestId('evaluator-row').filter({ hasText: names.judge });
      await row.getByText('LLM judge').waitFor();

      await row.getByRole('button', { name: 'Edit' }).click();
      await page
        .getByRole('dialog')
        .getByLabel(/^Judge model/)
        .fill('openai:judge-model-2');
      await page.getByRole('dialog').getByRole('button', { name: /^Save/ }).click();
      await row.getByText('v2').waitFor();
      const saved = await request(server.url, 'GET', `/v1/evaluators/${encodeURIComponent(names.judge)}`);
      assert.equal(saved.body.data.definition.model, 'openai:judge-model-2');
    });

    test("the judge is attached to a dataset on the dataset's Evaluators tab", async () => {
      const { page } = opened;
      const upload = await request(server.url, 'POST', '/v1/datasets/upload', {
        action: 'create',
        name: unique('capitals'),
        inputs: [{ q: 'x' }],
      });
      assert.equal(upload.status, 200, upload.text);
      await page.goto(`${server.url}/datasets/${upload.body.data.dataset_id}/evaluators`);
      await page.getByText('No evaluator attached').waitFor();
      await page.getByRole('combobox', { name: 'Attach an evaluator' }).click();
      await page.getByRole('option', { name: names.judge }).click();
      await page.getByRole('button', { name: 'Attach', exact: true }).click();
      await page.getByTestId('attached-evaluator').filter({ hasText: names.judge }).waitFor();
      await fitsTheScreen(page, viewport.width);
      const attached = await request(server.url, 'GET', `/v1/datasets/${upload.body.data.dataset_id}/evaluators`);
      assert.deepEqual(
        attached.body.data.map((evaluator: { name: string }) => evaluator.name),
        [names.judge],
      );
    });
  });
}
