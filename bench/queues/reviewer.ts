/**
 * `npm run bench:reviewer [-- --items 200 --skip-build]`: how long a reviewer waits between items on
 * the reviewer page (docs/annotation-queues.md), in Debian's Chromium against a real server started
 * from the build (SQLite, auth off). A queue of `items` chat traces; the page is driven by the
 * keyboard: first `n` (move on without judging) through a quarter of the items, then `1` and Enter
 * (label, submit and next) through every item. Each sample is the time from the key's keydown to
 * the frame in which the next item's content (the trace's messages) is in the page, measured in the
 * page itself. The floor is the same requests without the browser (next, then the trace), timed
 * from Node. Target: p50 < 100 ms from the key to the next item rendered.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startSqliteServer } from '../ingest/server-process.js';
import { buildServer, log, machine, percentile, ROOT, round } from '../shared.js';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '200' },
    'skip-build': { type: 'boolean' },
  },
});
const itemCount = Number(values.items);
const TARGET_MS = 100;
const CHROMIUM = process.env.SIGHTLINE_CHROMIUM ?? '/usr/bin/chromium';

if (!fs.existsSync(path.join(ROOT, 'packages/ui/dist/index.html'))) throw new Error('the UI is not built: npm run build -w @sightline/ui');
if (!values['skip-build']) buildServer();
const { server, stop } = await startSqliteServer(ROOT, 'reviewer');

async function json<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join('');
const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** `count` traces of one LLM span each (a question and an answer, as messages and as input/output), in exports of 100. */
async function storeChats(project: string, count: number): Promise<string[]> {
  const traceIds = Array.from({ length: count }, () => hex(32));
  const start = BigInt(Date.now()) * 1_000_000n;
  for (let offset = 0; offset < count; offset += 100) {
    const spans = traceIds.slice(offset, offset + 100).map((traceId, index) => {
      const n = offset + index;
      const question = `Customer ${n}: where is my parcel ${1000 + n}? It was due yesterday.`;
      const answer = `Parcel ${1000 + n} left the depot this morning and should arrive tomorrow before noon.`;
      return {
        traceId,
        spanId: hex(16),
        name: 'ChatCompletion',
        kind: 3,
        startTimeUnixNano: (start + BigInt(n) * 1_000_000n).toString(),
        endTimeUnixNano: (start + BigInt(n) * 1_000_000n + 800_000_000n).toString(),
        attributes: [
          attribute('openinference.span.kind', 'LLM'),
          attribute('llm.model_name', 'gpt-4o-mini'),
          attribute('llm.input_messages.0.message.role', 'system'),
          attribute('llm.input_messages.0.message.content', 'You are the support assistant of a parcel service.'),
          attribute('llm.input_messages.1.message.role', 'user'),
          attribute('llm.input_messages.1.message.content', question),
          attribute('llm.output_messages.0.message.role', 'assistant'),
          attribute('llm.output_messages.0.message.content', answer),
          attribute('input.value', question),
          attribute('output.value', answer),
        ],
        status: { code: 1 },
      };
    });
    await json('POST', '/v1/traces', {
      resourceSpans: [{ resource: { attributes: [attribute('service.name', project)] }, scopeSpans: [{ spans }] }],
    });
  }
  return traceIds;
}

