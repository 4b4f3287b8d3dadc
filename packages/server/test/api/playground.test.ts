/**
 * The playground API (docs/playground.md) driven by the real `openai` SDK: Sightline's
 * OpenAI-compatible /v1/chat/completions, streaming and not, against stand-ins of the OpenAI
 * and Anthropic APIs that speak their wire formats (server-sent events included); each run
 * traced as an LLM span in the playground project; provider keys stored encrypted by admins,
 * absent from the database in clear, from every answer and from every log line; provider
 * refusals and failures as clear 4xx / 503 answers.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { LOCAL_SECRET_FILE, localSecret } from '../../src/playground/local-secret.js';
import {
  AUTH_ENV,
  bearerClient,
  call,
  createActiveUser,
  createSystemKey,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  type ApiClient,
} from '../helpers/auth.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { describeEachDialect } from '../helpers/server.js';

const OPENAI_KEY = 'sk-test-openai-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-test-fedcba9876543210';

interface Recorded {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A stand-in of the OpenAI and Anthropic APIs on loopback, recording what it was sent. */
async function startProviders(): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const sse = (response: http.ServerResponse, events: string[]) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) response.write(event);
    response.end();
  };
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const body = text ? JSON.parse(text) : null;
      requests.push({ path: request.url ?? '', headers: request.headers, body });
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (request.url === '/openai/chat/completions') {
        const sentKey = String(request.headers.authorization).slice(7);
        if (request.headers.authorization !== `Bearer ${OPENAI_KEY}`) {
          return json(401, {
            error: {
              // As some providers do: the key as sent, normalised, and inside an encoded credential.
              message: `Incorrect API key provided: ${sentKey}; normalised: ${sentKey.toUpperCase()}; credential: ${Buffer.from(`user:${sentKey}`).toString('base64')}`,
              type: 'invalid_request_error',
            },
          });
        }
        if (body.model === 'missing-model') {
          return json(404, { error: { message: 'The model `missing-model` does not exist', type: 'invalid_request_error' } });
        }
        if (body.model === 'broken-model') return json(500, { error: { message: 'The server had an error', type: 'server_error' } });
        const base = { id: 'chatcmpl-standin', object: 'chat.completion.chunk', created: 1, model: body.model };
        if (!body.stream) {
          return json(200, {
            id: 'chatcmpl-standin',
            object: 'chat.completion',
            created: 1,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
          });
        }
        return sse(response, [
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`,
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] })}\n\n`,
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] })}\n\n`,
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
          `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } })}\n\n`,
          'data: [DONE]\n\n',
        ]);
      }
      if (request.url === '/anthropic/v1/messages') {
        // Anthropic takes the key as x-api-key or, from newer SDKs, as a bearer token.
        if (request.headers['x-api-key'] !== ANTHROPIC_KEY && request.headers.authorization !== `Bearer ${ANTHROPIC_KEY}`) {
          return json(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
        }
        const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
        return sse(response, [
          event('message_start', {
            type: 'message_start',
            message: {
              id: 'msg_standin',
              type: 'message',
              role: 'assistant',
              model: body.model,
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 12, output_tokens: 1 },
            },
          }),
          event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Bonjour' } }),
          event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' !' } }),
          event('content_block_stop', { type: 'content_block_stop', index: 0 }),
          event('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 4 },
          }),
          event('message_stop', { type: 'message_stop' }),
        ]);
      }
      json(404, { error: { message: `no route ${request.url}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A loopback server answering every request with `answer()`, recording what it was sent. */
