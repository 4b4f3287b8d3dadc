/**
 * Traces of the Vercel AI SDK and of OpenTelemetry's GenAI conventions in Debian's Chromium
 * (docs/ingest.md, "Conventions"), on a desktop and on a phone: the LLM span shows its model,
 * token counts and messages (a GenAI span's derived when read), and the trace page fits a
 * 390 px screen with the span selected (its actions wrap, the span tree's name column shrinks).
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newSpanId, newTraceId, request, sendSpans } from '../../packages/server/test/helpers/query.js';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { launchChromium, openPage, uiTest, type OpenedPage } from './harness.js';

const QUESTION = 'Weather in Paris tomorrow morning, and should I take an umbrella?';
const ANSWER = 'Light rain until noon: take an umbrella.';
const PROVIDER_METADATA = JSON.stringify({
  openai: { reasoningTokens: 0, acceptedPredictionTokens: 0, rejectedPredictionTokens: 0, cachedPromptTokens: 0 },
});

/** An AI SDK generateText call as the SDK's telemetry records it: the outer call and its provider call. */
async function sendAiSdkTrace(server: TestServer, project: string): Promise<string> {
  const traceId = newTraceId();
  const root = newSpanId();
  const start = BigInt(Date.now() - 10_000) * 1_000_000n;
  await sendSpans(server.url, project, [
    {
      traceId,
      spanId: root,
      name: 'ai.generateText',
      start,
      duration: 2_000_000_000n,
      attributes: {
        'operation.name': 'ai.generateText weather-answer',
        'ai.operationId': 'ai.generateText',
        'ai.model.provider': 'openai.chat',
        'ai.model.id': 'gpt-4o-mini',
        'ai.prompt': JSON.stringify({ system: 'You are a weather assistant', prompt: QUESTION }),
        'ai.response.text': ANSWER,
        'ai.response.providerMetadata': PROVIDER_METADATA,
      },
    },
    {
      traceId,
      parentSpanId: root,
      name: 'ai.generateText.doGenerate',
      start: start + 1_000_000n,
      duration: 1_900_000_000n,
      attributes: {
        'operation.name': 'ai.generateText.doGenerate weather-answer',
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.model.provider': 'openai.chat',
        'ai.model.id': 'gpt-4o-mini',
        'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: QUESTION }] }]),
        'ai.response.text': ANSWER,
        'ai.response.id': 'chatcmpl-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
        'ai.response.providerMetadata': PROVIDER_METADATA,
        'ai.usage.inputTokens': 70,
        'ai.usage.outputTokens': 12,
        'gen_ai.system': 'openai.chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        'gen_ai.usage.input_tokens': 70,
        'gen_ai.usage.output_tokens': 12,
      },
    },
  ]);
  return traceId;
}

/** A chat span of GenAI conventions 1.37 (messages as JSON attributes, stored once and expanded when read). */
async function sendGenAiTrace(server: TestServer, project: string): Promise<string> {
  const traceId = newTraceId();
  await sendSpans(server.url, project, [
    {
      traceId,
      name: 'chat gpt-4o-mini',
      start: BigInt(Date.now() - 8_000) * 1_000_000n,
      duration: 900_000_000n,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 41,
        'gen_ai.usage.output_tokens': 9,
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: QUESTION }] }]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: ANSWER }], finish_reason: 'stop' },
        ]),
      },
    },
  ]);
  return traceId;
}

/** Opens a trace and selects its LLM span. */
async function openLlmSpan(page: Page, server: TestServer, projectId: string, traceId: string, spanName: string) {
  await page.goto(`${server.url}/projects/${projectId}/traces/${traceId}`);
  await page.getByRole('treeitem', { name: spanName }).click();
  await page.getByTestId('span-details').getByRole('heading', { name: spanName }).waitFor();
}

let browser: Browser;
let server: TestServer;
let projectId: string;
const traces: { aiSdk: string; genAi: string } = { aiSdk: '', genAi: '' };
before(async () => {
  browser = await launchChromium();
  server = await startTestServer('sqlite', { SERVICE_LOG_LEVEL: 'warn' });
  traces.aiSdk = await sendAiSdkTrace(server, 'genai-ui');
  traces.genAi = await sendGenAiTrace(server, 'genai-ui');
  const projects = await request(server.url, 'GET', '/v1/projects');
  projectId = (projects.body.data as { id: string; name: string }[]).find((project) => project.name === 'genai-ui')!.id;
});
after(async () => {
  await server?.close();
  await browser?.close();
});

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`UI: AI SDK and GenAI traces at ${viewport.width} px`, () => {
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);
    before(async () => {
      opened = await openPage(browser, { viewport });
    });
    after(async () => {
      await opened?.close();
    });

    const fitsTheScreen = async (page: Page) => {
      const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      assert.ok(width <= viewport.width, `the page is ${width} px wide on a ${viewport.width} px screen`);
    };

    test("the AI SDK's provider call reads as an LLM span: model, tokens, messages, answer", async () => {
      const { page } = opened;
      await openLlmSpan(page, server, projectId, traces.aiSdk, 'ai.generateText.doGenerate');
      const details = page.getByTestId('span-details');
      await details.getByText('gpt-4o-mini-2024-07-18').first().waitFor();
      await details.getByText(QUESTION).first().waitFor();
      await details.getByText(ANSWER).first().waitFor();
      await details.getByText('82', { exact: true }).first().waitFor();
      await fitsTheScreen(page);
    });

    test('a GenAI chat span shows the messages derived from its JSON attributes', async () => {
      const { page } = opened;
      await openLlmSpan(page, server, projectId, traces.genAi, 'chat gpt-4o-mini');
      const details = page.getByTestId('span-details');
      await details.getByText('Input messages', { exact: false }).first().waitFor();
      await details.getByText(QUESTION).first().waitFor();
      await details.getByText(ANSWER).first().waitFor();
      await details.getByText('50', { exact: true }).first().waitFor();
      await fitsTheScreen(page);
    });
  });
}