/** A queue of the traces with a categorical config; returns its id. */
async function queueOf(name: string, configId: string, project: string, traceIds: string[]): Promise<string> {
  const queue = await json<{ data: { id: string } }>('POST', '/v1/annotation_queues', {
    name,
    instructions: 'Is the answer right about the parcel?',
    annotation_config_ids: [configId],
  });
  await json('POST', `/v1/annotation_queues/${encodeURIComponent(queue.data.id)}/items`, { project_id: project, trace_ids: traceIds });
  return queue.data.id;
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted[sorted.length - 1]! };
};

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
});
try {
  let started = Date.now();
  const project = 'bench-reviewer';
  const traceIds = await storeChats(project, itemCount);
  const config = await json<{ data: { id: string } }>('POST', '/v1/annotation_configs', {
    name: 'correctness',
    type: 'CATEGORICAL',
    optimization_direction: 'MAXIMIZE',
    values: [
      { label: 'correct', score: 1 },
      { label: 'incorrect', score: 0 },
    ],
  });
  const pageQueue = await queueOf('reviewed in the browser', config.data.id, project, traceIds);
  const apiQueue = await queueOf('the floor', config.data.id, project, traceIds);
  log(`${itemCount} traces and two queues in ${Date.now() - started} ms`);

  // The floor: what the page asks for between two items (the next item, then its trace), from Node.
  const floor: number[] = [];
  let held: { id: string; trace_id: string } | null = (
    await json<{ data: { id: string; trace_id: string } }>('POST', `/v1/annotation_queues/${encodeURIComponent(apiQueue)}/next`)
  ).data;
  for (let index = 0; index < itemCount && held; index++) {
    const t0 = performance.now();
    held = (
      await json<{ data: { id: string; trace_id: string } | null }>(
        'POST',
        `/v1/annotation_queues/${encodeURIComponent(apiQueue)}/next?after_item_id=${encodeURIComponent(held.id)}`,
      )
    ).data;
    if (held) await json('GET', `/v1/projects/${project}/traces/${held.trace_id}`);
    floor.push(performance.now() - t0);
  }

  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // In the page: the time of the last keydown of a key that changes the item.
  await page.addInitScript(`
    window.__keyAt = 0;
    window.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === 'n') window.__keyAt = performance.now();
    }, true);
  `);
  await page.goto(`${server.url}/queues/${encodeURIComponent(pageQueue)}/review`);
  await page.locator('[data-testid="review-item"] [data-testid="review-content"]').waitFor();

  /** Presses the keys, then waits (each frame) for another item's content; answers the milliseconds since the last key's keydown. */
  const toNextItem = async (keys: string[]): Promise<number> => {
    const from = await page.getByTestId('review-item').getAttribute('data-item-id');
    for (const key of keys) await page.keyboard.press(key);
    // Runs in the page; this file is checked without the DOM's types, so the page's globals are typed here.
    const handle = await page.waitForFunction(
      (previous) => {
        type Element = { getAttribute(name: string): string | null; querySelector(selector: string): Element | null };
        const page = globalThis as unknown as { document: Element; __keyAt: number; performance: { now(): number } };
        const item = page.document.querySelector('[data-testid="review-item"]');
        const ready = item && item.getAttribute('data-item-id') !== previous && item.querySelector('[data-testid="review-content"]');
        const finished = page.document.querySelector('[data-testid="queue-finished"]');
        return ready || finished ? page.performance.now() - page.__keyAt : false;
      },
      from,
      { polling: 'raf' },
    );
    return (await handle.jsonValue()) as number;
  };

  // Warm-up: the first items pay for cold caches and JIT (page and server); they are left in the queue.
  for (let index = 0; index < 5; index++) await toNextItem(['n']);
  const moving: number[] = [];
  for (let index = 0; index < Math.floor(itemCount / 4); index++) moving.push(await toNextItem(['n']));
  const submitting: number[] = [];
  started = Date.now();
  for (let index = 0; index < itemCount; index++) submitting.push(await toNextItem(['1', 'Enter']));
  log(`${itemCount} items submitted in ${Date.now() - started} ms`);
  await page.getByTestId('queue-finished').waitFor();
  const progress = await json<{ data: { done: number } }>('GET', `/v1/annotation_queues/${encodeURIComponent(pageQueue)}/progress`);
  if (progress.data.done !== itemCount) throw new Error(`${progress.data.done} of ${itemCount} items are done`);
  await context.close();

  const lines: string[] = [];
  const floorFigures = summary(floor);
  lines.push(
    `floor   next item + its trace over HTTP, no browser (${floor.length}): p50 ${round(floorFigures.p50, 1)} ms, p95 ${round(floorFigures.p95, 1)} ms`,
  );
  for (const [name, samples] of [
    ['n: next item rendered', moving],
    ['1 + Enter: submit, next item rendered', submitting],
  ] as const) {
    const figures = summary(samples);
    lines.push(
      `${`${name} (${samples.length})`.padEnd(44)} p50 ${round(figures.p50, 1)} ms  p95 ${round(figures.p95, 1)} ms  max ${round(figures.max, 1)} ms  ${
        figures.p50 < TARGET_MS ? 'PASS' : 'FAIL'
      } (target p50 < ${TARGET_MS} ms)`,
    );
  }
  lines.push(
    `  ${machine().cpus} × ${machine().cpuModel}, Node ${process.version}, Chromium headless 1440 × 900, SQLite in a temp dir; load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  console.log(lines.join('\n'));
} finally {
  await browser.close();
  await stop();
}
