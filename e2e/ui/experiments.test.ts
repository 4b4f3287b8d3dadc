/**
 * The evaluation loop in Debian's Chromium: LLM spans picked in the spans table become a new
 * dataset ("Add to dataset" on a selection), two experiments run on it from a script (the real
 * runExperiment of @arizeai/phoenix-client, with a user API key), and the experiments list and
 * the comparison page show both experiments' scores side by side, with links to each run's
 * trace. Runs at the root and under SERVICE_HOST_ROOT_PATH.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { createClient } from '@arizeai/phoenix-client';
import { asExperimentEvaluator, runExperiment } from '@arizeai/phoenix-client/experiments';
import type { Browser } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import {
  SECTION_ROOT_PATHS,
  assertAllUnderRoot,
  eventually,
  firstAdminLogin,
  launchChromium,
  openPage,
  startAuthServer,
  uiTest,
  waitForPath,
  type OpenedPage,
} from './harness.js';

process.env.PHOENIX_DISCOVER_CONFIG = 'false';
const silent = { debug() {}, info() {}, log() {}, warn() {}, error() {}, table() {} };
const QUESTIONS = ['What is the capital of France?', 'What is 2 + 2?', 'Who wrote Hamlet?'];
const ANSWERS = ['Paris', '4', 'Shakespeare'];

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

for (const rootPath of SECTION_ROOT_PATHS) {
  describe(`UI: experiments [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);

    before(async () => {
      server = await startAuthServer(rootPath);
      opened = await openPage(browser);
      await firstAdminLogin(opened.page, server.url);
    });
    after(async () => {
      await opened?.close();
      await server?.close();
    });

    test('spans become a dataset, two experiments run from a script, and the comparison shows both', async () => {
      const { page } = opened;
      const project = unique('ui-experiments');
      const start = BigInt(Date.now()) * 1_000_000n;
      const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
      const exported = await page.request.post(`${server.url}/v1/traces`, {
        headers: { 'x-project-name': project },
        data: {
          resourceSpans: [
            {
              resource: { attributes: [] },
              scopeSpans: [
                {
                  spans: QUESTIONS.map((question, index) => ({
                    traceId: randomBytes(16).toString('hex'),
                    spanId: randomBytes(8).toString('hex'),
                    name: 'ChatCompletion',
                    kind: 3,
                    startTimeUnixNano: String(start + BigInt(index) * 1_000_000n),
                    endTimeUnixNano: String(start + BigInt(index) * 1_000_000n + 400_000_000n),
                    attributes: [
                      attribute('openinference.span.kind', 'LLM'),
                      attribute('input.value', JSON.stringify({ question })),
                      attribute('output.value', JSON.stringify({ answer: ANSWERS[index] })),
                    ],
                  })),
                },
              ],
            },
          ],
        },
      });
      assert.equal(exported.status(), 200, await exported.text());

      // Select the three spans in the spans table and add them to a new dataset at once.
      await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/spans`);
      const boxes = page.getByRole('checkbox', { name: /^Select span/ });
      await eventually(async () => assert.equal(await boxes.count(), 3));
      for (let index = 0; index < 3; index++) await boxes.nth(index).check();
      await page.getByText('3 selected').waitFor();
      assert.match(page.url(), /\/spans/, 'ticking a box does not open the trace');
      await page.getByRole('button', { name: 'Add 3 spans to dataset' }).click();
      const dialog = page.getByRole('dialog');
      const dataset = unique('ui-eval');
      await dialog.getByRole('combobox', { name: 'Dataset' }).fill(dataset);
      await dialog.getByRole('button', { name: 'Add 3 examples' }).click();
      await page.getByRole('link', { name: `Open ${dataset}` }).click();
      await waitForPath(page, server, /^\/datasets\/[^/]+\/examples$/);
      await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 3));

      // Two experiments from a script, with a user key minted by the signed-in admin.
      const minted = await page.request.post(`${server.url}/v1/user/api_keys`, { data: { data: { name: 'experiments script' } } });
      assert.equal(minted.status(), 201, await minted.text());
      const key = (await minted.json()).data.key as string;
      const phoenix = createClient({ options: { baseUrl: server.url, headers: { Authorization: `Bearer ${key}` } } });
      const datasetId = (await (await page.request.get(`${server.url}/v1/datasets/${encodeURIComponent(dataset)}`)).json()).data
        .id as string;
      const exact = asExperimentEvaluator({
        name: 'exact',
        kind: 'CODE',
        evaluate: async ({ output, expected }) => {
          const ok = JSON.stringify(output) === JSON.stringify(expected);
          return { score: ok ? 1 : 0, label: ok ? 'match' : 'mismatch', explanation: null, metadata: {} };
        },
      });
      const run = (experimentName: string, task: (input: { question: string }) => { answer: string }) =>
        runExperiment({
          client: phoenix,
          dataset: { datasetId },
          experimentName,
          logger: silent,
          task: async (example) => task(example.input as { question: string }),
          evaluators: [exact],
        });
      const baseline = await run('baseline', () => ({ answer: 'I do not know' }));
      const improved = await run('improved', ({ question }) => ({ answer: ANSWERS[QUESTIONS.indexOf(question)]! }));

      // The experiments tab: both, with their mean scores.
      await page.getByRole('tab', { name: 'Experiments' }).click();
      await waitForPath(page, server, /^\/datasets\/[^/]+\/experiments$/);
      const rows = page.getByTestId('experiment-row');
      await eventually(async () => {
        await page.reload();
        await rows.first().waitFor();
        assert.equal(await rows.count(), 2);
        assert.equal(await rows.filter({ hasText: 'improved' }).getByTestId('mean-exact').innerText(), '1');
      });
      assert.equal(await rows.filter({ hasText: 'baseline' }).getByTestId('mean-exact').innerText(), '0');

      // Compare them: the base first.
      await page.getByRole('checkbox', { name: 'Select baseline' }).check();
      await page.getByRole('checkbox', { name: 'Select improved' }).check();
      await page.getByRole('link', { name: 'Compare' }).click();
      await waitForPath(page, server, /^\/datasets\/[^/]+\/compare$/);
      const query = new URL(page.url()).searchParams.getAll('experimentId');
      assert.deepEqual(query, [baseline.id, improved.id]);
      const cards = page.getByTestId('compared-experiment');
      await eventually(async () => assert.equal(await cards.count(), 2));
      assert.equal(await cards.nth(0).getByTestId('mean-exact').innerText(), '0');
      assert.equal(await cards.nth(1).getByTestId('mean-exact').innerText(), '1');
      const comparison = page.getByTestId('comparison-row');
      await eventually(async () => assert.equal(await comparison.count(), 3));
      const hamlet = comparison.filter({ hasText: 'Who wrote Hamlet?' });
      await hamlet.getByText('"Shakespeare"').first().waitFor();
      await hamlet.getByText('"I do not know"').waitFor();
      assert.deepEqual(await hamlet.getByTestId('run-score').allInnerTexts(), ['exact: 0 (mismatch)', 'exact: 1 (match)']);
      // A failing and a passing score read apart: red and green, not one colour for both.
      const scores = hamlet.getByTestId('run-score');
      assert.deepEqual(await Promise.all([0, 1].map((index) => scores.nth(index).getAttribute('data-tone'))), ['fail', 'pass']);
      const colors = (await page.evaluate(
        `[...document.querySelectorAll('[data-testid="run-score"][data-tone]')].map((badge) => getComputedStyle(badge).color)`,
      )) as string[];
      assert.ok(new Set(colors).size > 1, `score badges in one colour: ${colors.join(', ')}`);

      // Every example improved on the base: +1 on each, none regressed.
      assert.deepEqual(await page.getByTestId('score-delta').allInnerTexts(), ['Δ exact +1', 'Δ exact +1', 'Δ exact +1']);
      await page.getByLabel('Examples shown').getByText('Regressed', { exact: true }).click();
      await eventually(async () => assert.equal(await comparison.count(), 0));
      assert.equal(new URL(page.url()).searchParams.get('filter'), 'regressed');
      await page.getByLabel('Examples shown').getByText('Improved', { exact: true }).click();
      await eventually(async () => assert.equal(await comparison.count(), 3));
      await page.getByLabel('Examples shown').getByText('All', { exact: true }).click();

      // Largest drop first: against "improved" as the base, "mixed" keeps the second answer and
      // loses the others, so the second example moves last; its long answers start collapsed.
      const longAnswer = 'I do not know, but here is a long guess. '.repeat(12).trim();
      const mixed = await run('mixed', ({ question }) => ({ answer: question === QUESTIONS[1] ? ANSWERS[1]! : longAnswer }));
      await page.goto(`${server.url}/datasets/${datasetId}/compare?experimentId=${improved.id}&experimentId=${mixed.id}`);
      await eventually(async () => assert.equal(await comparison.count(), 3));
      const questionOrder = async () =>
        (await comparison.allInnerTexts()).map((text) => QUESTIONS.findIndex((question) => text.includes(question)));
      // Examples keep the order they were added in; by delta, the two that dropped come first (in that order).
      const inOrder = await questionOrder();
      const exampleIds = await Promise.all([0, 1, 2].map((row) => comparison.nth(row).locator('p[title]').first().getAttribute('title')));
      const byDrop = [...inOrder.filter((question) => question !== 1), 1];
      assert.notDeepEqual(byDrop, inOrder, 'the sort has something to move');
      await page.getByLabel('Order of the examples').getByText('Largest drop first', { exact: true }).click();
      await eventually(async () => assert.deepEqual(await questionOrder(), byDrop));
      assert.equal(new URL(page.url()).searchParams.get('sort'), 'score_delta');
      const first = comparison.first();
      assert.equal(await first.getByText(longAnswer).count(), 0, 'a long output starts collapsed');
      await first.getByRole('button', { name: /^Show all/ }).click();
      await first.getByText(longAnswer, { exact: false }).waitFor();
      await first.getByRole('button', { name: 'Show less' }).waitFor();

      // Jump to an example by its id: the page starts at it, in example order.
      const lastId = exampleIds[2]!;
      await page.getByLabel('Go to example').fill(lastId);
      await page.getByRole('button', { name: 'Go', exact: true }).click();
      await eventually(async () => assert.equal(await comparison.count(), 1));
      assert.equal(await comparison.first().locator('p[title]').first().getAttribute('title'), lastId);
      assert.equal(new URL(page.url()).searchParams.get('sort'), null, 'back in example order');
      await page.getByLabel('Go to example').fill('not an id');
      await page.getByRole('button', { name: 'Go', exact: true }).click();
      await page.getByText(/invalid cursor/).waitFor();
      await page.getByRole('button', { name: 'Back to the first page' }).click();
      await eventually(async () => assert.equal(await comparison.count(), 3));

      // The link phoenix-client prints for one experiment opens the same page; a run links to its trace.
      await page.goto(`${server.url}/datasets/${datasetId}/compare?experimentId=${improved.id}`);
      await eventually(async () => assert.equal(await page.getByTestId('comparison-row').count(), 3));
      await eventually(async () => {
        await page.reload();
        await page.getByRole('link', { name: "Open the run's trace" }).first().waitFor({ timeout: 2000 });
      });
      await page.getByRole('link', { name: "Open the run's trace" }).first().click();
      await waitForPath(page, server, /^\/projects\/[^/]+\/traces\/[0-9a-f]{32}$/);
      await page
        .getByText(/^Task:/)
        .first()
        .waitFor();
      assertAllUnderRoot(opened.requests, server);
    });
  });
}
