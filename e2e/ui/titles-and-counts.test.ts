/**
 * Tabs a user can tell apart, counts that read as English, and a sessions table that means its
 * "newest first", in Debian's Chromium: every page names its subject in the browser tab's title,
 * one of something is singular ("1 span", not "1 spans"), and sessions are listed by when they
 * started, not by when ingest first saw them, as the issue "What a demanding user hits" found them.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { newTraceId, request, sendSpans } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { eventually, launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

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
    await eventually(async () => assert.equal(await opened.page.title(), title));
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

  test("a session's page shows its cost and its annotations, and names it once in its heading", async () => {
    const { page } = opened;
    const traceId = newTraceId();
    await sendSpans(server.url, 'costed-sessions', [
      {
        traceId,
        name: 'chat',
        kind: 'LLM',
        start: BigInt(Date.now() - 20_000) * 1_000_000n,
        attributes: {
          'session.id': 'costed-1',
          'llm.model_name': 'gpt-4o-mini',
          'llm.provider': 'openai',
          'llm.token_count.prompt': 1_000_000,
          'llm.token_count.completion': 1_000_000,
        },
      },
    ]);
    const annotated = await request(server.url, 'POST', '/v1/session_annotations', {
      data: [{ session_id: 'costed-1', name: 'goal', annotator_kind: 'LLM', result: { label: 'goal_reached', score: 1 } }],
    });
    assert.equal(annotated.status, 200, annotated.text);
    const projects = await request(server.url, 'GET', '/v1/projects');
    const costed = (projects.body.data as { id: string; name: string }[]).find((project) => project.name === 'costed-sessions')!.id;
    await page.goto(`${server.url}/projects/${costed}/sessions/costed-1`);
    const annotations = page.getByTestId('session-annotations');
    await annotations.getByText('goal', { exact: true }).waitFor();
    await annotations.getByText('goal_reached').waitFor();
    // gpt-4o-mini's built-in prices: 0.15 + 0.60 USD for a million tokens each way (the cost job runs every second).
    await eventually(async () => {
      await page.reload();
      assert.match(await page.getByTestId('session-cost').innerText(), /\$0\.75/);
    }, 20_000);
    assert.equal(await page.getByRole('heading', { level: 2 }).innerText(), 'Session costed-1');
    assert.equal(await page.getByText('costed-1', { exact: true }).count(), 1, 'the breadcrumb only, beside the heading');
  });

  test('the sessions table is newest first by start time, whatever order ingest saw them in', async () => {
    const { page } = opened;
    // Sent in this order; they started 40, 10 and 25 minutes ago.
    const now = Date.now();
    for (const [session, minutesAgo] of [
      ['started-40-min-ago', 40],
      ['started-10-min-ago', 10],
      ['started-25-min-ago', 25],
    ] as const) {
      await sendSpans(server.url, 'ordered-sessions', [
        {
          traceId: newTraceId(),
          name: 'turn',
          start: BigInt(now - minutesAgo * 60_000) * 1_000_000n,
          attributes: { 'session.id': session },
        },
      ]);
    }
    const projects = await request(server.url, 'GET', '/v1/projects');
    const ordered = (projects.body.data as { id: string; name: string }[]).find((project) => project.name === 'ordered-sessions')!.id;
    await page.goto(`${server.url}/projects/${ordered}/sessions`);
    const rows = page.getByRole('grid', { name: 'Sessions' }).getByTestId('table-row');
    await rows.nth(2).waitFor();
    const texts = await rows.allInnerTexts();
    const order = ['started-10-min-ago', 'started-25-min-ago', 'started-40-min-ago'].map((name) =>
      texts.findIndex((text) => text.includes(name)),
    );
    assert.deepEqual(order, [0, 1, 2], texts.join(' | '));

    // A new turn in the oldest session makes it the most recently active; the header sorts by that.
    await sendSpans(server.url, 'ordered-sessions', [
      { traceId: newTraceId(), name: 'turn', start: BigInt(now - 60_000) * 1_000_000n, attributes: { 'session.id': 'started-40-min-ago' } },
    ]);
    await page.getByRole('columnheader', { name: /Last activity/ }).click();
    await page.getByText(/most recently active first/).waitFor();
    await eventually(async () => {
      const active = await rows.allInnerTexts();
      assert.ok(active[0]?.includes('started-40-min-ago'), active.join(' | '));
    });
  });
});
