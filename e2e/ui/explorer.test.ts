/**
 * The trace explorer in Debian's Chromium: an API key made on the settings page sends traces
 * through a real OTLP exporter, and the traces show up in the projects list, the traces and spans
 * tables, the trace view (span tree, timeline, readable span sections) and the overview charts.
 * Runs at the root and under SERVICE_HOST_ROOT_PATH.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import { unique } from '../../packages/server/test/helpers/auth.js';
import { exportSampleTrace, makeExporter } from '../../packages/server/test/helpers/otel.js';
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
import { seedTraces } from './seed.js';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

/** Waits until the grid shows the answer of its current query (not the previous one's rows). */
async function settled(page: Page, name: string) {
  await page.getByRole('grid', { name }).and(page.locator('[aria-busy=false]')).waitFor();
}

const clipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

/**
 * Clicks a column's sort button and waits until its header shows `direction`: each click toggles from the
 * sort the header last rendered, so the next click must not come before this one has rendered.
 */
async function sortBy(page: Page, grid: Locator, column: string, direction: 'ascending' | 'descending') {
  await page.getByRole('button', { name: `Sort by ${column}` }).click();
  const header = grid.getByRole('columnheader', { name: new RegExp(column) });
  await eventually(async () => assert.equal(await header.getAttribute('aria-sort'), direction, `${column} sort`));
}

/** Picks a time range in the explorer's range selector. */
async function chooseRange(page: Page, label: string) {
  await page.getByRole('combobox', { name: 'Time range' }).click();
  await page.getByRole('option', { name: label }).click();
}

