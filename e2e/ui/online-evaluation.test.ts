/**
 * The online evaluation pages in Debian's Chromium (docs/online-evaluation.md): a rule is created
 * from a project's Online evaluation tab, spans sent afterwards are evaluated by the job, and the
 * rule's page shows the figures, pauses and resumes it. At 1440 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import { newTraceId, request, sendSpans } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { eventually, launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
before(async () => {
  browser = await launchChromium();
  server = await startTestServer('sqlite');
});
after(async () => {
  await server?.close();
  await browser?.close();
});

const fitsTheScreen = async (page: Page, width: number) => {
  const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
};

const llmSpans = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    traceId: newTraceId(),
    start: BigInt(Date.now() - 10_000) * 1_000_000n,
    kind: 'LLM',
    attributes: { 'input.value': `question ${i}`, 'output.value': i % 3 === 0 ? '' : `answer ${i}` },
  }));

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`UI: online evaluation at ${viewport.width} px`, () => {
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);
    const project = unique('online-ui');
    const evaluator = unique('answered');
    const rule = unique('llm-answers');
    before(async () => {
      opened = await openPage(browser, { viewport });
      await sendSpans(server.url, project, llmSpans(1), { 'x-project-name': project });
      const created = await request(server.url, 'POST', '/v1/evaluators', { name: evaluator, definition: { type: 'not_empty' } });
      assert.equal(created.status, 200, created.text);
    });
    after(async () => {
      await opened?.close();
    });

    test('a rule is created on the project tab, and what arrives next is evaluated', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/projects/${project}/online-eval`);
      await page.getByText('No rule yet').waitFor();
      await page.getByRole('button', { name: 'New rule' }).click();
      const form = page.getByRole('form', { name: 'New rule' });
      await form.getByLabel(/^Name/).fill(rule);
      await form.getByText('Spans', { exact: true }).click();
      await form.getByLabel(/^Filter/).fill("span_kind == 'LLM'");
      await form.getByLabel(/^Sampling %/).fill('100');
      await form.getByLabel(/^Evaluators/).click();
      await page.getByRole('option', { name: new RegExp(evaluator) }).click();
      await page.keyboard.press('Escape');
      await fitsTheScreen(page, viewport.width);
      await form.getByRole('button', { name: 'Create rule' }).click();
      const row = page.getByTestId('online-rule').filter({ hasText: rule });
      await row.getByText('100.0%').waitFor();
      await row.getByText('on', { exact: true }).waitFor();
      await fitsTheScreen(page, viewport.width);

      await sendSpans(server.url, project, llmSpans(6), { 'x-project-name': project });
      await row.getByRole('link', { name: rule }).click();
      await page.getByRole('heading', { name: rule }).waitFor();
      await eventually(async () => {
        assert.equal(await page.getByTestId('stat-Evaluated').textContent(), '6');
      }, 15_000);
      assert.equal(await page.getByTestId('stat-Failed').textContent(), '0');
      await page.getByText('None.').waitFor();
      await fitsTheScreen(page, viewport.width);
    });

    test('the rule is paused from its page, evaluates nothing while paused, and resumes where it stopped', async () => {
      const { page } = opened;
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByText('paused', { exact: true }).waitFor();
      await sendSpans(server.url, project, llmSpans(3), { 'x-project-name': project });
      await page.waitForTimeout(1500);
      assert.equal(await page.getByTestId('stat-Evaluated').textContent(), '6');
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByText('on', { exact: true }).waitFor();
      await eventually(async () => {
        assert.equal(await page.getByTestId('stat-Evaluated').textContent(), '9');
      }, 15_000);
      // A refused action says why in a sentence.
      await page.getByLabel('Backfill hours').fill('500');
      await page.getByRole('button', { name: 'Backfill' }).click();
      await page
        .getByRole('alert')
        .getByText(/hours: must be <= 168/)
        .waitFor();
      await fitsTheScreen(page, viewport.width);
    });
  });
}
