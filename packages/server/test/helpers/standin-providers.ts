/**
 * Stand-ins of model providers on loopback, each speaking its API's wire format (streamed as
 * server-sent events, or whole), for the playground's tests (docs/playground.md): OpenAI's chat
 * completions at `<url>/openai`, Anthropic's messages at `<url>/anthropic`, Google's Gemini API
 * at `<url>/gemini` (`/v1beta/models/{model}:streamGenerateContent?alt=sse` and
 * `:generateContent`, as @google/genai calls them). They all follow one script, so a test can
 * drive any provider the same way:
 *
 * - offered tools and given no tool result yet, the model calls the first tool with
 *   STANDIN_TOOL_ARGUMENTS (streamed in two pieces);
 * - asked for a JSON schema response format, it answers SAMPLE_OF(schema) as JSON text;
 * - given a tool result, it answers `Result noted: <the last result>`;
 * - else `Echo: <the last user text>`.
 *
 * Every request is recorded (path, headers, parsed body) for the tests to check what was sent.
 */
import http from 'node:http';

export const STANDIN_KEYS = {
  openai: 'sk-standin-openai-0123',
  anthropic: 'sk-ant-standin-4567',
  gemini: 'AIza-standin-gemini-89ab',
} as const;
/** The thought signature the Gemini stand-in puts on its function call parts (Gemini wants it back with the call). */
export const STANDIN_THOUGHT_SIGNATURE = 'c2lnbmF0dXJlLW9mLXRoZS1zdGFuZC1pbg==';
/** The arguments of the stand-ins' tool calls. */
export const STANDIN_TOOL_ARGUMENTS = { city: 'Paris', unit: 'celsius' };

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  // The tests read the providers' own wire formats, which have no types here.
  body: any;
}

export interface StandinProviders {
  /** The origin; the providers' base URLs are `${url}/openai`, `${url}/anthropic` and `${url}/gemini`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** What the script answers: a call of `tool`, or text. */
type Turn = { tool: string } | { text: string };

/** A value a JSON schema accepts, made from its types (the first enum value, 1, true, one item): what the stand-ins answer. */
export function sampleOf(schema: any): unknown {
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  switch (schema?.type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, property]) => [key, sampleOf(property)]));
    case 'array':
      return [sampleOf(schema.items)];
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    default:
      return 'text';
  }
}

/** The script's turn for a conversation read into its parts. */
function turnOf(conversation: { tools: string[]; lastToolResult: string | null; lastUserText: string; schema?: unknown }): Turn {
  if (conversation.tools.length > 0 && conversation.lastToolResult === null) return { tool: conversation.tools[0]! };
  if (conversation.schema) return { text: JSON.stringify(sampleOf(conversation.schema)) };
  if (conversation.lastToolResult !== null) return { text: `Result noted: ${conversation.lastToolResult}` };
  return { text: `Echo: ${conversation.lastUserText}` };
}