async function startRecorder(
  answer: () => { status: number; location?: string; body?: unknown },
): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers, body: text });
      const { status, location, body } = answer();
      response.writeHead(status, { 'content-type': 'application/json', ...(location ? { location } : {}) });
      response.end(JSON.stringify(body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

for (const dialect of DIALECTS) {
  describe(`playground [${dialect}]`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let providers: Awaited<ReturnType<typeof startProviders>>;
    let admin: ApiClient;
    let member: ApiClient;
    let memberKey: string;
    const logLines: string[] = [];

    before(async () => {
      providers = await startProviders();
      database = await createTestDatabase(dialect);
      const config = loadConfig({
        ...AUTH_ENV,
        // The stand-ins listen on loopback, which base URLs may name only when the operator allows it.
        SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true',
        SERVICE_WORKING_DIR: database.workingDir,
        SERVICE_PORT: '0',
        SERVICE_GRPC_PORT: '0',
        ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
      });
      // Every log line at the most verbose level, to show no key is ever written.
      const sink = new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      });
      server = await startServer(config, pino({ level: 'trace' }, sink));
      const adminUser = await setupDefaultAdmin(server.url);
      admin = sessionOf(server.url, adminUser);
      memberKey = (await createActiveUser(server.url, admin, 'member')).key;
      member = bearerClient(server.url, memberKey);
    });
    after(async () => {
      await server?.close();
      await database?.drop();
      await providers?.close();
    });

    const sdk = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: memberKey, maxRetries: 0 });

    it('lets admins store provider keys, encrypted; no answer returns them', async () => {
      const body = {
        secrets: [
          { key: 'OPENAI_API_KEY', value: OPENAI_KEY },
          { key: 'OPENAI_BASE_URL', value: `${providers.url}/openai` },
          { key: 'ANTHROPIC_API_KEY', value: ANTHROPIC_KEY },
          { key: 'ANTHROPIC_BASE_URL', value: `${providers.url}/anthropic` },
        ],
      };
      expectStatus(await member.request('PUT', '/v1/secrets', { body }), 403);
      const stored = expectStatus(await admin.request('PUT', '/v1/secrets', { body }), 200);
      assert.deepEqual(stored.body.data.upserted_keys.sort(), [
        'ANTHROPIC_API_KEY',
        'ANTHROPIC_BASE_URL',
        'OPENAI_API_KEY',
        'OPENAI_BASE_URL',
      ]);
      const listed = expectStatus(await admin.get('/v1/secrets'), 200);
      const openai = listed.body.data.find((status: { key: string }) => status.key === 'OPENAI_API_KEY');
      assert.deepEqual([openai.stored, openai.from_environment], [true, false]);
      const everything = JSON.stringify([stored.body, listed.body, (await admin.get('/openapi.json')).body]);
      assert.ok(!everything.includes(OPENAI_KEY) && !everything.includes(ANTHROPIC_KEY), 'no answer holds a key');

      // At rest: only ciphertext, in the database file (and its WAL) or the PostgreSQL table.
      let atRest: string;
      if (database.url) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        atRest = JSON.stringify((await client.query('SELECT * FROM secrets')).rows);
        await client.end();
      } else {
        atRest = fs
          .readdirSync(database.workingDir)
          .filter((name) => name.startsWith('sightline.db'))
          .map((name) => fs.readFileSync(path.join(database.workingDir, name)).toString('latin1'))
          .join('');
      }
      assert.ok(atRest.length > 0);
      assert.ok(!atRest.includes(OPENAI_KEY) && !atRest.includes(ANTHROPIC_KEY), 'no key in clear at rest');
      assert.ok(!atRest.includes(Buffer.from(OPENAI_KEY).toString('base64')), 'nor merely encoded');

      const unknown = expectStatus(await admin.request('PUT', '/v1/secrets', { body: { secrets: [{ key: 'PATH', value: 'x' }] } }), 422);
      assert.match(unknown.body.detail, /unknown secret "PATH"/);
    });

    it('completes through OpenAI without streaming; the run is traced in the playground project', async () => {
      const { data, response } = await sdk()
        .chat.completions.create({
          model: 'openai:gpt-test',
          messages: [{ role: 'user', content: 'Say hello' }],
          temperature: 0.2,
          response_format: { type: 'json_object' },
        })
        .withResponse();
      assert.equal(data.choices[0]!.message.content, 'Hello');
      assert.deepEqual(data.usage, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 });
      const sent = providers.requests.at(-1)!;
      assert.equal(sent.headers.authorization, `Bearer ${OPENAI_KEY}`, 'the stored key, decrypted, reaches the provider');
      assert.deepEqual(
        [sent.body.model, sent.body.temperature, sent.body.messages],
        ['gpt-test', 0.2, [{ role: 'user', content: 'Say hello' }]],
      );
      assert.deepEqual(sent.body.response_format, { type: 'json_object' }, 'response_format is passed through');

      const traceId = response.headers.get('x-sightline-trace-id')!;
      assert.match(traceId, /^[0-9a-f]{32}$/);
      const trace = expectStatus(await member.get(`/v1/projects/playground/traces/${traceId}`), 200).body.data;
      const span = trace.spans[0];
      assert.equal(span.span_kind, 'LLM');
      assert.deepEqual(
        [span.attributes['llm.model_name'], span.attributes['llm.provider'], span.attributes['output.value'], span.token_count_total],
        ['gpt-test', 'openai', 'Hello', 11],
      );
      assert.equal(span.attributes['llm.input_messages.0.message.content'], 'Say hello');
    });

    it('streams from OpenAI and from Anthropic through the OpenAI SDK', async () => {
      const collect = async (model: string) => {
        const stream = await sdk().chat.completions.create({
          model,
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Greet me' },
          ],
          stream: true,
        });
        const parts: string[] = [];
        let usage: unknown = null;
        for await (const chunk of stream) {
          const text = chunk.choices[0]?.delta?.content;
          if (text) parts.push(text);
          if (chunk.usage) usage = chunk.usage;
        }
        return { parts, usage };
      };
      const openai = await collect('openai:gpt-test');
      assert.deepEqual(openai.parts, ['Hel', 'lo'], 'tokens arrive as the provider streams them');
      assert.deepEqual(openai.usage, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 });

      const anthropic = await collect('anthropic:claude-test');
      assert.deepEqual(anthropic.parts, ['Bonjour', ' !']);
      assert.deepEqual(anthropic.usage, { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
      const sent = providers.requests.at(-1)!;
      assert.ok(
        [sent.headers['x-api-key'], sent.headers.authorization].some(
          (value) => value === ANTHROPIC_KEY || value === `Bearer ${ANTHROPIC_KEY}`,
        ),
      );
      assert.deepEqual(
        [sent.body.system, sent.body.messages, sent.body.max_tokens],
        ['Be brief.', [{ role: 'user', content: 'Greet me' }], 1024],
      );

      const spans = expectStatus(await member.get('/v1/projects/playground/spans?limit=100'), 200).body.data as any[];
      const claude = spans.find((span) => span.attributes['llm.model_name'] === 'claude-test');
      assert.deepEqual(
        [claude?.attributes['output.value'], claude?.token_count_prompt, claude?.token_count_completion],
        ['Bonjour !', 12, 4],
      );
    });

    it('answers bad requests and provider failures clearly, never with a key or a 500', async () => {
      const failure = async (model: string) => {
        try {
          await sdk().chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
        } catch (error) {
          return error as { status: number; message: string };
        }
        assert.fail(`${model} should fail`);
      };
      const unknown = await failure('mystery:model');
      assert.equal(unknown.status, 422);
      assert.match(unknown.message, /model must be "provider:model" with a provider among openai/);
      const noKey = await failure('groq:llama');
      assert.deepEqual([noKey.status, /no API key for groq: set GROQ_API_KEY/.test(noKey.message)], [422, true]);
      // A member (and a system key) sees the provider's status, not what it said: that may describe its account or network.
      const missing = await failure('openai:missing-model');
      assert.equal(missing.status, 422);
      assert.match(missing.message, /^422 openai answered 404; an admin can see its message in the server log$/);
      const broken = await failure('openai:broken-model');
      assert.equal(broken.status, 503);
      assert.match(broken.message, /openai answered 500; an admin can see its message in the server log$/);
      const system = bearerClient(server.url, (await createSystemKey(admin)).key);
      const missingForSystem = expectStatus(
        await system.post('/v1/chat/completions', { model: 'openai:missing-model', messages: [{ role: 'user', content: 'hi' }] }),
        422,
      );
      assert.equal(missingForSystem.body.detail, 'openai answered 404; an admin can see its message in the server log');
      // An admin sees it.
      const missingForAdmin = expectStatus(
        await admin.post('/v1/chat/completions', { model: 'openai:missing-model', messages: [{ role: 'user', content: 'hi' }] }),
        422,
      );
      assert.match(missingForAdmin.body.detail, /^openai answered 404: .*The model `missing-model` does not exist/);
      // The runs' spans, which every member reads, hold the status only.
      const spans = expectStatus(await member.get('/v1/projects/playground/spans?limit=100'), 200).body.data as any[];
      const failedRuns = spans.filter((span) => ['missing-model', 'broken-model'].includes(span.attributes['llm.model_name']));
      assert.equal(failedRuns.length, 4);
      for (const span of failedRuns) {
        assert.equal(span.status_code, 'ERROR');
        assert.match(span.status_message, /^openai answered (404|500); an admin can see its message in the server log$/);
      }
      assert.ok(logLines.join('').includes('The model `missing-model` does not exist'), "the provider's message is in the server log");

      // A wrong stored key: the provider's refusal is shown, and the key is not echoed back.
      expectStatus(
        await admin.request('PUT', '/v1/secrets', { body: { secrets: [{ key: 'OPENAI_API_KEY', value: 'sk-wrong-key-42' }] } }),
        200,
      );
      const refused = await failure('openai:gpt-test');
      assert.equal(refused.status, 422);
      assert.match(refused.message, /openai answered 401; an admin can see its message in the server log/);
      const refusedForAdmin = expectStatus(
        await admin.post('/v1/chat/completions', { model: 'openai:gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
        422,
      );
      assert.match(
        refusedForAdmin.body.detail,
        /openai answered 401: Incorrect API key provided: \[key\]; normalised: \[key\]; credential: /,
      );
      for (const echo of ['sk-wrong-key-42', 'SK-WRONG-KEY-42', Buffer.from('user:sk-wrong-key-42').toString('base64').slice(4, 20)]) {
        assert.ok(!refusedForAdmin.body.detail.includes(echo), `no echo of the key: ${echo}`);
      }
      expectStatus(
        await admin.request('PUT', '/v1/secrets', { body: { secrets: [{ key: 'OPENAI_BASE_URL', value: 'http://127.0.0.1:9/v1' }] } }),
        200,
      );
      const unreachable = await failure('openai:gpt-test');
      assert.equal(unreachable.status, 503);
      assert.match(unreachable.message, /openai could not be reached; an admin can see why in the server log$/);

      const empty = expectStatus(await member.post('/v1/chat/completions', { model: 'openai:gpt-test', messages: [] }), 422);
      assert.match(empty.body.detail, /messages/);

      const logs = logLines.join('');
      assert.ok(logs.length > 0, 'the server logged at trace level');
      for (const secret of [OPENAI_KEY, ANTHROPIC_KEY, 'sk-wrong-key-42', 'SK-WRONG-KEY-42']) {
        assert.ok(!logs.includes(secret), 'no key in any log line');
      }
    });

    it('reads a compressed, streamed answer, as providers send one to clients that ask', async () => {
      const chunk = (delta: object, usage: object | null = null) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: Object.keys(delta).length ? [{ index: 0, delta, finish_reason: null }] : [], usage })}\n\n`;
      const events = [
        chunk({ role: 'assistant', content: 'Bonjour ' }),
        chunk({ content: 'tout le monde' }),
        chunk({}, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }),
        'data: [DONE]\n\n',
      ].join('');
      let acceptEncoding = '';
      const provider = http.createServer((request, response) => {
        acceptEncoding = String(request.headers['accept-encoding']);
        request.resume();
        request.on('end', () => {
          response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
          response.end(zlib.gzipSync(events));
        });
      });
      await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(provider.address() as { port: number }).port}/v1`;
        expectStatus(
          await admin.request('PUT', '/v1/secrets', { body: { secrets: [{ key: 'OPENAI_COMPATIBLE_BASE_URL', value: url }] } }),
          200,
        );
        const answer = await admin.post('/v1/chat/completions', {
          model: 'openai_compatible:m',
          messages: [{ role: 'user', content: 'hi' }],
        });
        expectStatus(answer, 200);
        assert.equal(answer.body.choices[0].message.content, 'Bonjour tout le monde');
        assert.equal(answer.body.usage.total_tokens, 7);
        assert.match(acceptEncoding, /gzip/);
      } finally {
        await new Promise((resolve) => provider.close(resolve));
      }
    });

    it("follows no provider's redirect: a 307 to another origin fails clearly and the other origin is never called", async () => {
      const elsewhere = await startRecorder(() => ({ status: 200, body: { id: 'x', object: 'chat.completion', choices: [] } }));
      const redirector = await startRecorder(() => ({ status: 307, location: `${elsewhere.url}/v1/chat/completions` }));
      try {
        const body = {
          secrets: [
            { key: 'OPENAI_COMPATIBLE_BASE_URL', value: `${redirector.url}/v1` },
            { key: 'ANTHROPIC_BASE_URL', value: redirector.url },
          ],
        };
        expectStatus(await admin.request('PUT', '/v1/secrets', { body }), 200);
        for (const [model, provider] of [
          ['openai_compatible:m', 'openai_compatible'],
          ['anthropic:claude-test', 'anthropic'],
        ] as const) {
          const answer = await admin.post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });
          expectStatus(answer, 422, model);
          assert.equal(
            answer.body.detail,
            `${provider} answered 307: a redirect to ${elsewhere.url} (another origin), which Sightline does not follow: ` +
              `set ${provider.toUpperCase()}_BASE_URL to the address that answers`,
          );
        }
        assert.equal(redirector.requests.length, 2, 'each provider was called once');
        assert.equal(elsewhere.requests.length, 0, 'the redirect was not followed');
      } finally {
        await redirector.close();
        await elsewhere.close();
      }
    });
  });
}

