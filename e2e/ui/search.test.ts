/**
 * Search and filter in Debian's Chromium (docs/search.md), and Ctrl+K's trace lookup: the traces table shows each trace's
 * input and output; typing words finds the traces that hold them (Chinese too) with the words
 * marked; the filter editor completes names, applies a condition on Enter and points at the
 * mistake in one it cannot read; a hidden column stays hidden after a reload; and the bar fits a
 * phone's width.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import { eventually, firstAdminLogin, launchChromium, openPage, startAuthServer, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

const rowTexts = (opened: OpenedPage) =>
  opened.page.evaluate(`[...document.querySelectorAll('[role="row"]')].slice(1).map((row) => row.textContent)`) as Promise<string[]>;

describe('UI: search and filter', () => {
  let server: TestServer;
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  const project = unique('ui-search');
  const traceIds: string[] = [];

  before(async () => {
    server = await startAuthServer('');
    opened = await openPage(browser);
    await firstAdminLogin(opened.page, server.url);
    const start = BigInt(Date.now() - 60_000) * 1_000_000n;
    const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const turn = (offsetMs: number, input: string, output: string, kind = 'CHAIN', user = `user-${offsetMs}`) => ({
      traceId: traceIds[traceIds.push(randomBytes(16).toString('hex')) - 1]!,
      spanId: randomBytes(8).toString('hex'),
      name: 'chat-turn',
      kind: 1,
      startTimeUnixNano: String(start + BigInt(offsetMs) * 1_000_000n),
      endTimeUnixNano: String(start + BigInt(offsetMs + 40 + offsetMs) * 1_000_000n),
      attributes: [text('openinference.span.kind', kind), text('input.value', input), text('output.value', output), text('user.id', user)],
    });
    const exported = await opened.page.request.post(`${server.url}/v1/traces`, {
      headers: { 'x-project-name': project },
      data: {
        resourceSpans: [
          {
            resource: { attributes: [] },
            scopeSpans: [
              {
                spans: [
                  turn(0, 'How do I reset my password?', 'Open Settings, then Account.'),
                  turn(10, 'Where is my parcel?', 'It ships tomorrow from the warehouse.'),
                  turn(20, '我想退款', '好的，已经为您处理退款。'),
                  turn(30, 'Tell me a joke', 'Why did the parcel cross the road?', 'LLM'),
                ],
              },
            ],
          },
        ],
      },
    });
    assert.equal(exported.status(), 200, await exported.text());
    // The index takes new spans' words a moment after their ingest (docs/search.md).
    for (let tries = 0; ; tries++) {
      const found = await opened.page.request.get(`${server.url}/v1/projects/${project}/spans?search=parcel`);
      if (((await found.json()) as { data?: unknown[] }).data?.length === 2) break;
      assert.ok(tries < 200, 'the search index took the spans within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  after(async () => {
    await opened?.close();
    await server?.close();
  });

  test('finds traces by their words, marks them, and filters by a condition', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces?range=all`);
    await page.getByText('Where is my parcel?').waitFor();
    assert.equal((await rowTexts(opened)).length, 4, 'every trace, with its input');

    await page.getByLabel('Search inputs, outputs and messages').fill('parcel');
    await eventually(async () => assert.equal((await rowTexts(opened)).length, 2));
    const marked = (await page.evaluate(`[...document.querySelectorAll('[role="row"] mark')].map((mark) => mark.textContent)`)) as string[];
    assert.ok(marked.length >= 2 && marked.every((word) => word.toLowerCase() === 'parcel'), JSON.stringify(marked));
    assert.match(page.url(), /[?&]q=parcel/, 'the search is in the address');

    await page.getByLabel('Search inputs, outputs and messages').fill('退款');
    await eventually(async () => assert.deepEqual((await rowTexts(opened)).length, 1));
    assert.match((await rowTexts(opened))[0] ?? '', /我想退款/);
    // No match: the table says so, and the count line offers no keys to move among no rows.
    await page.getByLabel('Search inputs, outputs and messages').fill('wombat');
    await page.getByText('No traces match the search or filter in this time range.').waitFor();
    assert.equal(await page.getByText('↑/↓ to move').count(), 0);
    await page.getByLabel('Search inputs, outputs and messages').fill('');

    // Completion: "span_k" offers span_kind; the choice is written into the line.
    const filter = page.getByLabel('Filter condition');
    await filter.click();
    await filter.pressSequentially('span_k');
    await page.getByRole('option', { name: 'span_kind' }).click();
    assert.equal(await filter.inputValue(), 'span_kind ');
    await filter.pressSequentially("== 'LLM'");
    await filter.press('Enter');
    await eventually(async () => {
      const rows = await rowTexts(opened);
      assert.equal(rows.length, 1);
      assert.match(rows[0] ?? '', /Tell me a joke/);
    });

    // A condition the server cannot read: the line, a caret under the mistake, the reason.
    await filter.fill('latency_ms > ');
    await filter.press('Enter');
    const error = page.getByRole('alert', { name: 'Filter error' });
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /invalid span query condition/);
    assert.match((await error.textContent()) ?? '', /\^/);
    await page.screenshot({ path: '/tmp/sightline-search-error.png' });
    await filter.fill('');
    await filter.press('Enter');
    await eventually(async () => assert.equal((await rowTexts(opened)).length, 4));

    // A saved view brings its search back for anyone on the project.
    await page.getByLabel('Search inputs, outputs and messages').fill('parcel');
    await eventually(async () => assert.equal((await rowTexts(opened)).length, 2));
    await page.getByRole('button', { name: 'Saved views' }).click();
    await page.getByRole('menuitem', { name: 'Save this view…' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Parcels');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByLabel('Search inputs, outputs and messages').fill('');
    await eventually(async () => assert.equal((await rowTexts(opened)).length, 4));
    await page.getByRole('button', { name: 'Saved views' }).click();
    await page.getByRole('menuitem', { name: 'Parcels' }).click();
    await eventually(async () => assert.equal((await rowTexts(opened)).length, 2));
    assert.equal(await page.getByLabel('Search inputs, outputs and messages').inputValue(), 'parcel');
  });

  test('Ctrl+K opens a trace by its id', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/projects`);
    await page.getByText(project).waitFor();
    await page.keyboard.press('Control+K');
    const box = page.getByPlaceholder('Jump to a project, dataset, prompt, trace id or session id…');
    await box.fill(traceIds[1]!.toUpperCase());
    await page.getByText(`Open trace ${traceIds[1]}`).click();
    await page.waitForURL(new RegExp(`/traces/${traceIds[1]}`));
    await page.getByText('Where is my parcel?').first().waitFor();
  });

  test('remembers the columns chosen, and fits a phone', async () => {
    const { page } = opened;
    // An annotation name gets a column of its own, with each trace's label and score.
    const annotated = await page.request.post(`${server.url}/v1/trace_annotations`, {
      data: { data: [{ trace_id: traceIds[1], name: 'helpfulness', annotator_kind: 'HUMAN', result: { label: 'helpful', score: 0.9 } }] },
    });
    assert.equal(annotated.status(), 200, await annotated.text());
    await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces?range=all`);
    await page.getByText('Where is my parcel?').waitFor();
    await page.getByRole('button', { name: "Choose the traces table's columns" }).click();
    await page.getByRole('checkbox', { name: 'Output' }).uncheck();
    await page.keyboard.press('Escape');
    await eventually(async () => assert.equal(await page.getByText('It ships tomorrow from the warehouse.').count(), 0));
    await page.reload();
    await page.getByText('Where is my parcel?').waitFor();
    assert.equal(await page.getByText('It ships tomorrow from the warehouse.').count(), 0, 'still hidden after a reload');
    assert.equal(await page.getByRole('columnheader', { name: 'Input' }).count(), 1);
    await page.getByRole('columnheader', { name: 'helpfulness' }).waitFor();
    await page.getByText('helpful · 0.9').waitFor();

    // One user's traces, by their user.id.
    await page.getByLabel('Only this user.id').fill('user-10');
    await eventually(async () => {
      const rows = await rowTexts(opened);
      assert.equal(rows.length, 1);
      assert.match(rows[0] ?? '', /Where is my parcel\?/);
    });
    await page.getByLabel('Only this user.id').fill('');
    await eventually(async () => assert.equal((await rowTexts(opened)).length, 4));

    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel('Search inputs, outputs and messages').waitFor();
    const overflow = (await page.evaluate(
      `(() => { const bar = document.querySelector('[aria-label="Search and filter"]'); return bar.scrollWidth - bar.clientWidth; })()`,
    )) as number;
    assert.ok(overflow <= 1, `the search bar overflows by ${overflow}px at 390 px`);
    await page.screenshot({ path: '/tmp/sightline-search-phone.png' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
