/**
 * The playground in Debian's Chromium (docs/playground.md) against a stand-in OpenAI server on
 * loopback, its key and base URL stored in Settings → Providers: an LLM span sent over OTLP is
 * replayed in the playground, its prompt changed (a mustache variable, refused until filled), run
 * with the answer streamed word by word, its tokens, latency and trace shown; the prompt is then saved as a new prompt version. Another
 * test runs a prompt over a dataset and opens the experiment in the comparison page. Runs at the
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
import { STANDIN_OPENAI_KEY, startStandinOpenAI, type StandinOpenAI } from './standin-openai.js';

let browser: Browser;
let openai: StandinOpenAI;
before(async () => {
  browser = await launchChromium();
  openai = await startStandinOpenAI({ chunkDelayMs: 150 });
});
after(async () => {
  await browser?.close();
  await openai?.close();
});

for (const rootPath of SECTION_ROOT_PATHS) {
  describe(`UI: playground [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);

    before(async () => {
      // The stand-in listens on loopback, which base URLs may name only when the operator allows it.
      server = await startAuthServer(rootPath, { SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true' });
      opened = await openPage(browser);
      await firstAdminLogin(opened.page, server.url);
    });
    after(async () => {
      await opened?.close();
      await server?.close();
    });

    test('replays an LLM span, runs the changed prompt streamed, and saves it as a prompt version', async () => {
      const { page } = opened;
      // The stand-in serves both root paths' suites: count this test's requests only.
      const earlier = openai.requests.length;
      // The stand-in's key and base URL, stored in Settings → Providers.
      await page.goto(`${server.url}/settings?tab=providers`);
      for (const [key, value] of [
        ['OPENAI_API_KEY', STANDIN_OPENAI_KEY],
        ['OPENAI_BASE_URL', openai.url],
      ] as const) {
        await page.getByRole('button', { name: `Set ${key}` }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel(new RegExp(`^${key}`)).fill(value);
        await dialog.getByRole('button', { name: 'Store' }).click();
        await page.getByTestId(`secret-${key}`).getByTestId('secret-stored').waitFor();
      }
      assert.ok(!(await page.content()).includes(STANDIN_OPENAI_KEY), 'the key is never shown back');

      // An LLM span as an instrumented app would send it.
      const project = unique('ui-playground');
      const traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      const start = BigInt(Date.now()) * 1_000_000n;
      const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
      const exported = await page.request.post(`${server.url}/v1/traces`, {
        headers: { 'x-project-name': project },
        data: {
          resourceSpans: [
            {
              resource: { attributes: [] },
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId,
                      spanId,
                      name: 'ChatCompletion',
                      kind: 3,
                      startTimeUnixNano: String(start),
                      endTimeUnixNano: String(start + 300_000_000n),
                      attributes: [
                        attribute('openinference.span.kind', 'LLM'),
                        attribute('llm.model_name', 'gpt-4o-mini'),
                        attribute('llm.provider', 'openai'),
                        attribute('llm.invocation_parameters', JSON.stringify({ temperature: 0.3, max_tokens: 200 })),
                        attribute('llm.input_messages.0.message.role', 'system'),
                        attribute('llm.input_messages.0.message.content', 'You answer in one sentence.'),
                        attribute('llm.input_messages.1.message.role', 'user'),
                        attribute('llm.input_messages.1.message.content', 'Tell me about cats'),
                        attribute('llm.output_messages.0.message.role', 'assistant'),
                        attribute('llm.output_messages.0.message.content', 'Cats purr.'),
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      });
      assert.equal(exported.status(), 200, await exported.text());

      // Replay it: the span's messages, model and parameters fill the playground.
      await page.goto(`${server.url}/projects/${encodeURIComponent(project)}/traces/${traceId}?span=${spanId}`);
      await page.getByRole('button', { name: 'Replay in playground' }).click();
      await waitForPath(page, server, '/playground');
      assert.equal(await page.getByLabel('Message 1', { exact: true }).inputValue(), 'You answer in one sentence.');
      assert.equal(await page.getByLabel('Message 2', { exact: true }).inputValue(), 'Tell me about cats');
      assert.equal(await page.getByLabel('Model', { exact: true }).inputValue(), 'gpt-4o-mini');
      assert.equal(await page.getByLabel('Temperature').inputValue(), '0.3');
      assert.equal(await page.getByLabel('Max tokens').inputValue(), '200');

      // Change the prompt: a mustache variable, which must be filled before it runs.
      await page.getByText('{{mustache}}').click();
      await page.getByLabel('Message 2', { exact: true }).fill('Tell me about {{topic}}');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByTestId('playground-problems').getByText('Fill in the variables: topic.').waitFor();
      assert.equal(openai.requests.length, earlier, 'nothing was sent with a variable unfilled');
      await page.getByLabel('topic').fill('otters');
      await page.getByRole('button', { name: 'Run', exact: true }).click();

      // The answer arrives word by word, then the tokens, the latency and the trace.
      const output = page.getByTestId('playground-output');
      const seen = new Set<string>();
      await eventually(async () => {
        seen.add(await output.innerText().catch(() => ''));
        assert.ok(seen.has('Echo: Tell me about otters'));
      }, 15_000);
      const partial = [...seen].filter((text) => text && text !== 'Echo: Tell me about otters');
      assert.ok(partial.length > 0, `the answer was seen part-way (${[...seen].join(' | ')})`);
      assert.equal(await page.getByTestId('playground-tokens').innerText(), '12 + 5 = 17');
      assert.match(await page.getByTestId('playground-latency').innerText(), /\d/);
      const sent = openai.requests.at(-1)!;
      assert.deepEqual(
        [sent.body.model, sent.body.temperature, sent.body.max_tokens, sent.body.messages],
        [
          'gpt-4o-mini',
          0.3,
          200,
          [
            { role: 'system', content: 'You answer in one sentence.' },
            { role: 'user', content: 'Tell me about otters' },
          ],
        ],
      );

      // A provider refusal is a clear message.
      await page.getByLabel('Model', { exact: true }).fill('missing-model');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page
        .getByTestId('playground-error')
        .getByText(/missing-model` does not exist/)
        .waitFor();
      await page.getByLabel('Model', { exact: true }).fill('gpt-4o-mini');

      // Save it as a new prompt version, in Phoenix's shape.
      const promptName = unique('ui-prompt');
      await page.getByRole('button', { name: 'Save as prompt' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Prompt name').fill(promptName);
      await dialog.getByLabel('Description').fill('about a topic');
      await dialog.getByRole('button', { name: 'Save version' }).click();
      await page.getByText('Prompt saved').waitFor();
      const latest = await page.request.get(`${server.url}/v1/prompts/${promptName}/latest`);
      assert.equal(latest.status(), 200, await latest.text());
      const version = (await latest.json()).data;
      assert.deepEqual(
        {
          model_provider: version.model_provider,
          model_name: version.model_name,
          template_type: version.template_type,
          template_format: version.template_format,
          template: version.template,
          invocation_parameters: version.invocation_parameters,
          description: version.description,
        },
        {
          model_provider: 'OPENAI',
          model_name: 'gpt-4o-mini',
          template_type: 'CHAT',
          template_format: 'MUSTACHE',
          template: {
            type: 'chat',
            messages: [
              { role: 'system', content: 'You answer in one sentence.' },
              { role: 'user', content: 'Tell me about {{topic}}' },
            ],
          },
          invocation_parameters: { type: 'openai', openai: { temperature: 0.3, max_tokens: 200 } },
          description: 'about a topic',
        },
      );

      // The prompt's page opens that version in the playground again.
      await page.getByRole('link', { name: 'Prompts', exact: true }).click();
      await page.getByRole('link', { name: promptName }).click();
      await waitForPath(page, server, `/prompts/${promptName}`);
      await page.getByRole('button', { name: 'Open version 1 in playground' }).click();
      await waitForPath(page, server, '/playground');
      assert.equal(await page.getByLabel('Message 2', { exact: true }).inputValue(), 'Tell me about {{topic}}');
      await page.getByLabel('topic').fill('otters');

      // The run's trace is in the playground project.
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByTestId('playground-tokens').waitFor();
      await page.getByRole('link', { name: "Open the run's trace" }).click();
      await waitForPath(page, server, /^\/projects\/playground\/traces\/[0-9a-f]{32}$/);
      await eventually(async () => {
        await page.reload();
        await page.getByTestId('span-details').waitFor({ timeout: 2000 });
      });
      await page.getByText('Echo: Tell me about otters').first().waitFor();
      assertAllUnderRoot(opened.requests, server);
    });

    test('runs a prompt over a dataset as an experiment and opens its comparison', async () => {
      const { page } = opened;
      const stored = await page.request.put(`${server.url}/v1/secrets`, {
        data: {
          secrets: [
            { key: 'OPENAI_API_KEY', value: STANDIN_OPENAI_KEY },
            { key: 'OPENAI_BASE_URL', value: openai.url },
          ],
        },
      });
      assert.equal(stored.status(), 200, await stored.text());
      const dataset = unique('ui-topics');
      const topics = ['otters', 'owls', 'orcas', 'ocelots', 'oryxes'];
      const uploaded = await page.request.post(`${server.url}/v1/datasets/upload`, {
        data: {
          action: 'create',
          name: dataset,
          inputs: topics.map((topic) => ({ topic })),
          outputs: topics.map((topic) => ({ answer: `Echo: Tell me about ${topic}` })),
        },
      });
      assert.equal(uploaded.status(), 200, await uploaded.text());

      await page.getByRole('link', { name: 'Playground', exact: true }).click();
      await waitForPath(page, server, '/playground');
      await page.getByLabel('Message 2', { exact: true }).fill('Tell me about {{topic}}');
      await page.getByRole('button', { name: 'Run over dataset' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('combobox', { name: 'Dataset' }).click();
      await page.getByRole('option', { name: new RegExp(`^${dataset}`) }).click();
      await dialog.getByRole('button', { name: 'Run', exact: true }).click();
      await dialog.getByText('5 of 5 examples run').waitFor();
      await dialog.getByRole('link', { name: 'Open the experiment' }).click();
      await waitForPath(page, server, /^\/datasets\/[^/]+\/compare$/);

      const rows = page.getByTestId('comparison-row');
      await eventually(async () => assert.equal(await rows.count(), 5));
      for (const topic of topics)
        await rows
          .filter({ hasText: `"${topic}"` })
          .getByText(`Echo: Tell me about ${topic}`)
          .first()
          .waitFor();
      const experiment = page.getByTestId('compared-experiment');
      await experiment.getByText('5 ok').waitFor();
      await eventually(async () => {
        await page.reload();
        await page.getByRole('link', { name: "Open the run's trace" }).first().waitFor({ timeout: 2000 });
      });

      // The playground's own project, where the earlier plain runs went, stays listed after the experiment wrote there too.
      await page.getByRole('link', { name: 'Projects', exact: true }).click();
      await waitForPath(page, server, '/projects');
      await page.getByRole('link', { name: 'playground', exact: true }).waitFor();
      assertAllUnderRoot(opened.requests, server);
    });
  });
}