/** Base URLs an admin may not store (docs/playground.md, "Where the server may call"), with what the 422 must say. */
const HOSTILE_BASE_URLS: [string, RegExp][] = [
  ['file:///etc/passwd', /must be an http:\/\/ or https:\/\/ URL .*got a file: URL/],
  ['gopher://127.0.0.1:6379/_FLUSHALL', /must be an http:\/\/ or https:\/\/ URL/],
  ['not a url', /must be an http:\/\/ or https:\/\/ URL such as/],
  ['http://169.254.169.254/latest/meta-data/', /cloud metadata address/],
  ['http://[fd00:ec2::254]/latest', /cloud metadata address/],
  ['http://metadata.google.internal/computeMetadata/v1', /cloud metadata address/],
  ['http://[::ffff:169.254.169.254]/', /cloud metadata address/],
  [
    'http://127.0.0.1:11434/v1',
    /loopback or link-local address; an operator may allow those with SERVICE_ALLOW_PRIVATE_PROVIDER_URLS=true/,
  ],
  ['http://0x7f000001/v1', /loopback or link-local/],
  ['http://localhost:8000/v1', /loopback or link-local/],
  ['http://[::1]:8000/v1', /loopback or link-local/],
  ['http://169.254.10.20/v1', /loopback or link-local/],
  ['http://[fe80::1]/v1', /loopback or link-local/],
  ['http://0.0.0.0:8000/v1', /loopback or link-local/],
  ['https://user:secret@api.example.com/v1', /must not hold a user name or password/],
  ['https://api.example.com/v1?api-version=1', /without a query or fragment/],
  ['https://api.example.com/v1#top', /without a query or fragment/],
];

