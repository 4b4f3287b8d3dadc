/**
 * A dataset's experiments list in Debian's Chromium, as the issue "What a demanding user hits"
 * found it: an experiment of three examples with two successful runs and one failed one reads
 * "2 · 1 failed" (it read "1 failed · 1 missing": the API's missing count includes the failed
 * runs), one with a run not recorded yet reads "1 not run", and two experiments of the same name
 * are told apart by their numbers.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { request } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

const T0 = '2026-01-01T00:00:00.000Z';

let browser: Browser;
let server: TestServer;
let datasetId: string;
before(async () => {
  browser = await launchChromium();
  server = await startTestServer('sqlite', { SERVICE_LOG_LEVEL: 'warn' });
  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await request(server.url, method, path, body);
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data;
  };
  datasetId = (
    await ok('POST', '/v1/datasets/upload', { action: 'create', name: 'three-questions', inputs: [{ q: 1 }, { q: 2 }, { q: 3 }] })
  ).dataset_id;
  const examples = (await ok('GET', `/v1/datasets/${datasetId}/examples`)).examples as { id: string }[];
  // Same name twice: one with a failure, one with a run not recorded yet.
  for (const runs of [
    [null, null, 'the task timed out'],
    [null, null],
  ]) {
    const experiment = await ok('POST', `/v1/datasets/${datasetId}/experiments`, { name: 'gpt-4o baseline' });
    for (const [index, error] of runs.entries()) {
      await ok('POST', `/v1/experiments/${experiment.id}/runs`, {
        dataset_example_id: examples[index]!.id,
        output: error ? null : { a: index },
        repetition_number: 1,
        start_time: T0,
        end_time: T0,
        error,
      });
    }
  }
});
after(async () => {
  await server?.close();
  await browser?.close();
});

describe('UI: experiment counts', () => {
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  before(async () => {
    opened = await openPage(browser);
  });
  after(async () => {
    await opened?.close();
  });

  test('failed runs are not counted again as missing, and same-named experiments have their numbers', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/datasets/${datasetId}/experiments`);
    const rows = page.getByRole('row').filter({ hasText: 'gpt-4o baseline' });
    await rows.nth(1).waitFor();
    // Newest first: the one with a run not recorded yet, then the one with a failure.
    const [newest, oldest] = [await rows.nth(0).innerText(), await rows.nth(1).innerText()];
    assert.match(oldest, /1 failed/i);
    assert.doesNotMatch(oldest, /missing|not run/i, oldest);
    assert.match(newest, /1 not run/i);
    assert.doesNotMatch(newest, /failed/i, newest);
    const numbers = await page.getByTestId('experiment-number').allInnerTexts();
    assert.equal(new Set(numbers).size, 2, `two numbers: ${numbers.join(', ')}`);
  });
});
