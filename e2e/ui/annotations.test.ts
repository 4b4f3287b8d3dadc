/**
 * Annotating by hand and browsing sessions in Debian's Chromium (docs/annotations.md,
 * docs/sessions.md): a categorical annotation config is created on the project's "Annotation
 * configs" tab, a span is annotated with it from the trace view (saved as HUMAN, source APP) and
 * shows in the span's annotations and in the overview's summary; the traces list filters by it;
 * a two-turn session reads as a conversation whose bubbles link to their traces. Runs at the
 * root and under SERVICE_HOST_ROOT_PATH.
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
  waitForPath,
  type OpenedPage,
} from './harness.js';

const TURNS = [
  { input: 'Where is my order #4471?', output: 'It left the warehouse this morning.' },
  { input: 'When will it arrive?', output: 'Tomorrow before noon.' },
];

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

for (const rootPath of SECTION_ROOT_PATHS) {
  describe(`UI: annotations and sessions [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);
    const project = unique('ui-annotations');
    const sessionId = unique('chat');
    const traces = TURNS.map(() => ({
      traceId: randomBytes(16).toString('hex'),
      root: randomBytes(8).toString('hex'),
      llm: randomBytes(8).toString('hex'),
    }));

    before(async () => {
      server = await startAuthServer(rootPath);
      opened = await openPage(browser);
      await firstAdminLogin(opened.page, server.url);
      const start = BigInt(Date.now() - 60_000) * 1_000_000n;
      const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
      const exported = await opened.page.request.post(`${server.url}/v1/traces`, {
        headers: { 'x-project-name': project },
        data: {
          resourceSpans: [
            {
              resource: { attributes: [] },
              scopeSpans: [
                {
                  spans: TURNS.flatMap((turn, index) => {
                    const begin = start + BigInt(index) * 10_000_000_000n;
                    return [
                      {
                        traceId: traces[index]!.traceId,
                        spanId: traces[index]!.root,
                        name: 'support-agent',
                        kind: 1,
                        startTimeUnixNano: String(begin),
                        endTimeUnixNano: String(begin + 900_000_000n),
                        attributes: [
                          attribute('openinference.span.kind', 'AGENT'),
                          attribute('session.id', sessionId),
                          attribute('input.value', turn.input),
                          attribute('output.value', turn.output),
                        ],
                      },
                      {
                        traceId: traces[index]!.traceId,
                        spanId: traces[index]!.llm,
                        parentSpanId: traces[index]!.root,
                        name: 'ChatCompletion',
                        kind: 3,
                        startTimeUnixNano: String(begin + 100_000_000n),
                        endTimeUnixNano: String(begin + 800_000_000n),
                        attributes: [attribute('openinference.span.kind', 'LLM')],
                      },
                    ];
                  }),
                },
              ],
            },
          ],
        },
      });
      assert.equal(exported.status(), 200, await exported.text());
    });
    after(async () => {
      await opened?.close();
      await server?.close();
    });

    test('a categorical config, a span annotated by hand, its summary and the traces filtered by it', async () => {
      const { page } = opened;
      const config = unique('correctness');
      const projectPath = `${server.url}/projects/${encodeURIComponent(project)}`;

      // Create the config on the project's "Annotation configs" tab.
      await page.goto(`${projectPath}/annotations`);
      const form = page.getByRole('form', { name: 'New annotation config' });
      await form.getByLabel('Name').fill(config);
      const labels = form.getByLabel('Labels');
      for (const label of ['correct=1', 'incorrect=0']) {
        await labels.fill(label);
        await labels.press('Enter');
      }
      await form.getByRole('button', { name: 'Create config' }).click();
      const row = page.getByTestId('annotation-config-row').filter({ hasText: config });
      await row.waitFor();
      assert.match(await row.innerText(), /correct \(1\), incorrect \(0\)/);

      // Annotate the LLM span of the first trace from the trace view.
      await page.goto(`${projectPath}/traces/${traces[0]!.traceId}?span=${traces[0]!.llm}`);
      const details = page.getByTestId('span-details');
      await details.getByRole('tab', { name: 'Annotations' }).click();
      const panel = page.getByTestId('span-annotations');
      await panel.getByText('No annotations yet.').waitFor();
      await panel.getByLabel('Annotation', { exact: true }).click();
      await page.getByRole('option', { name: config }).click();
      await panel.getByRole('button', { name: /^correct/ }).click();
      await panel.getByLabel('Explanation (optional)').fill('Matches the tracking data.');
      await panel.getByRole('button', { name: 'Save annotation' }).click();
      const saved = panel.getByTestId('annotation-row').filter({ hasText: config });
      await saved.waitFor();
      const text = await saved.innerText();
      assert.match(text, /correct/);
      assert.match(text, /Matches the tracking data\./);
      assert.match(text, /HUMAN/);
      assert.match(text, /APP/);
      // The score came from the config.
      assert.equal(await saved.getByTestId('annotation-score').innerText(), '1');

      // Stored as the UI showed it.
      const stored = await page.request.get(
        `${server.url}/v1/projects/${encodeURIComponent(project)}/span_annotations?span_ids=${traces[0]!.llm}`,
      );
      const [annotation] = (await stored.json()).data;
      assert.deepEqual(
        { name: annotation.name, kind: annotation.annotator_kind, source: annotation.source, result: annotation.result },
        { name: config, kind: 'HUMAN', source: 'APP', result: { label: 'correct', score: 1, explanation: 'Matches the tracking data.' } },
      );

      // The overview's summary counts it.
      await page.goto(`${projectPath}/overview`);
      const summary = page.getByTestId('annotation-summary').filter({ hasText: config });
      await summary.waitFor();
      assert.equal(await summary.getByTestId('annotation-summary-count').innerText(), '1');
      assert.match(await summary.innerText(), /correct: 1 \(100%\)/);

      // A label in the summary opens the traces filtered by it: only the annotated trace.
      await summary.getByTestId('annotation-summary-label').click();
      await waitForPath(page, server, `/projects/${encodeURIComponent(project)}/traces`);
      assert.deepEqual(new URL(page.url()).searchParams.getAll('ann'), [`${config}:correct`]);
      const traceRows = page.getByRole('row').filter({ hasText: 'support-agent' });
      await eventually(async () => assert.equal(await traceRows.count(), 1));
      assertAllUnderRoot(opened.requests, server);
    });

    test('a session reads as a conversation whose turns link to their traces', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces`);
      await page.getByRole('tab', { name: 'Sessions' }).click();
      await waitForPath(page, server, `/projects/${encodeURIComponent(project)}/sessions`);
      const row = page.getByRole('row').filter({ hasText: sessionId });
      await row.waitFor();
      const cells = await row.innerText();
      assert.match(cells, new RegExp(TURNS[0]!.input.replace(/[#?]/g, '.')));
      assert.match(cells, new RegExp(TURNS[1]!.output.replace(/[.]/g, '\\.')));
      await row.click();
      await waitForPath(page, server, /^\/projects\/[^/]+\/sessions\/[^/]+$/);
      const conversation = page.getByRole('log', { name: 'Conversation' });
      await eventually(async () => assert.equal(await conversation.getByTestId('turn-output').count(), 2));
      assert.deepEqual(
        (await conversation.getByTestId('turn-input').allInnerTexts()).map((text) => text.split('\n')[0]),
        TURNS.map((turn) => turn.input),
      );
      assert.deepEqual(
        (await conversation.getByTestId('turn-output').allInnerTexts()).map((text) => text.split('\n')[0]),
        TURNS.map((turn) => turn.output),
      );
      await conversation.getByTestId('session-turn').nth(1).getByRole('link', { name: 'Open trace' }).first().click();
      await waitForPath(page, server, `/projects/${encodeURIComponent(project)}/traces/${traces[1]!.traceId}`);
      await page.getByTestId('span-details').waitFor();
      assertAllUnderRoot(opened.requests, server);
    });
  });
}
