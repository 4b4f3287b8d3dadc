/**
 * The alert pages in Debian's Chromium (docs/alerts.md): at 1440 px a rule is created from the
 * project's Alerts tab with a webhook channel, fires when error spans arrive (the list and a real
 * loopback receiver see it), and its page shows the history, sends a test notification, mutes,
 * pauses and deletes it. At 390 px a look at the list, the form and the rule page.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import { newTraceId, request, sendSpans } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { eventually, launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
let receiver: http.Server;
const posts: { path: string; body: { kind: string; rule: { name: string } } }[] = [];
let hookBase = '';

before(async () => {
  receiver = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    req.on('end', () => {
      posts.push({ path: req.url ?? '', body: JSON.parse(text) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  hookBase = `http://127.0.0.1:${port}`;
  browser = await launchChromium();
  server = await startTestServer('sqlite', {
    SERVICE_ALERT_CHECK_INTERVAL_SECONDS: '1',
    SERVICE_ALERT_WEBHOOK_HOSTS: `127.0.0.1:${port}`,
  });
});
after(async () => {
  await server?.close();
  await browser?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

const fitsTheScreen = async (page: Page, width: number) => {
  const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
};

const spans = (count: number, status: 'OK' | 'ERROR') =>
  Array.from({ length: count }, () => ({ traceId: newTraceId(), start: BigInt(Date.now()) * 1_000_000n, status }));

describe('UI: alerts at 1440 px', () => {
  const viewport = { width: 1440, height: 900 };
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  const project = unique('alerts-ui');
  const rule = unique('errors');
  before(async () => {
    opened = await openPage(browser, { viewport });
    await sendSpans(server.url, project, spans(1, 'OK'), { 'x-project-name': project });
  });
  after(async () => {
    await opened?.close();
  });

  test('a rule is created on the Alerts tab and fires when errors arrive', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects/${project}/alerts`);
    await page.getByText('No alert rule yet').waitFor();
    await page.getByRole('button', { name: 'New alert rule' }).click();
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel(/^Name/).fill(rule);
    await form.getByLabel(/^Threshold/).fill('0.5');
    await form.getByLabel(/^Over the last/).fill('1');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await form.getByLabel('Webhook URL').fill(`${hookBase}/ui`);
    await fitsTheScreen(page, viewport.width);
    await form.getByRole('button', { name: 'Create rule' }).click();
    const row = page.getByTestId('alert-rule').filter({ hasText: rule });
    await row.getByText('Error rate > 0.5 over 1 min').waitFor();
    await row.getByTestId('alert-state').getByText('ok').waitFor();

    await sendSpans(server.url, project, spans(5, 'ERROR'), { 'x-project-name': project });
    await row.getByTestId('alert-state').getByText('firing').waitFor({ timeout: 15_000 });
    await eventually(async () => {
      assert.ok(posts.some((post) => post.path === '/ui' && post.body.kind === 'firing' && post.body.rule.name === rule));
    });
    await fitsTheScreen(page, viewport.width);
  });

  test('its page shows the history, sends a test notification, mutes, pauses and deletes it', async () => {
    const { page } = opened;
    await page.getByRole('link', { name: rule }).click();
    await page.getByRole('heading', { name: rule }).waitFor();
    await page.getByTestId('alert-event').getByText('firing').waitFor();
    await page.getByRole('button', { name: 'Send test notification' }).click();
    await page
      .getByTestId('test-result')
      .getByText(/: sent$/)
      .waitFor();
    assert.ok(posts.some((post) => post.path === '/ui' && post.body.kind === 'test'));
    await page.getByRole('button', { name: 'Mute 1h' }).click();
    await page.getByRole('button', { name: 'Unmute' }).waitFor();
    await page.getByText('muted', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await page.getByTestId('alert-state').getByText('paused').waitFor();
    await fitsTheScreen(page, viewport.width);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByText('No alert rule yet').waitFor();
  });
});

describe('UI: alerts at 390 px', () => {
  const viewport = { width: 390, height: 844 };
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  const project = unique('alerts-phone');
  before(async () => {
    opened = await openPage(browser, { viewport });
    await sendSpans(server.url, project, spans(1, 'OK'), { 'x-project-name': project });
  });
  after(async () => {
    await opened?.close();
  });

  test('the list, the new-rule form and a rule page fit the screen', async () => {
    const { page } = opened;
    const created = await request(server.url, 'POST', `/v1/projects/${project}/alert_rules`, {
      name: 'slow answers',
      metric: 'latency_p95',
      comparator: '>',
      threshold: 2000,
      window_seconds: 3600,
      filter: "span_kind == 'LLM'",
      channels: [{ type: 'webhook', url: `${hookBase}/phone`, format: 'slack' }],
    });
    assert.equal(created.status, 200, created.text);
    await page.goto(`${server.url}/projects/${project}/alerts`);
    await page.getByTestId('alert-rule').getByText('Latency p95 > 2000 over 1 h').waitFor();
    await fitsTheScreen(page, viewport.width);
    await page.getByRole('button', { name: 'New alert rule' }).click();
    await page.getByRole('form', { name: 'New alert rule' }).getByRole('button', { name: 'Add email' }).waitFor();
    await fitsTheScreen(page, viewport.width);
    await page.goto(`${server.url}/projects/${project}/alerts/${created.body.data.id}`);
    await page.getByRole('heading', { name: 'slow answers' }).waitFor();
    await page.getByText('It has not fired yet.').waitFor();
    await fitsTheScreen(page, viewport.width);
  });
});
