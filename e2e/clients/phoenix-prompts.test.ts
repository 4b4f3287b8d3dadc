/**
 * The real @arizeai/phoenix-client (6.x) prompt helpers against Sightline: createPrompt (two
 * versions), getPrompt by name, version id and tag, listPrompts, and toSDK("openai") fed to the
 * real `openai` SDK, which calls a stand-in chat completions server streaming its answer (SSE);
 * toSDK("anthropic") fed to the real `@anthropic-ai/sdk` (the version phoenix-client supports)
 * against a stand-in of Anthropic's messages API, streaming too.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { createClient } from '@arizeai/phoenix-client';
import { createPrompt, getPrompt, listPrompts, promptVersion, toSDK } from '@arizeai/phoenix-client/prompts';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';
import { AUTH_ENV, createActiveUser, sessionOf, setupDefaultAdmin, unique } from '../../packages/server/test/helpers/auth.js';

// A stray .env.phoenix must not redirect the client.
process.env.PHOENIX_DISCOVER_CONFIG = 'false';

/** A stand-in for the OpenAI chat completions endpoint: records each request body and streams a fixed answer. */
class FakeOpenAI {
  readonly requests: { path: string; authorization: string | undefined; body: Record<string, unknown> }[] = [];
  private readonly server = http.createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      this.requests.push({ path: request.url ?? '', authorization: request.headers.authorization, body: JSON.parse(text) });
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          created: 1_700_000_000,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      response.write(chunk({ role: 'assistant', content: '' }, null));
      response.write(chunk({ content: 'Bonjour, ' }, null));
      response.write(chunk({ content: 'Ada!' }, null));
      response.write(chunk({}, 'stop'));
      response.end('data: [DONE]\n\n');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A stand-in for Anthropic's messages endpoint: records each request and streams a fixed answer as Anthropic's events. */
async function startFakeAnthropic(): Promise<{
  url: string;
  requests: { path: string; apiKey: unknown; body: Record<string, unknown> }[];
  close(): Promise<void>;
}> {
  const requests: { path: string; apiKey: unknown; body: Record<string, unknown> }[] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      requests.push({ path: request.url ?? '', apiKey: request.headers['x-api-key'], body: JSON.parse(text) });
      const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(
        event('message_start', {
          type: 'message_start',
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-test',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        }),
      );
      response.write(event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
      response.write(
        event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hallo, ' } }),
      );
      response.write(event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Ada!' } }));
      response.write(event('content_block_stop', { type: 'content_block_stop', index: 0 }));
      response.write(
        event('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 4 },
        }),
      );
      response.end(event('message_stop', { type: 'message_stop' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs `action` with console.error captured, as phoenix-client reports swallowed errors there. */
async function quietly<T>(action: () => Promise<T>): Promise<{ value: T; logged: unknown[] }> {
  const logged: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => {
    logged.push(...args);
  };
  try {
    return { value: await action(), logged };
  } finally {
    console.error = original;
  }
}

describeEachDialect(
  '@arizeai/phoenix-client prompts against Sightline',
  (server) => {
    let phoenix: ReturnType<typeof createClient>;
    const fake = new FakeOpenAI();
    let fakeUrl: string;
    before(async () => {
      const admin = await setupDefaultAdmin(server().url);
      // A member's user key: prompts are evaluation data that members manage too.
      const member = await createActiveUser(server().url, sessionOf(server().url, admin), 'member');
      phoenix = createClient({ options: { baseUrl: server().url, headers: { Authorization: `Bearer ${member.key}` } } });
      fakeUrl = await fake.start();
    });
    after(() => fake.close());

    it('creates two versions, reads them by name, version id and tag, and lists the prompt', async () => {
      const name = unique('support-reply');
      const first = await createPrompt({
        client: phoenix,
        name,
        description: 'Replies to a customer',
        metadata: { team: 'support' },
        version: promptVersion({
          modelProvider: 'OPENAI',
          modelName: 'gpt-4o-mini',
          template: [
            { role: 'system', content: 'You answer in {{ language }}.' },
            { role: 'user', content: 'Greet {{name}}.' },
          ],
          invocationParameters: { temperature: 0.3 },
        }),
      });
      assert.match(Buffer.from(first.id, 'base64').toString(), /^PromptVersion:\d+$/);
      assert.equal(first.template_type, 'CHAT');
      assert.equal(first.template_format, 'MUSTACHE');
      assert.deepEqual(first.invocation_parameters, { type: 'openai', openai: { temperature: 0.3 } });

      const second = await createPrompt({
        client: phoenix,
        name,
        version: promptVersion({
          modelProvider: 'OPENAI',
          modelName: 'gpt-4o',
          description: 'warmer',
          template: [{ role: 'user', content: 'Warmly greet {{name}} in {{ language }}.' }],
          invocationParameters: { temperature: 0.9, max_tokens: 50 },
        }),
      });
      assert.notEqual(second.id, first.id);

      const latest = await getPrompt({ client: phoenix, prompt: { name } });
      assert.deepEqual(latest, second);
      const byVersion = await getPrompt({ client: phoenix, prompt: { versionId: first.id } });
      assert.deepEqual(byVersion, first);

      // Tags are set through the REST route (6.14.2 has no helper for it).
      const tagged = await phoenix.POST('/v1/prompt_versions/{prompt_version_id}/tags', {
        params: { path: { prompt_version_id: first.id } },
        body: { name: 'production' },
      });
      assert.equal(tagged.response.status, 204);
      assert.deepEqual(await getPrompt({ client: phoenix, prompt: { name, tag: 'production' } }), first);
      // getPrompt logs the error it swallows and answers null for what does not exist: a 404 each time.
      for (const selector of [{ name, tag: 'staging' }, { name: unique('absent') }]) {
        const { value, logged } = await quietly(() => getPrompt({ client: phoenix, prompt: selector }));
        assert.equal(value, null);
        assert.equal((logged[0] as { status?: number } | undefined)?.status, 404);
      }

      const listed = (await listPrompts({ client: phoenix })).find((prompt) => prompt.name === name);
      assert.ok(listed, 'listPrompts shows the prompt');
      assert.equal(listed.description, 'Replies to a customer');
      assert.deepEqual(listed.metadata, { team: 'support' });
      assert.match(Buffer.from(listed.id, 'base64').toString(), /^Prompt:\d+$/);
    });

    it('renders a stored prompt with toSDK("openai") and the openai SDK sends exactly those messages', async () => {
      const name = unique('translate');
      await createPrompt({
        client: phoenix,
        name,
        version: promptVersion({
          modelProvider: 'OPENAI',
          modelName: 'gpt-4o-mini',
          template: [
            { role: 'system', content: 'Translate into {{ language }}.' },
            { role: 'user', content: 'Say hello to {{name}}, then to {{name}} again.' },
          ],
          invocationParameters: { temperature: 0.1, max_tokens: 64 },
        }),
      });
      const prompt = await getPrompt({ client: phoenix, prompt: { name } });
      assert.ok(prompt);
      const params = toSDK({ sdk: 'openai', prompt, variables: { language: 'French', name: 'Ada' } });
      assert.ok(params, 'toSDK converted the prompt');

      const openai = new OpenAI({ apiKey: 'sk-test', baseURL: fakeUrl, maxRetries: 0 });
      const stream = await openai.chat.completions.create({ ...params, stream: true });
      let answer = '';
      for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? '';
      assert.equal(answer, 'Bonjour, Ada!');

      const sent = fake.requests.at(-1);
      assert.ok(sent);
      assert.equal(sent.path, '/v1/chat/completions');
      assert.equal(sent.authorization, 'Bearer sk-test');
      assert.equal(sent.body.model, 'gpt-4o-mini');
      assert.equal(sent.body.stream, true);
      assert.equal(sent.body.temperature, 0.1);
      assert.equal(sent.body.max_tokens, 64);
      assert.deepEqual(sent.body.messages, [
        { role: 'system', content: 'Translate into French.' },
        { role: 'user', content: 'Say hello to Ada, then to Ada again.' },
      ]);
    });

    it('renders a stored prompt with toSDK("anthropic") and the Anthropic SDK sends exactly those messages', async () => {
      const name = unique('translate-claude');
      await createPrompt({
        client: phoenix,
        name,
        version: promptVersion({
          modelProvider: 'ANTHROPIC',
          modelName: 'claude-test',
          template: [
            { role: 'system', content: 'Translate into {{ language }}.' },
            { role: 'user', content: 'Say hello to {{name}}.' },
          ],
          invocationParameters: { max_tokens: 128, temperature: 0.3 },
        }),
      });
      const prompt = await getPrompt({ client: phoenix, prompt: { name } });
      assert.ok(prompt);
      const params = toSDK({ sdk: 'anthropic', prompt, variables: { language: 'German', name: 'Ada' } });
      assert.ok(params, 'toSDK converted the prompt');

      const fakeAnthropic = await startFakeAnthropic();
      try {
        const anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: fakeAnthropic.url, maxRetries: 0 });
        const stream = await anthropic.messages.create({ ...params, stream: true });
        let answer = '';
        for await (const event of stream) {
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') answer += event.delta.text;
        }
        assert.equal(answer, 'Hallo, Ada!');
        const sent = fakeAnthropic.requests.at(-1);
        assert.ok(sent);
        assert.equal(sent.path, '/v1/messages');
        assert.equal(sent.apiKey, 'sk-ant-test');
        assert.deepEqual([sent.body.model, sent.body.max_tokens, sent.body.temperature, sent.body.stream], ['claude-test', 128, 0.3, true]);
        // Exactly what toSDK produced (phoenix-client 6.14.2 sends the system message as a user message), rendered.
        const { stream: _stream, ...sentParams } = sent.body;
        assert.deepEqual(sentParams, JSON.parse(JSON.stringify(params)));
        const text = JSON.stringify(sent.body.messages);
        assert.ok(text.includes('Translate into German.') && text.includes('Say hello to Ada.'), 'both messages, rendered');
      } finally {
        await fakeAnthropic.close();
      }
    });
  },
  AUTH_ENV,
);
