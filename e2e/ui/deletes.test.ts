/**
 * Deleting from the UI, in Debian's Chromium (issue 34): a trace, a session, an experiment, a
 * dataset, a prompt and a project, each after a confirmation that says what goes with it; the
 * API then answers 404 for each.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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

/** Clicks Delete, checks the dialog says what goes, confirms. */
async function confirmDelete(page: Page, what: string, consequence: RegExp) {
  await page.getByRole('button', { name: `Delete ${what}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText(consequence).waitFor();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await dialog.waitFor({ state: 'detached' });
}

describe('UI: deleting', () => {
  let server: TestServer;
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);

  before(async () => {
    server = await startAuthServer('');
    opened = await openPage(browser);
    await firstAdminLogin(opened.page, server.url);
  });
  after(async () => {
    await opened?.close();
    await server?.close();
  });

  test('deletes a trace, a session, an experiment, a dataset, a prompt and a project', async () => {
    const { page } = opened;
    const status = async (path: string) => (await page.request.get(`${server.url}${path}`)).status();
    const project = unique('doomed-project');
    const [traceId, sessionTrace] = [randomBytes(16).toString('hex'), randomBytes(16).toString('hex')];
    const span = (id: string, attributes: { key: string; value: { stringValue: string } }[]) => ({
      traceId: id,
      spanId: randomBytes(8).toString('hex'),
      name: 'turn',
      kind: 1,
      startTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
      endTimeUnixNano: String(BigInt(Date.now() + 5) * 1_000_000n),
      attributes,
    });
    const exported = await page.request.post(`${server.url}/v1/traces`, {
      headers: { 'x-project-name': project },
      data: {
        resourceSpans: [
          {
            resource: { attributes: [] },
            scopeSpans: [{ spans: [span(traceId, []), span(sessionTrace, [{ key: 'session.id', value: { stringValue: 'chat-42' } }])] }],
          },
        ],
      },
    });
    assert.equal(exported.status(), 200);

    // A trace, from its page.
    await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces/${traceId}`);
    await confirmDelete(page, 'this trace', /Its spans and their annotations go with it/);
    await page.waitForURL(/\/traces(\?|$)/);
    assert.equal(await status(`/v1/projects/${encodeURIComponent(project)}/traces/${traceId}`), 404);

    // A session, from its page.
    const sessions = (await (await page.request.get(`${server.url}/v1/projects/${encodeURIComponent(project)}/sessions`)).json()) as {
      data: { id: string }[];
    };
    const sessionId = sessions.data[0]!.id;
    await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/sessions/${encodeURIComponent(sessionId)}`);
    await confirmDelete(page, 'session "chat-42"', /Its traces, their spans and annotations go with it/);
    await page.waitForURL(/\/sessions(\?|$)/);
    assert.equal(await status(`/v1/sessions/${encodeURIComponent(sessionId)}`), 404);

    // An experiment, from the dataset's list; then the dataset.
    const datasetName = unique('doomed-dataset');
    const upload = await page.request.post(`${server.url}/v1/datasets/upload?sync=true`, {
      data: { action: 'create', name: datasetName, inputs: [{ q: 1 }], outputs: [{ a: 1 }] },
    });
    const datasetId = ((await upload.json()) as { data: { dataset_id: string } }).data.dataset_id;
    const experiment = await page.request.post(`${server.url}/v1/datasets/${datasetId}/experiments`, { data: { name: 'doomed-run' } });
    const experimentId = ((await experiment.json()) as { data: { id: string } }).data.id;
    await page.goto(`${server.url}/datasets/${datasetId}/experiments`);
    await confirmDelete(page, 'experiment "doomed-run"', /Its runs and their evaluations go with it/);
    await eventually(async () => assert.equal(await status(`/v1/experiments/${experimentId}`), 404));
    await confirmDelete(page, `dataset "${datasetName}"`, /Its versions, examples and experiments go with it/);
    await page.waitForURL(/\/datasets$/);
    assert.equal(await status(`/v1/datasets/${datasetId}`), 404);

    // A prompt, from its page.
    const promptName = unique('doomed-prompt').toLowerCase();
    const created = await page.request.post(`${server.url}/v1/prompts`, {
      data: {
        prompt: { name: promptName },
        version: {
          model_provider: 'OPENAI',
          model_name: 'gpt-4o-mini',
          template_type: 'CHAT',
          template_format: 'MUSTACHE',
          template: { type: 'chat', messages: [{ role: 'user', content: 'hi' }] },
          invocation_parameters: { type: 'openai', openai: {} },
        },
      },
    });
    assert.equal(created.status(), 200);
    await page.goto(`${server.url}/prompts/${encodeURIComponent(promptName)}`);
    await confirmDelete(page, `prompt "${promptName}"`, /All its versions and tags go with it/);
    await page.waitForURL(/\/prompts$/);
    assert.equal(await status(`/v1/prompts/${encodeURIComponent(promptName)}/latest`), 404);

    // The project itself, from its header.
    await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces`);
    await confirmDelete(page, `project "${project}"`, /Its traces, spans, sessions and annotations go with it/);
    await page.waitForURL(/\/projects$/);
    assert.equal(await status(`/v1/projects/${encodeURIComponent(project)}`), 404);
  });
});