for (const rootPath of SECTION_ROOT_PATHS) {
  describe(`UI: trace explorer [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let opened: OpenedPage;
    let apiKey = '';
    const project = unique('ui-project');
    const label = unique('checkout');
    let traceId = '';
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

    test('an API key created on the settings page is shown once with a copy button', async () => {
      const { page } = opened;
      await page.getByRole('link', { name: 'Settings' }).first().click();
      await page.getByRole('tab', { name: 'My API keys' }).click();
      await page.getByRole('button', { name: 'New API key' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^Name/).fill('ui tracing key');
      await dialog.getByLabel(/^Description/).fill('sends the test traces');
      await dialog.getByRole('combobox', { name: /^Expires/ }).click();
      await page.getByRole('option', { name: '30 days' }).click();
      await dialog.getByRole('button', { name: 'Create key' }).click();
      await dialog.getByText('This is the only time the key is shown').waitFor();
      apiKey = (await dialog.getByTestId('secret-value').innerText()).trim();
      assert.match(apiKey, /^sk-sl-/);
      await dialog.getByRole('button', { name: 'Copy API key' }).click();
      assert.equal(await clipboard(page), apiKey, 'the copy button puts the key on the clipboard');
      await dialog.getByRole('button', { name: 'Done' }).click();
      const table = page.getByRole('table', { name: 'API keys' });
      await table.getByText('ui tracing key').waitFor();
      await table.getByText('sends the test traces').waitFor();
      assert.equal(await page.getByText(apiKey).count(), 0, 'the key is not shown again');
    });

    test('a key deleted after its confirmation stops working at once', async () => {
      const { page } = opened;
      await page.getByRole('button', { name: 'New API key' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^Name/).fill('short-lived key');
      await dialog.getByRole('button', { name: 'Create key' }).click();
      const key = (await dialog.getByTestId('secret-value').innerText()).trim();
      await dialog.getByRole('button', { name: 'Done' }).click();
      const before = await fetch(`${server.url}/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(before.status, 200);
      await page.getByRole('button', { name: 'Delete key short-lived key' }).click();
      await page.getByRole('dialog').getByText('Every client that uses this key is refused from now on.').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
      await page.getByRole('table', { name: 'API keys' }).getByText('short-lived key').waitFor({ state: 'detached' });
      const after = await fetch(`${server.url}/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(after.status, 401);
    });

    test('traces sent with that key by a real OTLP exporter appear in the projects list', async () => {
      const exporter = makeExporter('http-protobuf', server.url, server.grpcUrl, { authorization: `Bearer ${apiKey}` });
      const { spans } = await exportSampleTrace(exporter, { 'service.name': project }, label);
      traceId = spans[0]!.spanContext().traceId;
      // Recent traces too, for the tables, filters and charts.
      await seedTraces({ baseUrl: server.url, apiKey, project, traces: 24, hours: 6 });

      const { page } = opened;
      await page.getByRole('link', { name: 'Projects' }).first().click();
      // The sample trace is dated in the past: look at all time.
      await chooseRange(page, 'All time');
      const row = page.getByTestId(`project-row-${project}`);
      await row.waitFor();
      const spanCount = String(3 + 24 * 3 + (await toolSpans(server, apiKey, project)));
      // The row may first show the previous range's figures: read until the all-time ones arrive.
      await eventually(async () => {
        const cells = await row.getByRole('cell').allInnerTexts();
        assert.equal(cells[1], '25', 'traces');
        assert.equal(cells[2], spanCount, 'spans');
        assert.match(cells[6]!, /\d/, 'token total');
      });
    });

    test('the project traces table lists the trace, and the keyboard opens it', async () => {
      const { page } = opened;
      await page.getByRole('link', { name: project }).click();
      await waitForPath(page, server, /^\/projects\/[^/]+\/traces$/);
      const grid = page.getByRole('grid', { name: 'Traces' });
      await grid.getByTestId('table-row').first().waitFor();
      // Sort by latency, longest first, then back by start time, oldest first: the sample trace (a year ago) comes first.
      await sortBy(page, grid, 'Latency', 'descending');
      await sortBy(page, grid, 'Start time', 'descending');
      await sortBy(page, grid, 'Start time', 'ascending');
      const url = new URL(page.url());
      assert.equal(url.searchParams.get('sort'), 'start_time');
      assert.equal(url.searchParams.get('order'), 'asc');
      const first = grid.getByTestId('table-row').first();
      await first.getByText(`${label} agent`).waitFor();
      await grid.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await waitForPath(page, server, new RegExp(`/traces/${traceId}$`));
    });

    test('the trace view shows the span tree, the timeline and readable span sections', async () => {
      const { page } = opened;
      const tree = page.getByRole('tree', { name: 'Span tree' });
      await tree.getByRole('treeitem').first().waitFor();
      const items = tree.getByRole('treeitem');
      assert.equal(await items.count(), 3);
      assert.equal(await tree.getByRole('treeitem', { name: `${label} agent` }).getAttribute('aria-level'), '1');
      assert.equal(await tree.getByRole('treeitem', { name: `${label} llm` }).getAttribute('aria-level'), '2');
      assert.equal(await tree.getByRole('treeitem', { name: `${label} tool` }).getAttribute('aria-level'), '2');

      // The root span is selected first; its input is shown.
      const details = page.getByTestId('span-details');
      await details.getByRole('heading', { name: `${label} agent` }).waitFor();
      await details.getByText('What is the weather?').first().waitFor();

      // The LLM span: model, token counts and messages.
      await tree.getByRole('treeitem', { name: `${label} llm` }).click();
      await details.getByRole('heading', { name: `${label} llm` }).waitFor();
      await details.getByText('gpt-4o-mini').waitFor();
      assert.equal(await details.getByTestId('tokens-prompt').innerText(), '120');
      assert.equal(await details.getByTestId('tokens-completion').innerText(), '30');
      assert.equal(await details.getByTestId('tokens-total').innerText(), '150');
      await details.getByText('Input messages').waitFor();
      await details.getByTestId('chat-message').getByText('What is the weather? 🌦 ünïcödé').waitFor();
      await details.getByRole('tab', { name: /Events/ }).click();
      await details.getByTestId('span-event').getByText('first token').waitFor();
      await details.getByRole('tab', { name: /Attributes/ }).click();
      await details.getByText('llm.invocation_parameters').waitFor();

      // Keyboard: the tool span is next; it failed, with an exception event.
      await tree.focus();
      await page.keyboard.press('ArrowDown');
      await details.getByRole('heading', { name: `${label} tool` }).waitFor();
      await details.getByRole('tab', { name: 'Info' }).click();
      await details.getByTestId('span-error').getByText('tool failed').waitFor();
      await details.getByText('Error: boom').first().waitFor();
      assert.match(new URL(page.url()).search, /span=[0-9a-f]{16}/, 'the selected span is in the URL');

      // Copy the trace id.
      await page.getByRole('button', { name: 'Copy trace id' }).first().click();
      assert.equal(await clipboard(page), traceId);
    });

    test('the spans table filters by kind, status, name and attribute', async () => {
      const { page } = opened;
      await page.getByRole('link', { name: project }).click();
      await page.getByRole('tab', { name: 'Spans' }).click();
      const grid = page.getByRole('grid', { name: 'Spans' });
      await grid.getByTestId('table-row').first().waitFor();

      // The kind is the third cell, after the selection box and the status.
      const kinds = async () => [...new Set(await grid.locator('[role=gridcell]:nth-child(3)').allInnerTexts())];
      await page.getByRole('combobox', { name: /^Span kind/ }).click();
      await page.getByRole('option', { name: 'LLM', exact: true }).click();
      await page.keyboard.press('Escape');
      await page.waitForURL((url) => url.searchParams.get('kind') === 'LLM');
      await eventually(async () => assert.deepEqual(await kinds(), ['LLM']));

      await page.getByRole('combobox', { name: /^Attribute/ }).fill('llm.model_name:gpt-4o-mini');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.searchParams.get('attr') === 'llm.model_name:gpt-4o-mini');
      await settled(page, 'Spans');
      await grid.getByText(`${label} llm`).waitFor();
      await eventually(async () =>
        assert.equal(await grid.getByTestId('table-row').count(), await llmSpans(server, apiKey, project, 'gpt-4o-mini')),
      );
      await page.getByRole('button', { name: 'Clear filters' }).click();

      await page.getByRole('search', { name: 'Span filters' }).getByText('Error', { exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('status') === 'ERROR');
      await settled(page, 'Spans');
      await grid.getByText(`${label} tool`).waitFor();
      await eventually(async () => assert.equal(await grid.getByText('ChatCompletion').count(), 0, 'only failed spans'));

      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.getByRole('combobox', { name: /^Name/ }).fill(`${label} agent`);
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.searchParams.get('name') === `${label} agent`);
      await settled(page, 'Spans');
      await grid.getByText(`${label} agent`).waitFor();
      await eventually(async () => assert.equal(await grid.getByTestId('table-row').count(), 1));
      await grid.getByTestId('table-row').click();
      await waitForPath(page, server, new RegExp(`/traces/${traceId}$`));
    });

    test('the overview dashboard charts volume, errors, latency, tokens by model and cost over the range', async () => {
      const { page } = opened;
      await page.getByRole('link', { name: project }).click();
      await page.getByRole('tab', { name: 'Overview' }).click();
      await chooseRange(page, 'Last 24 hours');
      const charts = page.getByTestId('overview-charts');
      // The project's default dashboard (docs/dashboards.md): its charts, then its tables.
      for (const chart of ['widget-spans', 'widget-errors', 'widget-latency-p50', 'widget-latency-p95', 'widget-tokens', 'widget-cost']) {
        await charts.getByTestId(chart).locator('svg.recharts-surface').first().waitFor();
      }
      await charts.getByRole('table', { name: 'Top span names' }).waitFor();
      const models = await page.getByRole('table', { name: 'Tokens by model' }).innerText();
      assert.match(models, /gpt-4o|claude-3-5-sonnet/);
      // The header keeps the previous range's figures until the new summary arrives.
      await eventually(async () =>
        assert.equal(
          await page.getByTestId('stat-Traces').innerText(),
          '24',
          'the sample trace from a year ago is outside the last 24 hours',
        ),
      );
      assertAllUnderRoot(opened.requests, server);
    });
  });
}

/** TOOL spans among the seeded traces (each seeded trace has 3 spans, plus a tool call in some). */
async function toolSpans(server: TestServer, apiKey: string, project: string): Promise<number> {
  const response = await fetch(
    `${server.url}/v1/projects/${encodeURIComponent(project)}/spans?span_kind=TOOL&name=lookup_order&limit=1000`,
    {
      headers: { authorization: `Bearer ${apiKey}` },
    },
  );
  const body = (await response.json()) as { data: unknown[] };
  return body.data.length;
}

/** LLM spans of a model in the project (to compare the table with the API). */
async function llmSpans(server: TestServer, apiKey: string, project: string, model: string): Promise<number> {
  const response = await fetch(
    `${server.url}/v1/projects/${encodeURIComponent(project)}/spans?span_kind=LLM&attribute=${encodeURIComponent(`llm.model_name:${model}`)}&limit=1000`,
    { headers: { authorization: `Bearer ${apiKey}` } },
  );
  const body = (await response.json()) as { data: unknown[] };
  return body.data.length;
}
