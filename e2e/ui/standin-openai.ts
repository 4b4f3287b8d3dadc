/**
 * A stand-in of OpenAI's chat completions API on loopback for the browser tests (after the one in
 * packages/server/test/api/playground.test.ts): it checks the key, answers `Echo: <last user
 * message>` streamed word by word as server-sent events (or whole), and refuses the model
 * `missing-model` as OpenAI does, so the playground's errors can be seen. Offered tools and no tool
 * result yet, it calls the first tool with STANDIN_TOOL_ARGUMENTS (the GenAI instrumentation
 * tests use that round trip).
 */
import http from 'node:http';
import { answerChatCompletion } from '../../packages/server/test/helpers/openai-wire.js';

export const STANDIN_OPENAI_KEY = 'sk-test-ui-openai-0123456789';
/** The arguments of the stand-in's tool calls. */
export const STANDIN_TOOL_ARGUMENTS = { city: 'Paris' };

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    temperature?: number;
    max_tokens?: number;
    messages: { role: string; content: string }[];
    tools?: { type: string; function: { name: string } }[];
  };
}

export interface StandinOpenAI {
  /** The base URL to store as OPENAI_BASE_URL. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** The answer the stand-in gives to these messages. */
export function echoOf(messages: { role: string; content: string }[]): string {
  const last = messages.filter((message) => message.role === 'user').at(-1);
  return `Echo: ${last?.content ?? ''}`;
}

/** Starts the stand-in; `chunkDelayMs` spaces the streamed words so a test sees them arrive one by one. */
export async function startStandinOpenAI(options: { chunkDelayMs?: number } = {}): Promise<StandinOpenAI> {
  const requests: RecordedRequest[] = [];
  const delay = options.chunkDelayMs ?? 0;
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', async () => {
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (request.url !== '/openai/chat/completions') return json(404, { error: { message: `no route ${request.url}` } });
      const body = JSON.parse(text) as RecordedRequest['body'];
      requests.push({ path: request.url, authorization: request.headers.authorization, body });
      if (request.headers.authorization !== `Bearer ${STANDIN_OPENAI_KEY}`) {
        return json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      }
      if (body.model === 'missing-model') {
        return json(404, { error: { message: 'The model `missing-model` does not exist', type: 'invalid_request_error' } });
      }
      const tool = body.tools?.[0]?.function.name;
      if (tool !== undefined && !body.messages.some((message) => message.role === 'tool')) {
        const call = {
          id: 'call_standin_1',
          type: 'function',
          function: { name: tool, arguments: JSON.stringify(STANDIN_TOOL_ARGUMENTS) },
        };
        const usage = { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 };
        if (!body.stream) {
          return json(200, {
            id: 'chatcmpl-standin-tool',
            object: 'chat.completion',
            created: 1,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }],
            usage,
          });
        }
        const base = { id: 'chatcmpl-standin-tool', object: 'chat.completion.chunk', created: 1, model: body.model };
        const send = (value: unknown) => response.write(`data: ${JSON.stringify(value)}\n\n`);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, ...call }] }, finish_reason: null }] });
        send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
        send({ ...base, choices: [], usage });
        return response.end('data: [DONE]\n\n');
      }
      const answer = echoOf(body.messages);
      const usage = { prompt_tokens: 12, completion_tokens: answer.split(' ').length, total_tokens: 12 + answer.split(' ').length };
      await answerChatCompletion(response, {
        id: 'chatcmpl-standin',
        model: body.model,
        pieces: answer.split(/(?<= )/),
        usage,
        stream: body.stream === true,
        delayMs: delay,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/openai`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
