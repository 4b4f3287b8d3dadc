/**
 * Tabs a user can tell apart and counts that read as English, in Debian's Chromium: every page
 * names its subject in the browser tab's title, and one of something is singular ("1 span", not
 * "1 spans"), as the issue "What a demanding user hits" found them.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { newTraceId, request, sendSpans } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
let projectId: string;
const traceId = newTraceId();
before(async () => {
  browser = await launchChromium();
  server = await startTestServer('sqlite', { SERVICE_LOG_LEVEL: 'warn' });
  await sendSpans(server.url, 'one-of-each', [
    {
      traceId,
      name: 'answer-question',
      kind: 'CHAIN',
      start: BigInt(Date.now() - 30_000) * 1_000_000n,
      attributes: { 'session.id': 'conversation-1', 'input.value': 'hello', 'output.value': 'hi' },
    },
  ]);
  const projects = await request(server.url, 'GET', '/v1/projects');
  projectId = (projects.body.data as { id: string; name: string }[]).find((project) => project.name === 'one-of-each')!.id;
});
after(async () => {
  await server?.close();
  await browser?.close();
});

describe('UI: tab titles and counts', () => {
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  before(async () => {
    opened = await openPage(browser);
  });
  after(async () => {
    await opened?.close();
  });

  /** Waits for the tab's title (pages set it once their data is in). */
  const titled = async (title: string) => {
    await opened.page.waitForFunction(`document.title === ${JSON.stringify(title)}`, undefined, { timeout: 10_000 }).catch(() => {});
    assert.equal(await opened.page.title(), title);
  };

  test('each page names its subject in the tab title', async () => {
    const { page } = opened;
    for (const [path, title] of [
      ['/projects', 'Projects · Sightline'],
      ['/datasets', 'Datasets · Sightline'],
      ['/prompts', 'Prompts · Sightline'],
      ['/evaluators', 'Evaluators · Sightline'],
      ['/playground', 'Playground · Sightline'],
      ['/settings', 'Settings · Sightline'],
      [`/projects/${projectId}/traces`, 'one-of-each · Sightline'],
      [`/projects/${projectId}/traces/${traceId}`, 'answer-question · Sightline'],
      [`/projects/${projectId}/sessions/conversation-1`, 'Session conversation-1 · Sightline'],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await titled(title);
    }
  });

  test('one trace, one span and one session are counted in the singular', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects/${projectId}/traces`);
    await page.getByText(/^1 trace · /).waitFor();
    await page.goto(`${server.url}/projects/${projectId}/spans`);
    await page.getByText(/^1 span · /).waitFor();
    await page.goto(`${server.url}/projects/${projectId}/sessions`);
    await page.getByText(/^1 session, newest first/).waitFor();
    assert.equal(await page.getByText(/\b1 (spans|sessions|traces)\b/).count(), 0);
  });
});
