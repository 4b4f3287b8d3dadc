/**
 * Sightline's MCP server (docs/mcp.md) driven by the official SDK's own client, with sign-in on:
 * over streamable HTTP at /mcp with an API key, `tools/list` and a `tools/call` of every tool;
 * a call refused by the API comes back as a tool error with its sentence; without a key the
 * endpoint answers 401; and `sightline mcp` on stdio, spawned as an assistant would, answers too.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AUTH_ENV, setupDefaultAdmin, unique } from '../../packages/server/test/helpers/auth.js';
import { at, newTraceId, sendSpans, waitForSearch } from '../../packages/server/test/helpers/query.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';

const CLI = path.resolve(import.meta.dirname, '../../packages/cli/bin/sightline.js');

type ToolAnswer = { content: { type: string; text: string }[]; isError?: boolean };

const TOOLS = [
  'add_dataset_examples',
  'create_prompt',
  'get_dataset_examples',
  'get_experiment_results',
  'get_prompt',
  'get_session',
  'get_trace',
  'list_datasets',
  'list_projects',
  'search_spans',
];

describeEachDialect(
  'MCP server',
  (server) => {
    let key = '';
    let client: Client;
    const project = unique('mcp-project');
    const traceId = newTraceId();
    const session = unique('mcp-session');
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as ToolAnswer;
      return { ...result, text: result.content.map((part) => part.text).join('') };
    };
    const json = async (name: string, args: Record<string, unknown>) => {
      const result = await call(name, args);
      assert.ok(!result.isError, `${name}: ${result.text}`);
      return JSON.parse(result.text) as { data: unknown };
    };

    before(async () => {
      key = (await setupDefaultAdmin(server().url)).key;
      await sendSpans(
        server().url,
        project,
        [
          {
            traceId,
            name: 'chat-turn',
            kind: 'CHAIN',
            start: at(0),
            attributes: { 'input.value': 'my parcel never arrived', 'output.value': 'Sorry!', 'session.id': session },
          },
        ],
        { authorization: `Bearer ${key}` },
      );
      await waitForSearch(server().url, project, 'parcel', { headers: { authorization: `Bearer ${key}` } });
      client = new Client({ name: 'sightline-tests', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server().url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
      );
    });

    it('lists every tool, with input schemas', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS);
      const search = tools.find((tool) => tool.name === 'search_spans')!;
      assert.ok('filter' in (search.inputSchema.properties ?? {}));
      assert.deepEqual(search.inputSchema.required, ['project']);
    });

    it('reads projects, spans, traces and sessions', async () => {
      const projects = (await json('list_projects', { limit: 100 })).data as { name: string }[];
      assert.ok(projects.some((item) => item.name === project));
      const spans = (await json('search_spans', { project, search: 'parcel', filter: "span_kind == 'CHAIN'" })).data as {
        context: { trace_id: string };
      }[];
      assert.deepEqual(
        spans.map((span) => span.context.trace_id),
        [traceId],
      );
      const trace = (await json('get_trace', { trace_id: traceId })).data as { trace_id: string; spans: unknown[] };
      assert.equal(trace.trace_id, traceId);
      assert.equal(trace.spans.length, 1);
      const found = (await json('get_session', { session_id: session })).data as { session_id: string; trace_count: number };
      assert.equal(found.session_id, session);
      assert.equal(found.trace_count, 1);
    });

    it("answers the API's refusal as a tool error", async () => {
      const bad = await call('search_spans', { project, filter: 'latency_ms >' });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /^HTTP 422: invalid span query condition/);
      const missing = await call('get_trace', { trace_id: '0'.repeat(32) });
      assert.equal(missing.isError, true);
      assert.match(missing.text, /^HTTP 404: trace .* not found/);
    });

    it('adds dataset examples, reads them back and an experiment over them', async () => {
      const name = unique('mcp-dataset');
      await json('add_dataset_examples', { dataset_name: name, examples: [{ input: { q: 'a' }, output: { a: 1 } }] });
      await json('add_dataset_examples', { dataset_name: name, examples: [{ input: { q: 'b' }, output: { a: 2 }, metadata: { n: 2 } }] });
      const datasets = (await json('list_datasets', { limit: 100 })).data as { id: string; name: string; example_count: number }[];
      const dataset = datasets.find((item) => item.name === name)!;
      assert.equal(dataset.example_count, 2, 'the second call appended');
      const examples = (await json('get_dataset_examples', { dataset_id: dataset.id })).data as {
        examples: { id: string; input: { q: string } }[];
      };
      assert.deepEqual(examples.examples.map((example) => example.input.q).sort(), ['a', 'b']);

      // An experiment with one run, made through the API as a runner would.
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const created = await fetch(`${server().url}/v1/datasets/${dataset.id}/experiments`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'mcp-run' }),
      });
      const experimentId = ((await created.json()) as { data: { id: string } }).data.id;
      const run = await fetch(`${server().url}/v1/experiments/${experimentId}/runs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          dataset_example_id: examples.examples[0]!.id,
          output: { answer: 'forty-two' },
          repetition_number: 1,
          start_time: new Date().toISOString(),
          end_time: new Date().toISOString(),
        }),
      });
      assert.equal(run.status, 200, await run.text());
      const results = await call('get_experiment_results', { experiment_id: experimentId });
      assert.ok(!results.isError, results.text);
      assert.match(results.text, /forty-two/);
    });

    it('creates a prompt and gets it by name and by tag', async () => {
      const name = unique('mcp-prompt').toLowerCase();
      const created = (await json('create_prompt', {
        name,
        model_name: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Summarise {{text}}' }],
      })) as { data: { id: string } };
      const latest = (await json('get_prompt', { name })).data as { id: string; template: { messages: { content: unknown }[] } };
      assert.equal(latest.id, created.data.id);
      assert.equal(latest.template.messages[0]!.content, 'Summarise {{text}}');
      const tagged = await fetch(`${server().url}/v1/prompt_versions/${encodeURIComponent(created.data.id)}/tags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'production' }),
      });
      assert.equal(tagged.status, 204);
      assert.equal(((await json('get_prompt', { name, tag: 'production' })).data as { id: string }).id, created.data.id);
    });

    it('refuses a caller without a key', async () => {
      const anonymous = await fetch(`${server().url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(anonymous.status, 401);
    });

    it('serves the same tools on stdio (sightline mcp)', async () => {
      const stdio = new Client({ name: 'sightline-tests-stdio', version: '1.0.0' });
      await stdio.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'mcp'],
          env: { PATH: process.env.PATH ?? '', SERVICE_COLLECTOR_ENDPOINT: server().url, SERVICE_API_KEY: key },
          stderr: 'pipe',
        }),
      );
      try {
        assert.deepEqual((await stdio.listTools()).tools.map((tool) => tool.name).sort(), TOOLS);
        const result = (await stdio.callTool({ name: 'search_spans', arguments: { project, search: 'parcel' } })) as ToolAnswer;
        assert.ok(!result.isError, result.content[0]?.text);
        assert.match(result.content[0]!.text, new RegExp(traceId));
      } finally {
        await stdio.close();
      }
    });
  },
  AUTH_ENV,
);
