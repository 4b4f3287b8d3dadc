/**
 * Sightline's MCP server (docs/mcp.md): tools an AI assistant calls to read traces, datasets,
 * experiments and prompts, built on the official @modelcontextprotocol/sdk. Every tool is a call
 * of the REST API, through `ApiCall`: over HTTP with an API key for `sightline mcp` (stdio), and
 * in-process with the caller's own credentials for `/mcp`, so a tool can do exactly what its
 * caller may do, with the API's checks and its one-sentence refusals.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MODEL_PROVIDERS } from '../prompts/prompts-service.js';
import { SIGHTLINE_VERSION } from '../version.js';

/** One REST call: method, path with its query string, JSON body; the answer's status and parsed JSON (null for none). */
export type ApiCall = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** An answer's body as the tools read it: its JSON, null when empty, or its text as a `detail` when it is not JSON. */
export function answerBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 500) };
  }
}

/** Most characters of JSON a tool answers: an assistant's context is small, and a page says how to get the next one. */
export const MAX_TOOL_TEXT = 60_000;

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

const enc = encodeURIComponent;

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

function text(value: unknown): string {
  const json = JSON.stringify(value, null, 1);
  return json.length > MAX_TOOL_TEXT
    ? `${json.slice(0, MAX_TOOL_TEXT)}\n… (cut at ${MAX_TOOL_TEXT} characters: ask for fewer items)`
    : json;
}