describeEachDialect(
  'playground: where the server may call, with authentication on',
  (server) => {
    let admin: ApiClient;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      admin = sessionOf(server().url, await setupDefaultAdmin(server().url));
      member = bearerClient(server().url, (await createActiveUser(server().url, admin, 'member')).key);
      system = bearerClient(server().url, (await createSystemKey(admin)).key);
    });

    it('calls no provider nobody configured: ollama has no loopback default with authentication on', async () => {
      for (const [who, client] of [
        ['member', member],
        ['system key', system],
        ['admin', admin],
      ] as const) {
        const answer = await client.post('/v1/chat/completions', { model: 'ollama:llama3', messages: [{ role: 'user', content: 'hi' }] });
        // Before, the server called http://127.0.0.1:11434 and answered 503 "could not be reached".
        expectStatus(answer, 422, who);
        assert.match(answer.body.detail, /^ollama needs a base URL: set OLLAMA_BASE_URL in settings or the environment/, who);
      }
    });

    it('refuses hostile base URLs when stored (422 naming the setting), and stores good ones', async () => {
      for (const [value, reason] of HOSTILE_BASE_URLS) {
        const answer = await admin.request('PUT', '/v1/secrets', { body: { secrets: [{ key: 'OPENAI_COMPATIBLE_BASE_URL', value }] } });
        expectStatus(answer, 422, value);
        assert.match(answer.body.detail, /^OPENAI_COMPATIBLE_BASE_URL /, value);
        assert.match(answer.body.detail, reason, value);
        assert.ok(!answer.body.detail.includes('secret@'), 'credentials in a URL are not echoed');
      }
      const listed = expectStatus(await admin.get('/v1/secrets'), 200).body.data as { key: string; stored: boolean }[];
      assert.equal(listed.find((status) => status.key === 'OPENAI_COMPATIBLE_BASE_URL')?.stored, false, 'nothing was stored');

      // Private LAN ranges are allowed by default: self-hosters run models on their network.
      for (const value of ['https://api.example.com/v1', 'http://10.1.2.3:8000/v1', 'http://192.168.1.20/v1', 'http://[fd12::5]/v1']) {
        const body = { secrets: [{ key: 'OPENAI_COMPATIBLE_BASE_URL', value }] };
        expectStatus(await admin.request('PUT', '/v1/secrets', { body }), 200, value);
      }
    });

    it('refuses a hostile base URL from the environment at call time', async () => {
      process.env.XAI_API_KEY = 'sk-xai-test';
      try {
        for (const value of ['http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', 'http://127.0.0.1:9/v1']) {
          process.env.XAI_BASE_URL = value;
          const answer = await member.post('/v1/chat/completions', { model: 'xai:grok', messages: [{ role: 'user', content: 'hi' }] });
          expectStatus(answer, 422, value);
          assert.match(answer.body.detail, /^XAI_BASE_URL /, value);
        }
      } finally {
        delete process.env.XAI_API_KEY;
        delete process.env.XAI_BASE_URL;
      }
    });
  },
  AUTH_ENV,
);

