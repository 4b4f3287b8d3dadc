/**
 * A stand-in judge model on loopback speaking OpenAI's chat completions wire format (streamed as
 * server-sent events, as the `openai` SDK asks), for the server-side evaluation tests. It judges
 * by a marker: the first label of the set when the rendered prompt holds GOOD, the second
 * otherwise. With a JSON schema in `response_format` it answers `{"label", "explanation"}`;
 * without one, a `label: …` line for the tolerant parser. It can fail some requests (500) and
 * answer slowly, as real providers do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerChatCompletion } from './openai-wire.js';

export const STANDIN_JUDGE_KEY = 'sk-test-judge-0123456789abcdef';

export interface JudgeRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { schema?: { properties?: { label?: { enum?: string[] } } } } };
}

export interface StandinJudge {
  /** The base URL to configure as OPENAI_BASE_URL. */
  url: string;
  requests: JudgeRequest[];
  /** Answers 500 to a request when this returns true (given the request's number, from 1). */
  failWhen: (requestNumber: number) => boolean;
  close(): Promise<void>;
}

/** The labels a request offers: the schema's enum, else those the system message quotes. */
function labelsOf(request: JudgeRequest): string[] {
  const fromSchema = request.response_format?.json_schema?.schema?.properties?.label?.enum;
  if (fromSchema) return fromSchema;
  const system = request.messages.find((message) => message.role === 'system')?.content ?? '';
  return [...system.matchAll(/"([^"]+)"/g)].map((match) => match[1]!).filter((label) => label !== 'label' && label !== 'explanation');
}

export async function startStandinJudge(options: { latencyMs?: number } = {}): Promise<StandinJudge> {
  const requests: JudgeRequest[] = [];
  let count = 0;
  const judge: StandinJudge = { url: '', requests, failWhen: () => false, close: async () => {} };
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
      if (request.url !== '/v1/chat/completions') return json(404, { error: { message: `no route ${request.url}` } });
      if (request.headers.authorization !== `Bearer ${STANDIN_JUDGE_KEY}`) {
        return json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      }
      const body = JSON.parse(text) as JudgeRequest & { stream?: boolean };
      requests.push(body);
      count++;
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      if (judge.failWhen(count)) return json(500, { error: { message: 'The server had an error while processing your request.' } });
      const labels = labelsOf(body);
      const prompt = body.messages.map((message) => message.content).join('\n');
      const label = prompt.includes('GOOD') ? labels[0] : labels[1];
      const explanation = prompt.includes('GOOD') ? 'The marker GOOD is there.' : 'The marker GOOD is missing.';
      const answer = body.response_format ? JSON.stringify({ label, explanation }) : `${explanation}\nlabel: ${label}`;
      const usage = { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 };
      await answerChatCompletion(response, {
        id: 'chatcmpl-judge',
        model: body.model,
        pieces: answer.match(/.{1,12}/gs) ?? [],
        usage,
        stream: body.stream === true,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  judge.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  judge.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return judge;
}
