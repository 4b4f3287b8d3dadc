/**
 * The playground's tools and models side by side in Debian's Chromium (docs/playground.md,
 * "Tools", "Side by side") against stand-in providers on loopback that speak their APIs' wire
 * formats (packages/server/test/helpers/standin-providers.ts): a tool defined on the page is
 * offered to the model, the stand-in's call shows with its name and arguments, the result typed
 * for it goes back as a tool message and the final answer arrives; then an OpenAI model and a
 * Gemini model run the same messages at once, each answer, token count and trace in its own
 * column. One login-free server and one browser for the file.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import {
  STANDIN_KEYS,
  STANDIN_TOOL_ARGUMENTS,
  startStandinProviders,
  type StandinProviders,
} from '../../packages/server/test/helpers/standin-providers.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

let browser: Browser;
let standins: StandinProviders;
let server: TestServer;
let opened: OpenedPage;

describe('UI: playground tools and models side by side', () => {
  const test = uiTest(() => [opened]);

  before(async () => {
    // Words spaced out, so streaming is seen.
    standins = await startStandinProviders({ chunkDelayMs: 60 });
    browser = await launchChromium();
    // The stand-ins listen on loopback, which base URLs may name only when the operator allows it.
    server = await startTestServer('sqlite', { SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true' });
    opened = await openPage(browser);
    const stored = await opened.page.request.put(`${server.url}/v1/secrets`, {
      data: {
        secrets: [
          { key: 'OPENAI_API_KEY', value: STANDIN_KEYS.openai },
          { key: 'OPENAI_BASE_URL', value: `${standins.url}/openai` },
          { key: 'ANTHROPIC_API_KEY', value: STANDIN_KEYS.anthropic },
          { key: 'ANTHROPIC_BASE_URL', value: `${standins.url}/anthropic` },
          { key: 'GEMINI_API_KEY', value: STANDIN_KEYS.gemini },
          { key: 'GEMINI_BASE_URL', value: `${standins.url}/gemini` },
        ],
      },
    });
    assert.equal(stored.status(), 200, await stored.text());
  });
  after(async () => {
    await opened?.close();
    await browser?.close();
    await server?.close();
    await standins?.close();
  });

  test('defines a tool, sees the call, sends its result and gets the final answer', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/playground`);
    await page.getByLabel('Message 2', { exact: true }).fill('What is the weather in Paris?');
    await page.getByRole('button', { name: 'Add tool' }).click();
    await page.getByLabel('Name of tool 1').fill('get_weather');
    await page.getByLabel('Description of tool 1').fill('The weather in a city');
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    await page.getByLabel('Parameters of tool 1').fill(JSON.stringify(schema));
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    // The call shows with its name and arguments, and a field for its result.
    const toolCall = page.getByTestId('playground-tool-call');
    await toolCall.getByTestId('playground-tool-call-name').getByText('get_weather').waitFor();
    const shown = JSON.parse(await toolCall.getByTestId('playground-tool-call-arguments').innerText());
    assert.deepEqual(shown, STANDIN_TOOL_ARGUMENTS);
    const offered = standins.requests.at(-1)!.body;
    assert.deepEqual(offered.tools, [
      { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: schema } },
    ]);

    await page.getByLabel('Result of get_weather').fill('21 °C and sunny');
    await page.getByRole('button', { name: 'Send result' }).click();
    await page.getByTestId('playground-output').getByText('Result noted: 21 °C and sunny').waitFor();
    await page.getByTestId('playground-tokens').waitFor();

    // The call and its result joined the messages, and went to the provider as OpenAI's shapes.
    const sent = standins.requests.at(-1)!.body.messages;
    const callId = sent[2].tool_calls[0].id;
    assert.deepEqual(sent.slice(2), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: callId, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(STANDIN_TOOL_ARGUMENTS) } },
        ],
      },
      { role: 'tool', tool_call_id: callId, content: '21 °C and sunny' },
    ]);
    assert.equal(await page.getByRole('combobox', { name: 'Role of message 4' }).inputValue(), 'tool');
    assert.equal(await page.getByLabel('Tool call id of message 4').inputValue(), callId);
    assert.equal(await page.getByLabel('Message 4', { exact: true }).inputValue(), '21 °C and sunny');
    await page.getByTestId('playground-message-tool-calls').getByText('get_weather').waitFor();
  });

  test('runs two models side by side on the same messages, each answer in its own column', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/playground`);
    await page.getByLabel('Message 2', { exact: true }).fill('Compare us');
    await page.getByRole('button', { name: 'Add model' }).click();
    const columns = page.getByTestId('playground-column');
    assert.equal(await columns.count(), 2);
    const second = columns.nth(1);
    await second.getByRole('combobox', { name: 'Provider' }).click();
    await page.getByRole('option', { name: 'Google Gemini' }).click();
    await second.getByLabel('Model', { exact: true }).fill('gemini-standin');
    const before = standins.requests.length;
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    // Each column streams its own answer, then its own tokens and its own trace.
    for (const [column, tokens] of [
      [columns.nth(0), '21 + 7 = 28'],
      [second, '17 + 8 = 25'],
    ] as const) {
      await column.getByTestId('playground-output').getByText('Echo: Compare us').waitFor();
      await column.getByTestId('playground-tokens').getByText(tokens).waitFor();
    }
    const traces = await Promise.all(
      [0, 1].map((index) => columns.nth(index).getByRole('link', { name: "Open the run's trace" }).getAttribute('href')),
    );
    assert.ok(
      traces.every((href) => /\/projects\/playground\/traces\/[0-9a-f]{32}$/.test(href ?? '')),
      traces.join(', '),
    );
    assert.notEqual(traces[0], traces[1], 'each run is its own trace');
    const sent = standins.requests.slice(before).map((request) => request.path.split('?')[0]);
    assert.deepEqual(sent.sort(), ['/gemini/v1beta/models/gemini-standin:streamGenerateContent', '/openai/chat/completions']);
  });
});
