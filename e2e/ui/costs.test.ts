/**
 * Costs in Debian's Chromium (docs/costs.md): an LLM span of gpt-4o-mini (1,000 prompt and 500
 * completion tokens, $0.00045 at the shipped prices) shows its cost in the project header, the
 * traces table, the trace view and the span's details; an admin adds a price override in
 * Settings → Model prices and the span of an unpriced model gets a cost. Runs at the root and
 * under SERVICE_HOST_ROOT_PATH.
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
  describe(`UI: costs [root path "${rootPath || '/'}"]`, () => {
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

    test('shows what spans cost in the project, the traces table and the trace view; admins add prices', async () => {
      const { page } = opened;
      const project = unique('ui-costs');
      const start = BigInt(Date.now()) * 1_000_000n;
      const attribute = (key: string, value: string | number) =>
        typeof value === 'number' ? { key, value: { intValue: String(value) } } : { key, value: { stringValue: value } };
      const llmSpan = (traceId: string, model: string, offsetMs: number) => ({
        traceId,
        spanId: randomBytes(8).toString('hex'),
        name: `ChatCompletion ${model}`,
        kind: 3,
        startTimeUnixNano: String(start + BigInt(offsetMs) * 1_000_000n),
        endTimeUnixNano: String(start + BigInt(offsetMs + 300) * 1_000_000n),
        attributes: [
          attribute('openinference.span.kind', 'LLM'),
          attribute('llm.model_name', model),
          attribute('llm.token_count.prompt', 1000),
          attribute('llm.token_count.completion', 500),
        ],
      });
      const priced = randomBytes(16).toString('hex');
      const house = randomBytes(16).toString('hex');
      const exported = await page.request.post(`${server.url}/v1/traces`, {
        headers: { 'x-project-name': project },
        data: {
          resourceSpans: [
            {
              resource: { attributes: [] },
              scopeSpans: [{ spans: [llmSpan(priced, 'gpt-4o-mini', 0), llmSpan(house, 'house-model', 10)] }],
            },
          ],
        },
      });
      assert.equal(exported.status(), 200, await exported.text());

      // The cost job prices the span about a second after its commit.
      await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces`);
      await eventually(async () => {
        await page.reload();
        await page.getByTestId('stat-Cost').waitFor({ timeout: 2000 });
        assert.equal(await page.getByTestId('stat-Cost').innerText(), '$0.00045');
      }, 15_000);
      assert.deepEqual(await page.getByTestId('trace-cost').allInnerTexts(), ['$0.00045'], 'only the priced trace has a cost');

      // A cost of four significant digits fits its column whole (it was cut to "$0.0005…").
      const precise = unique('ui-costs-precise');
      const preciseSpan = { ...llmSpan(randomBytes(16).toString('hex'), 'gpt-4o-mini', 0) };
      preciseSpan.attributes = [
        attribute('openinference.span.kind', 'LLM'),
        attribute('llm.model_name', 'gpt-4o-mini'),
        attribute('llm.token_count.prompt', 1234),
        attribute('llm.token_count.completion', 567),
      ];
      const sent = await page.request.post(`${server.url}/v1/traces`, {
        headers: { 'x-project-name': precise },
        data: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [preciseSpan] }] }] },
      });
      assert.equal(sent.status(), 200, await sent.text());
      await page.goto(`${server.url}/projects/${encodeURIComponent(precise)}/traces`);
      await eventually(async () => {
        await page.reload();
        await page.getByTestId('trace-cost').waitFor({ timeout: 2000 });
        // 1234 × $0.15/M + 567 × $0.60/M
        assert.equal(await page.getByTestId('trace-cost').innerText(), '$0.0005253');
      }, 15_000);
      const [contentWidth, cellWidth] = (await page.evaluate(
        '(() => { const cell = document.querySelector("[data-testid=trace-cost]").closest("[role=gridcell]"); return [cell.scrollWidth, cell.clientWidth]; })()',
      )) as [number, number];
      assert.ok(contentWidth <= cellWidth, `the cost needs ${contentWidth} px in a ${cellWidth} px cell`);

      await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces/${priced}`);
      assert.equal(await page.getByTestId('trace-cost').innerText(), '$0.00045');
      await page.getByTestId('span-details').waitFor();
      assert.equal(await page.getByTestId('span-cost').innerText(), '$0.00045');

      // An admin prices house-model at $2 / $4 per million: 1000 × 2 + 500 × 4 = $0.004.
      await page.goto(`${server.url}/settings?tab=model-prices`);
      const table = page.getByRole('table', { name: 'Model prices' });
      await table.getByText('gpt-4o-mini', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Add price override' }).click();
      const dialog = page.getByRole('dialog');
      // Required fields' labels end with an asterisk.
      await dialog.getByLabel(/^Name\W*$/).fill('house model');
      await dialog.getByLabel(/^Name pattern/).fill('^house-model$');
      await dialog.getByLabel(/^Input, \$ per 1M tokens/).fill('2');
      await dialog.getByLabel(/^Output, \$ per 1M tokens/).fill('4');
      await dialog.getByRole('button', { name: 'Save price' }).click();
      await table.getByText('house model').waitFor();
      assert.equal(await page.getByTestId('model-price-row').first().getByText('override').count(), 1, 'overrides are listed first');

      await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces/${house}`);
      await eventually(async () => {
        await page.reload();
        await page.getByTestId('trace-cost').waitFor({ timeout: 2000 });
        assert.equal(await page.getByTestId('trace-cost').innerText(), '$0.004');
      }, 15_000);
      assertAllUnderRoot(opened.requests, server);
    });
  });
}