describeEachDialect('playground: a login-free local server keeps the ollama default', (server) => {
  it('calls ollama at its loopback default', async () => {
    const answer = await call(server().url, null, 'POST', '/v1/chat/completions', {
      body: { model: 'ollama:llama3', messages: [{ role: 'user', content: 'hi' }] },
    });
    // Nothing listens on the default port here: the call was made, and failed to connect.
    expectStatus(answer, 503);
    assert.match(answer.body.detail, /^ollama could not be reached/);
  });

  it('stores provider keys without SERVICE_SECRET on SQLite, under a key kept in the working directory', async () => {
    const body = { secrets: [{ key: 'OPENAI_API_KEY', value: 'sk-local-quick-start-1' }] };
    const answer = await call(server().url, null, 'PUT', '/v1/secrets', { body });
    const file = path.join(server().database.workingDir, LOCAL_SECRET_FILE);
    if (server().dialect === 'postgres') {
      // Replicas share the database: each would make a key of its own, so SERVICE_SECRET is needed.
      expectStatus(answer, 422);
      assert.match(answer.body.detail, /needs SERVICE_SECRET/);
      assert.equal(fs.existsSync(file), false);
      return;
    }
    expectStatus(answer, 200);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'readable by the server only');
    const key = fs.readFileSync(file, 'utf8').trim();
    assert.ok(key.length >= 32);
    // A second server on the same directory keeps the key, so the stored value still opens.
    assert.equal(localSecret(server().database.workingDir), key);
    const listed = expectStatus(await call(server().url, null, 'GET', '/v1/secrets'), 200).body.data as { key: string; stored: boolean }[];
    assert.equal(listed.find((secret) => secret.key === 'OPENAI_API_KEY')?.stored, true);
  });

  it('refuses loopback base URLs an operator did not allow, even without authentication', async () => {
    const answer = await call(server().url, null, 'PUT', '/v1/secrets', {
      body: { secrets: [{ key: 'OLLAMA_BASE_URL', value: 'http://127.0.0.1:11434/v1' }] },
    });
    expectStatus(answer, 422);
    assert.match(answer.body.detail, /SERVICE_ALLOW_PRIVATE_PROVIDER_URLS=true/);
  });
});