/** Calls the API and answers its JSON, or its refusal as a tool error the assistant can read. */
async function answer(api: ApiCall, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ToolResult> {
  const response = await api(method, path, body);
  if (response.status >= 400) {
    const detail = (response.body as { detail?: unknown } | null)?.detail;
    return {
      isError: true,
      content: [{ type: 'text', text: `HTTP ${response.status}: ${typeof detail === 'string' ? detail : text(response.body)}` }],
    };
  }
  return { content: [{ type: 'text', text: response.body === null ? 'done' : text(response.body) }] };
}

const limit = z.number().int().min(1).max(100).optional().describe('Most items to answer (default 20, at most 100).');
const cursor = z.string().optional().describe('The next_cursor of the previous answer, for the next page.');

/** An MCP server with Sightline's tools, calling the API through `api`. */
export function createMcpServer(api: ApiCall): McpServer {
  const server = new McpServer({ name: 'sightline', version: SIGHTLINE_VERSION });
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'list_projects',
    {
      description: 'The projects of the Sightline server (newest first), each with its id and name.',
      inputSchema: { limit, cursor },
      annotations: readOnly,
    },
    ({ limit: count, cursor: next }) => answer(api, 'GET', `/v1/projects${query({ limit: count ?? 20, cursor: next })}`),
  );

  server.registerTool(
    'search_spans',
    {
      description:
        "A project's spans, newest first, narrowed by full-text search over inputs, outputs and messages (`search`) and/or a " +
        "condition in Phoenix's span query syntax (`filter`, e.g. span_kind == 'LLM' and latency_ms > 2000 and " +
        "attributes['llm.model_name'] == 'gpt-4o').",
      inputSchema: {
        project: z.string().describe('Project name or id.'),
        search: z.string().optional().describe('Words to find ("quoted phrase", prefix*).'),
        filter: z.string().optional().describe('A span condition.'),
        start_time: z.string().optional().describe('ISO 8601: spans that started at or after.'),
        end_time: z.string().optional().describe('ISO 8601: spans that started before.'),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) =>
      answer(
        api,
        'GET',
        `/v1/projects/${enc(input.project)}/spans${query({
          search: input.search,
          filter: input.filter,
          start_time: input.start_time,
          end_time: input.end_time,
          limit: input.limit ?? 20,
          cursor: input.cursor,
        })}`,
      ),
  );

  server.registerTool(
    'get_trace',
    {
      description: 'A trace with all its spans (attributes, events), by its OpenTelemetry trace id; the project is found from the id.',
      inputSchema: { trace_id: z.string().describe('32 hex digits, or a Trace id.') },
      annotations: readOnly,
    },
    async ({ trace_id: traceId }) => {
      const located = await api('GET', `/v1/traces/${enc(traceId)}`);
      if (located.status >= 400) return answer(api, 'GET', `/v1/traces/${enc(traceId)}`);
      const project = (located.body as { data: { project_id: string } }).data.project_id;
      return answer(api, 'GET', `/v1/projects/${enc(project)}/traces/${enc(traceId)}`);
    },
  );

  server.registerTool(
    'get_session',
    {
      description: 'A session (a conversation) with its turns, tokens and cost, by its session.id text or Session id.',
      inputSchema: { session_id: z.string() },
      annotations: readOnly,
    },
    ({ session_id: sessionId }) => answer(api, 'GET', `/v1/sessions/${enc(sessionId)}`),
  );

  server.registerTool(
    'list_datasets',
    {
      description: 'The datasets (newest first), each with its id, name and example count.',
      inputSchema: { limit, cursor },
      annotations: readOnly,
    },
    ({ limit: count, cursor: next }) => answer(api, 'GET', `/v1/datasets${query({ limit: count ?? 20, cursor: next })}`),
  );

  server.registerTool(
    'get_dataset_examples',
    {
      description: "A dataset's examples (input, output, metadata) at its latest version.",
      inputSchema: { dataset_id: z.string().describe('Dataset id (from list_datasets).'), limit, cursor },
      annotations: readOnly,
    },
    ({ dataset_id: datasetId, limit: count, cursor: next }) =>
      answer(api, 'GET', `/v1/datasets/${enc(datasetId)}/examples${query({ limit: count ?? 20, cursor: next })}`),
  );

  server.registerTool(
    'add_dataset_examples',
    {
      description: 'Appends examples to a dataset as a new version, creating the dataset when no dataset has the name.',
      inputSchema: {
        dataset_name: z.string().min(1),
        examples: z
          .array(
            z.object({
              input: z.record(z.string(), z.unknown()),
              output: z.record(z.string(), z.unknown()).optional(),
              metadata: z.record(z.string(), z.unknown()).optional(),
            }),
          )
          .min(1)
          .max(1000),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ dataset_name: name, examples }) => {
      const listed = await api('GET', `/v1/datasets${query({ name, limit: 1 })}`);
      const exists = listed.status === 200 && ((listed.body as { data: unknown[] }).data ?? []).length > 0;
      return answer(api, 'POST', '/v1/datasets/upload?sync=true', {
        action: exists ? 'append' : 'create',
        name,
        inputs: examples.map((example) => example.input),
        outputs: examples.map((example) => example.output ?? {}),
        metadata: examples.map((example) => example.metadata ?? {}),
      });
    },
  );

  server.registerTool(
    'get_experiment_results',
    {
      description: "An experiment's runs: each example's input, reference output, the task's output or error, and the evaluations.",
      inputSchema: { experiment_id: z.string().describe('Experiment id.') },
      annotations: readOnly,
    },
    ({ experiment_id: experimentId }) => answer(api, 'GET', `/v1/experiments/${enc(experimentId)}/json`),
  );

  server.registerTool(
    'get_prompt',
    {
      description: "A prompt's version: the latest, or the one a tag (such as production) names.",
      inputSchema: { name: z.string().describe('Prompt name or id.'), tag: z.string().optional() },
      annotations: readOnly,
    },
    ({ name, tag }) => answer(api, 'GET', `/v1/prompts/${enc(name)}/${tag ? `tags/${enc(tag)}` : 'latest'}`),
  );

  server.registerTool(
    'create_prompt',
    {
      description: 'Saves a chat prompt as a new version of the prompt of that name (creating the prompt when it is new).',
      inputSchema: {
        name: z.string().min(1),
        description: z.string().optional(),
        model_provider: z.enum(MODEL_PROVIDERS).default('OPENAI'),
        model_name: z.string().min(1),
        messages: z
          .array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))
          .min(1)
          .describe('The template; {{variables}} in mustache syntax.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (input) =>
      answer(api, 'POST', '/v1/prompts', {
        prompt: { name: input.name, ...(input.description ? { description: input.description } : {}) },
        version: {
          model_provider: input.model_provider,
          model_name: input.model_name,
          template_type: 'CHAT',
          template_format: 'MUSTACHE',
          template: { type: 'chat', messages: input.messages },
          invocation_parameters: invocationParameters(input.model_provider),
        },
      }),
  );

  return server;
}

/** Empty invocation parameters of the provider's kind, as Phoenix's prompt schema wants them. */
function invocationParameters(provider: string): Record<string, unknown> {
  const type = provider.toLowerCase();
  return type === 'anthropic' ? { type, anthropic: { max_tokens: 1024 } } : { type, [type]: {} };
}
