/**
 * Exports in Debian's Chromium (docs/export.md): the Export menu of the Spans tab downloads a CSV
 * of the spans its filters select, the Traces tab a JSONL of its traces, and the project's
 * Exports tab creates a scheduled export, runs it and lists the file it wrote. At 1440 px, and at
 * 390 px where the menus and the tab fit the screen.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import { newTraceId, sendSpans, type QuerySpan } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
let exportDir: string;
before(async () => {
  exportDir = await mkdtemp(path.join(os.tmpdir(), 'sightline-ui-exports-'));
  browser = await launchChromium();
  server = await startTestServer('sqlite', { SERVICE_EXPORT_DIR: exportDir });
});
after(async () => {
  await server?.close();
  await browser?.close();
  await rm(exportDir, { recursive: true, force: true });
});

const fitsTheScreen = async (page: Page, width: number) => {
  const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
};

const LONG = (i: number) => `question ${i}: ${'why '.repeat(400)}?`;

/** A root span and an LLM child per trace; every third LLM call fails. */
const traces = (count: number): QuerySpan[] =>
  Array.from({ length: count }, (_, i) => {
    const traceId = newTraceId();
    const start = BigInt(Date.now() - 60_000 + i * 100) * 1_000_000n;
    const root = `${(i + 1).toString(16).padStart(16, '0')}`;
    return [
      {
        traceId,
        spanId: root,
        name: 'agent',
        kind: 'AGENT',
        start,
        duration: 50_000_000n,
        attributes: { 'input.value': LONG(i) },
      } as QuerySpan,
      {
        traceId,
        parentSpanId: root,
        name: 'chat',
        kind: 'LLM',
        start: start + 1_000_000n,
        status: i % 3 === 0 ? ('ERROR' as const) : ('OK' as const),
        statusMessage: i % 3 === 0 ? '=rate limited' : '',
        attributes: { 'llm.model_name': 'gpt-4o', 'llm.token_count.total': 42 },
      },
    ];
  }).flat();

/** Clicks a format in the open Export menu and answers the downloaded file's name and text. */
async function download(page: Page, format: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: new RegExp(`^${format}`) }).click()]);
  const filePath = await file.path();
  return { name: file.suggestedFilename(), text: await readFile(filePath, 'utf8') };
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`UI: exports at ${viewport.width} px`, () => {
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);
    const project = unique('exports-ui');
    before(async () => {
      opened = await openPage(browser, { viewport });
      await sendSpans(server.url, project, traces(9));
    });
    after(async () => {
      await opened?.close();
    });

    test('the Spans tab exports a CSV of the spans its filters select', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/projects/${project}/spans?status=ERROR`);
      await page.getByText('3 spans').waitFor();
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      await fitsTheScreen(page, viewport.width);
      const { name, text } = await download(page, 'CSV');
      assert.match(name, /-spans-\d{8}T\d{6}Z\.csv$/);
      const [header, ...rows] = parse(text) as string[][];
      assert.deepEqual(header!.slice(0, 5), ['span_id', 'trace_id', 'parent_id', 'name', 'span_kind']);
      assert.equal(rows.length, 3);
      const column = (name: string) => header!.indexOf(name);
      assert.ok(rows.every((row) => row[column('status_code')] === 'ERROR' && row[column('name')] === 'chat'));
      // A cell a spreadsheet would run is written inert.
      assert.ok(rows.every((row) => row[column('status_message')] === "'=rate limited"));
      assert.ok(rows.every((row) => JSON.parse(row[column('attributes')]!)['llm.model_name'] === 'gpt-4o'));

      // Without the filter: every span, the long input in full.
      await page.goto(`${server.url}/projects/${project}/spans`);
      await page.getByText('18 spans').waitFor();
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      const all = parse((await download(page, 'CSV')).text) as string[][];
      assert.equal(all.length, 19);
      const inputs = all
        .slice(1)
        .map((row) => JSON.parse(row[column('attributes')]!)['input.value'])
        .filter(Boolean);
      assert.deepEqual(inputs.sort(), Array.from({ length: 9 }, (_, i) => LONG(i)).sort());
      await fitsTheScreen(page, viewport.width);
    });

    test('the Traces tab exports a JSONL of its traces', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/projects/${project}/traces`);
      await page.getByText('9 traces', { exact: false }).waitFor();
      await fitsTheScreen(page, viewport.width);
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      const { name, text } = await download(page, 'JSONL');
      assert.match(name, /-traces-\d{8}T\d{6}Z\.jsonl$/);
      const lines = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(lines.length, 9);
      assert.equal(lines.filter((line) => line.status === 'ERROR').length, 3);
      assert.ok(lines.every((line) => line.root_span_name === 'agent' && line.span_count === 2 && line.token_count_total === 42));
    });

    test('the Exports tab creates a scheduled export, runs it and lists its file', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/projects/${project}/exports`);
      await page.getByText('No scheduled export yet').waitFor();
      await page.getByRole('button', { name: 'New scheduled export' }).click();
      const form = page.getByRole('form', { name: 'New scheduled export' });
      await form.getByLabel(/^Name/).fill('LLM calls');
      await form.getByLabel(/^Filter/).fill("span_kind == 'LLM'");
      await fitsTheScreen(page, viewport.width);
      await form.getByRole('button', { name: 'Create export' }).click();
      const row = page.getByTestId('scheduled-export').filter({ hasText: 'LLM calls' });
      await row.getByText(`${project}/LLM_calls/`).waitFor();
      await fitsTheScreen(page, viewport.width);

      await sendSpans(server.url, project, traces(4));
      await row.getByRole('button', { name: 'Run LLM calls now' }).click();
      const run = page.getByTestId('export-run').first();
      await run.getByText(/\.parquet$/).waitFor();
      assert.equal(await run.getByTestId('export-run-rows').textContent(), '4 rows');
      await fitsTheScreen(page, viewport.width);
      const file = (await run.locator('code').textContent())!;
      assert.ok(file.startsWith(`${project}/LLM_calls/`));
      assert.ok((await readFile(path.join(exportDir, file))).subarray(0, 4).equals(Buffer.from('PAR1')));

      // Paused, it cannot run; resumed, it can.
      await row.getByRole('switch', { name: 'Pause LLM calls' }).click({ force: true });
      await row.getByText('paused').waitFor();
      assert.equal(await row.getByRole('button', { name: 'Run LLM calls now' }).isDisabled(), true);
    });
  });
}
