/**
 * The reviewer page of an annotation queue (docs/annotation-queues.md) in Debian's Chromium, driven
 * by the keyboard only: a number key picks a label, Enter submits and shows the next item, n moves
 * on without judging, s skips, p goes back to revise; the annotations are checked through the API.
 * A queue is also filled from the traces table's selection. At 1440 and 390 px (no sideways scroll).
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { unique } from '../../packages/server/test/helpers/auth.js';
import { at, getOk, newTraceId, request, sendSpans } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { eventually, launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let server: TestServer;
before(async () => {
  browser = await launchChromium();
  server = await startTestServer('sqlite');
});
after(async () => {
  await server?.close();
  await browser?.close();
});

const fitsTheScreen = async (page: Page, width: number) => {
  const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
};

/** Four chat turns (one LLM span each) in a fresh project; returns their trace ids. */
async function storeChats(project: string): Promise<string[]> {
  const traceIds = Array.from({ length: 4 }, () => newTraceId());
  await sendSpans(
    server.url,
    project,
    traceIds.map((traceId, index) => ({
      traceId,
      name: 'ChatCompletion',
      kind: 'LLM',
      start: at(index * 1000),
      attributes: {
        'llm.model_name': 'gpt-4o-mini',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': `Where is parcel ${index}?`,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': `Parcel ${index} is in the depot.`,
        'input.value': `Where is parcel ${index}?`,
        'output.value': `Parcel ${index} is in the depot.`,
      },
    })),
  );
  return traceIds;
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`UI: annotation queue review by keyboard at ${viewport.width} px`, () => {
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);
    const project = unique('queue-ui');
    const configName = unique('correctness');
    let traceIds: string[];
    let queue: { id: string; name: string };

    before(async () => {
      opened = await openPage(browser, { viewport });
      traceIds = await storeChats(project);
      const config = await request(server.url, 'POST', '/v1/annotation_configs', {
        name: configName,
        type: 'CATEGORICAL',
        optimization_direction: 'MAXIMIZE',
        values: [
          { label: 'correct', score: 1 },
          { label: 'incorrect', score: 0 },
        ],
      });
      assert.equal(config.status, 200, config.text);
      const created = await request(server.url, 'POST', '/v1/annotation_queues', {
        name: unique('support review'),
        instructions: 'Is the answer right about the parcel?',
        annotation_config_ids: [config.body.data.id],
      });
      assert.equal(created.status, 200, created.text);
      queue = created.body.data;
    });
    after(async () => {
      await opened?.close();
    });

    /** The trace annotations of one of the chats. */
    const annotationsOf = async (traceId: string) =>
      (await getOk(server.url, `/v1/projects/${encodeURIComponent(project)}/trace_annotations?trace_ids=${traceId}`)).data as {
        name: string;
        annotator_kind: string;
        source: string;
        result: { label: string | null; explanation: string | null };
      }[];

    /** Waits until the review page shows the chat of `index` with its content. */
    const showing = async (page: Page, index: number) => {
      const item = page.getByTestId('review-item');
      await item.getByTestId('review-content').getByText(`Parcel ${index} is in the depot.`).first().waitFor();
    };

    test('the traces table’s selection fills the queue', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces?range=all`);
      const grid = page.getByRole('grid', { name: 'Traces' });
      await grid.getByTestId('table-row').nth(3).waitFor();
      // Selected oldest first (the table lists newest first): the queue keeps that order.
      for (const traceId of traceIds) await grid.getByRole('checkbox', { name: `Select trace ${traceId}` }).check();
      await page.getByRole('button', { name: 'Add 4 to queue' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('combobox', { name: 'Queue' }).click();
      await page.getByRole('option', { name: queue.name }).click();
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog.getByText('Added 4.').waitFor();
      await fitsTheScreen(page, viewport.width);
      await dialog.getByRole('button', { name: 'Close' }).click();
      const progress = (await getOk(server.url, `/v1/annotation_queues/${encodeURIComponent(queue.id)}/progress`)).data;
      assert.equal(progress.pending, 4);
    });

    test('labels with a number key, submits with Enter, moves on with n, skips with s, revises with p', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/queues/${encodeURIComponent(queue.id)}/review`);
      await page.getByTestId('queue-instructions').getByText('Is the answer right about the parcel?').waitFor();
      await page.getByTestId('shortcuts').getByText('choose a label').waitFor();
      // The queue holds the chats in the order they were selected.
      const order = [0, 1, 2, 3];
      await showing(page, order[0]!);
      await fitsTheScreen(page, viewport.width);

      // 2 = "incorrect", Enter submits and brings the next chat.
      await page.keyboard.press('2');
      await page.getByRole('button', { name: /incorrect/, pressed: true }).waitFor();
      await page.keyboard.press('Enter');
      await showing(page, order[1]!);
      await eventually(async () => {
        const written = await annotationsOf(traceIds[order[0]!]!);
        assert.deepEqual(
          written.map((a) => [a.name, a.result.label, a.annotator_kind, a.source]),
          [[configName, 'incorrect', 'HUMAN', 'APP']],
        );
      });

      // n leaves this chat for later; s skips the next one.
      await page.keyboard.press('n');
      await showing(page, order[2]!);
      await page.keyboard.press('s');
      // The chat left behind with n comes back.
      await showing(page, order[1]!);

      // p goes back: first the skipped chat, then the judged one, with its label shown; 1 = "correct", Enter saves.
      await page.keyboard.press('p');
      await showing(page, order[2]!);
      await page.getByText(/skipped: revising/).waitFor();
      await page.keyboard.press('p');
      await showing(page, order[0]!);
      await page.getByRole('button', { name: /incorrect/, pressed: true }).waitFor();
      await fitsTheScreen(page, viewport.width);
      await page.keyboard.press('1');
      await page.keyboard.press('Enter');
      await showing(page, order[2]!);
      await eventually(async () => {
        const written = await annotationsOf(traceIds[order[0]!]!);
        assert.deepEqual(
          written.map((a) => [a.name, a.result.label]),
          [[configName, 'correct']],
          'the revision overwrote the first review',
        );
      });

      // n twice: back to the chat held, then Enter without a label is refused with a sentence.
      await page.keyboard.press('n');
      await showing(page, order[1]!);
      await page.keyboard.press('Enter');
      await page
        .getByRole('alert')
        .getByText(/fill in at least one of the queue’s annotations/)
        .waitFor();
      await page.keyboard.press('1');
      await page.keyboard.press('Enter');
      await showing(page, order[3]!);
      await page.keyboard.press('1');
      await page.keyboard.press('Enter');
      await page.getByTestId('queue-finished').waitFor();
      await fitsTheScreen(page, viewport.width);

      const progress = (await getOk(server.url, `/v1/annotation_queues/${encodeURIComponent(queue.id)}/progress`)).data;
      assert.deepEqual(progress, { total: 4, pending: 0, done: 3, skipped: 1, in_review: 0 });
      for (const index of [order[1]!, order[3]!]) {
        const written = await annotationsOf(traceIds[index]!);
        assert.deepEqual(
          written.map((a) => [a.result.label, a.annotator_kind]),
          [['correct', 'HUMAN']],
        );
      }
      assert.deepEqual(await annotationsOf(traceIds[order[2]!]!), [], 'the skipped chat has no annotation');
    });

    test('the queue page shows the items and the export', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/queues/${encodeURIComponent(queue.id)}`);
      await page.getByTestId('queue-progress').getByText('done').waitFor();
      assert.equal(await page.getByTestId('queue-item-row').count(), 4);
      await fitsTheScreen(page, viewport.width);
      const href = await page.getByRole('link', { name: 'CSV' }).getAttribute('href');
      const csv = await fetch(new URL(href!, server.url).toString());
      const lines = (await csv.text()).trim().split('\r\n');
      assert.equal(lines.length, 5, 'a header and four items');
    });
  });
}