/** The text in pieces of one word each (with its trailing space), as a model streams. */
const pieces = (text: string) => text.split(/(?<= )/);
const argumentPieces = () => {
  const whole = JSON.stringify(STANDIN_TOOL_ARGUMENTS);
  const half = Math.floor(whole.length / 2);
  return [whole.slice(0, half), whole.slice(half)];
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startStandinProviders(options: { chunkDelayMs?: number } = {}): Promise<StandinProviders> {
  const delay = options.chunkDelayMs ?? 0;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      const path = request.url ?? '';
      requests.push({ path, headers: request.headers, body });
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      const sse = async (events: string[]) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of events) {
          response.write(event);
          if (delay) await sleep(delay);
        }
        response.end();
      };
      if (path === '/openai/chat/completions') {
        if (request.headers.authorization !== `Bearer ${STANDIN_KEYS.openai}`) {
          return json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
        }
        return void openAi(body, json, sse);
      }
      if (path === '/anthropic/v1/messages') {
        if (
          request.headers['x-api-key'] !== STANDIN_KEYS.anthropic &&
          request.headers.authorization !== `Bearer ${STANDIN_KEYS.anthropic}`
        ) {
          return json(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
        }
        return void anthropic(body, sse);
      }
      const gemini = /^\/gemini\/v1beta\/models\/([^/:]+):(streamGenerateContent\?alt=sse|generateContent)$/.exec(path);
      if (gemini && request.method === 'POST') {
        if (request.headers['x-goog-api-key'] !== STANDIN_KEYS.gemini) {
          return json(400, {
            error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' },
          });
        }
        const model = decodeURIComponent(gemini[1]!);
        if (model === 'missing-model') {
          return json(404, {
            error: { code: 404, message: `models/${model} is not found for API version v1beta`, status: 'NOT_FOUND' },
          });
        }
        return void geminiAnswer(body, model, gemini[2] !== 'generateContent', json, sse);
      }
      json(404, { error: { message: `no route ${path}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Json = (status: number, value: unknown) => void;
type Sse = (events: string[]) => Promise<void>;

/** OpenAI's chat completions: `tools`, assistant `tool_calls`, `tool` messages, `response_format`. */
async function openAi(body: any, json: Json, sse: Sse): Promise<void> {
  const messages = body.messages as { role: string; content: unknown }[];
  const turn = turnOf({
    tools: (body.tools ?? []).map((tool: any) => tool.function.name),
    lastToolResult: (messages.filter((message) => message.role === 'tool').at(-1)?.content as string | undefined) ?? null,
    lastUserText: String(messages.filter((message) => message.role === 'user').at(-1)?.content ?? ''),
    schema: body.response_format?.type === 'json_schema' ? body.response_format.json_schema.schema : undefined,
  });
  const usage = { prompt_tokens: 21, completion_tokens: 7, total_tokens: 28 };
  const call =
    'tool' in turn
      ? { id: 'call_standin_1', type: 'function', function: { name: turn.tool, arguments: JSON.stringify(STANDIN_TOOL_ARGUMENTS) } }
      : null;
  if (!body.stream) {
    return json(200, {
      id: 'chatcmpl-standin',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [
        {
          index: 0,
          message: call
            ? { role: 'assistant', content: null, tool_calls: [call] }
            : { role: 'assistant', content: (turn as { text: string }).text },
          finish_reason: call ? 'tool_calls' : 'stop',
        },
      ],
      usage,
    });
  }
  const base = { id: 'chatcmpl-standin', object: 'chat.completion.chunk', created: 1, model: body.model };
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: unknown, finish: string | null = null) => data({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: '' })];
  if (call) {
    const [first, second] = argumentPieces();
    events.push(
      chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: first } }] }),
    );
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: second } }] }));
  } else {
    for (const piece of pieces((turn as { text: string }).text)) events.push(chunk({ content: piece }));
  }
  events.push(chunk({}, call ? 'tool_calls' : 'stop'), data({ ...base, choices: [], usage }), 'data: [DONE]\n\n');
  await sse(events);
}

/** Anthropic's messages: `tools` with `input_schema`, `tool_use` and `tool_result` blocks, `output_config.format`. */
async function anthropic(body: any, sse: Sse): Promise<void> {
  const blocks = (body.messages as { role: string; content: unknown }[]).flatMap((message) =>
    typeof message.content === 'string'
      ? [{ role: message.role, type: 'text', text: message.content }]
      : (message.content as any[]).map((block) => ({ role: message.role, ...block })),
  );
  const result = blocks.filter((block) => block.type === 'tool_result').at(-1);
  const turn = turnOf({
    tools: (body.tools ?? []).map((tool: any) => tool.name),
    lastToolResult: result ? String(result.content) : null,
    lastUserText: String(blocks.filter((block) => block.role === 'user' && block.type === 'text').at(-1)?.text ?? ''),
    schema: body.output_config?.format?.type === 'json_schema' ? body.output_config.format.schema : undefined,
  });
  const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const events = [
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
        usage: { input_tokens: 33, output_tokens: 1 },
      },
    }),
  ];
  if ('tool' in turn) {
    events.push(
      event('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_standin_1', name: turn.tool, input: {} },
      }),
      ...argumentPieces().map((partial) =>
        event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: partial } }),
      ),
    );
  } else {
    events.push(event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    for (const piece of pieces(turn.text)) {
      events.push(event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }));
    }
  }
  events.push(
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 9 },
    }),
    event('message_stop', { type: 'message_stop' }),
  );
  await sse(events);
}

/** Gemini's generateContent: `contents` of `user` and `model` turns, `functionDeclarations`, `functionCall` and `functionResponse` parts. */
async function geminiAnswer(body: any, model: string, stream: boolean, json: Json, sse: Sse): Promise<void> {
  const parts = (body.contents as { role: string; parts: any[] }[]).flatMap((content) =>
    content.parts.map((part) => ({ role: content.role, ...part })),
  );
  const result = parts.filter((part) => part.functionResponse).at(-1)?.functionResponse.response;
  const turn = turnOf({
    tools: (body.tools ?? []).flatMap((tool: any) => (tool.functionDeclarations ?? []).map((declared: any) => declared.name)),
    lastToolResult: result === undefined ? null : typeof result.output === 'string' ? result.output : JSON.stringify(result),
    lastUserText: String(parts.filter((part) => part.role === 'user' && typeof part.text === 'string').at(-1)?.text ?? ''),
    schema: body.generationConfig?.responseJsonSchema,
  });
  const usageMetadata = { promptTokenCount: 17, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 25 };
  // The Gemini API sends calls without an id; each call's part carries a thought signature.
  const callPart =
    'tool' in turn
      ? { functionCall: { name: turn.tool, args: STANDIN_TOOL_ARGUMENTS }, thoughtSignature: STANDIN_THOUGHT_SIGNATURE }
      : null;
  const response = (responseParts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts: responseParts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    ...(last ? { usageMetadata } : {}),
    modelVersion: model,
    responseId: 'standin-response',
  });
  if (!stream) return json(200, response(callPart ? [callPart] : [{ text: (turn as { text: string }).text }], true));
  const chunks = callPart
    ? [response([callPart], true)]
    : pieces((turn as { text: string }).text).map((piece, index, all) => response([{ text: piece }], index === all.length - 1));
  await sse(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`));
}
