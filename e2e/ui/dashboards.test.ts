/**
 * Dashboards in Debian's Chromium (docs/dashboards.md): at 1440 px the Overview tab shows the
 * project's default dashboard with the figures of its spans; a widget added with a filter and one
 * deleted are stored for the next visit; a cross-project dashboard is created on the Dashboards
 * page. At 390 px a look: the widgets stack and nothing is wider than the screen.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import { getOk, newTraceId, sendSpans, type QuerySpan } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { eventually, launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
const project = unique('dash-ui');

before(async () => {
  browser = await launchChromium();
  server = await startTestServer('sqlite');
  const now = Date.now();
  // 12 spans in the last hour: 8 "answer" LLM spans of gpt-4o (3 of them fail), 4 "lookup" tool spans.
  await sendSpans(
    server.url,
    project,
    Array.from(
      { length: 12 },
      (_, i): QuerySpan => ({
        traceId: newTraceId(),
        name: i < 8 ? 'answer' : 'lookup',
        kind: i < 8 ? 'LLM' : 'TOOL',
        start: BigInt(now - (i + 1) * 60_000) * 1_000_000n,
        duration: BigInt((i + 1) * 20) * 1_000_000n,
        status: i < 3 ? 'ERROR' : 'OK',
        attributes: i < 8 ? { 'llm.model_name': 'gpt-4o', 'llm.token_count.total': 100 } : {},
      }),
    ),
  );
});
after(async () => {
  await server?.close();
  await browser?.close();
});

const fitsTheScreen = async (page: Page, width: number) => {
  const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
};

describe('UI: dashboards at 1440 px', () => {
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  before(async () => {
    opened = await openPage(browser, { viewport: { width: 1440, height: 900 } });
  });
  after(async () => {
    await opened?.close();
  });

  test("the Overview tab shows the project's default dashboard", async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects/${project}/overview?range=24h`);
    const dashboard = page.getByTestId('dashboard');
    for (const chart of ['widget-spans', 'widget-errors', 'widget-latency-p50', 'widget-latency-p95', 'widget-tokens', 'widget-cost']) {
      await dashboard.getByTestId(chart).locator('svg.recharts-surface').first().waitFor();
    }
    const names = page.getByRole('table', { name: 'Top span names' });
    await eventually(async () => assert.match(await names.innerText(), /answer\s+8[\s\S]*lookup\s+4/));
    assert.match(await page.getByRole('table', { name: 'Tokens by model' }).innerText(), /gpt-4o\s+800/);
  });

  test('a widget is added with a filter and one deleted, and both stay', async () => {
    const { page } = opened;
    await page.getByRole('button', { name: 'Add widget' }).click();
    const form = page.getByRole('dialog', { name: 'Add widget' });
    await form.getByLabel('Title').fill('Failed answers');
    await form.getByLabel('Chart', { exact: true }).click();
    await page.getByRole('option', { name: 'Single number' }).click();
    await form.getByLabel('Filter').fill("name == 'answer' and status_code == 'ERROR'");
    await form.getByRole('button', { name: 'Add widget' }).click();
    await form.waitFor({ state: 'hidden' });
    await eventually(async () => assert.equal(await page.getByTestId('widget-number').innerText(), '3'));
    await page.getByRole('button', { name: 'Delete widget Latency p50 (ms)' }).click();
    await eventually(async () => assert.equal(await page.getByTestId('widget-latency-p50').count(), 0));
    // Stored as the project's default: a new visit sees the same widgets.
    const stored = (await getOk(server.url, `/v1/projects/${project}/default_dashboard`)).data;
    assert.ok(stored.id !== null);
    assert.deepEqual(
      stored.widgets.map((widget: { title: string }) => widget.title).filter((title: string) => /Failed|p50/.test(title)),
      ['Failed answers'],
    );
    await page.reload();
    await eventually(async () => assert.equal(await page.getByTestId('widget-number').innerText(), '3'));
  });

  test('a dashboard across projects is created on the Dashboards page', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/dashboards?range=24h`);
    await page.getByText('No dashboard across projects yet').waitFor();
    await page.getByLabel('New dashboard').fill('Everything');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('widget-spans').locator('svg.recharts-surface').first().waitFor();
    await eventually(async () => assert.match(await page.getByRole('table', { name: 'Tokens by model' }).innerText(), /gpt-4o\s+800/));
  });
});

describe('UI: dashboards at 390 px', () => {
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  before(async () => {
    opened = await openPage(browser, { viewport: { width: 390, height: 844 } });
  });
  after(async () => {
    await opened?.close();
  });

  test('the widgets stack and fit a phone', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects/${project}/overview?range=24h`);
    await page.getByTestId('widget-spans').locator('svg.recharts-surface').first().waitFor();
    const spans = await page.getByTestId('widget-spans').boundingBox();
    const errors = await page.getByTestId('widget-errors').boundingBox();
    assert.ok(spans && errors && errors.y > spans.y + spans.height - 1, 'the second widget is below the first');
    await fitsTheScreen(page, 390);
  });
});
