/**
 * The datasets pages in Debian's Chromium: a dataset uploaded (then appended to) through the
 * API shows in the datasets list with its example count; its examples page shows the examples
 * as readable JSON a page at a time (by cursor), and picking the first version shows exactly what that version held; an LLM
 * span becomes an example of a new dataset through "Add to dataset" in the trace view.
 * Runs at the root and under SERVICE_HOST_ROOT_PATH.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
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

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

for (const rootPath of SECTION_ROOT_PATHS) {
  describe(`UI: datasets [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let opened: OpenedPage;
    const name = unique('ui-dataset');
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

    test('lists a dataset, shows its examples, and reads the first version back unchanged', async () => {
      const { page } = opened;
      // The page's session cookie authorizes these calls, as the UI's own.
      const upload = async (body: Record<string, unknown>) => {
        const response = await page.request.post(`${server.url}/v1/datasets/upload`, { data: body });
        assert.equal(response.status(), 200, await response.text());
      };
      await upload({
        action: 'create',
        name,
        description: 'questions for the UI test',
        inputs: [{ question: 'What is the capital of France?' }, { question: 'What is 2 + 2?' }],
        outputs: [{ answer: 'Paris' }, { answer: '4' }],
      });
      await upload({ action: 'append', name, inputs: [{ question: 'Who wrote Hamlet?' }], outputs: [{ answer: 'Shakespeare' }] });

      await page.getByRole('link', { name: 'Datasets' }).first().click();
      await waitForPath(page, server, '/datasets');
      const row = page.getByTestId('dataset-row').filter({ hasText: name });
      await row.waitFor();
      assert.match(await row.innerText(), /\b3\b/, 'the list shows 3 examples');
      assert.match(await row.innerText(), /questions for the UI test/);

      await row.getByRole('link', { name }).click();
      await waitForPath(page, server, /^\/datasets\/[^/]+\/examples$/);
      await page.getByRole('heading', { name }).waitFor();
      await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 3));
      const table = page.getByRole('table', { name: 'Examples' });
      await table.getByText('"Who wrote Hamlet?"').waitFor();
      await table.getByText('"Shakespeare"').waitFor();

      // The first version: what the create held, without the appended example.
      await page.getByRole('combobox', { name: 'Version' }).click();
      const options = page.getByRole('option');
      await eventually(async () => assert.equal(await options.count(), 2));
      await options.filter({ hasNotText: 'latest' }).click();
      await page.getByText('an older version').waitFor();
      await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 2));
      await table.getByText('"What is the capital of France?"').waitFor();
      assert.equal(await table.getByText('"Who wrote Hamlet?"').count(), 0, 'the appended example is not in the first version');
      assertAllUnderRoot(opened.requests, server);
    });

    test('pages through a dataset bigger than a page by cursor, never fetching it whole', async () => {
      const { page } = opened;
      const big = unique('ui-paged');
      const count = 120;
      const response = await page.request.post(`${server.url}/v1/datasets/upload`, {
        data: { action: 'create', name: big, inputs: Array.from({ length: count }, (_, index) => ({ n: index + 1 })) },
      });
      assert.equal(response.status(), 200, await response.text());
      const fetched: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/examples')) fetched.push(request.url());
      });
      await page.goto(`${server.url}/datasets`);
      await page.getByTestId('dataset-row').filter({ hasText: big }).getByRole('link', { name: big }).click();
      await waitForPath(page, server, /^\/datasets\/[^/]+\/examples$/);
      await page.getByText('Page 1 of 3').waitFor();
      await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 50));
      const table = page.getByRole('table', { name: 'Examples' });
      await table.getByText(/^\{\s*"n": 1\s*\}$/).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('Page 2 of 3').waitFor();
      await table.getByText(/^\{\s*"n": 51\s*\}$/).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('Page 3 of 3').waitFor();
      await eventually(async () => assert.equal(await page.getByTestId('example-row').count(), 20));
      assert.ok(await page.getByRole('button', { name: 'Next' }).isDisabled(), 'no page after the last');
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.getByText('Page 2 of 3').waitFor();
      assert.ok(
        fetched.length > 0 && fetched.every((url) => /[?&]limit=50\b/.test(url)),
        `every examples request asks for a page: ${fetched.join(', ')}`,
      );
      assertAllUnderRoot(opened.requests, server);
    });

    test('adds an LLM span to a new dataset from the trace view, then opens the dataset', async () => {
      const { page } = opened;
      const traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      const start = BigInt(Date.now()) * 1_000_000n;
      const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
      const exported = await page.request.post(`${server.url}/v1/traces`, {
        headers: { 'x-project-name': 'ui-datasets' },
        data: {
          resourceSpans: [
            {
              resource: { attributes: [] },
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId,
                      spanId,
                      name: 'ChatCompletion',
                      kind: 3,
                      startTimeUnixNano: String(start),
                      endTimeUnixNano: String(start + 500_000_000n),
                      attributes: [
                        attribute('openinference.span.kind', 'LLM'),
                        attribute('input.value', JSON.stringify({ question: 'What is the tallest mountain?' })),
                        attribute('output.value', 'Mount Everest'),
                        attribute('llm.model_name', 'gpt-4o-mini'),
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      });
      assert.equal(exported.status(), 200, await exported.text());
      const projects = (await (await page.request.get(`${server.url}/v1/projects`)).json()).data as { id: string; name: string }[];
      const project = projects.find((candidate) => candidate.name === 'ui-datasets')!;
      await page.goto(`${server.url}/projects/${encodeURIComponent(project.id)}/traces/${traceId}?span=${spanId}`);
      await page.getByTestId('span-details').waitFor();
      await page.getByRole('button', { name: 'Add to dataset' }).click();
      const dialog = page.getByRole('dialog');
      const target = unique('from-spans');
      await dialog.getByRole('combobox', { name: 'Dataset' }).fill(target);
      await dialog.getByRole('button', { name: 'Add example' }).click();
      await page.getByRole('link', { name: `Open ${target}` }).click();
      await waitForPath(page, server, /^\/datasets\/[^/]+\/examples$/);
      await page.getByRole('heading', { name: target }).waitFor();
      const table = page.getByRole('table', { name: 'Examples' });
      await table.getByText('"What is the tallest mountain?"').waitFor();
      await table.getByText('"Mount Everest"').waitFor();
      await table.getByText('"gpt-4o-mini"').waitFor();
      const examples = (await (await page.request.get(`${server.url}/v1/datasets/${encodeURIComponent(target)}/examples`)).json()).data
        .examples;
      assert.equal(examples[0].source.span_id, spanId, 'the example records its source span');
    });
  });
}
