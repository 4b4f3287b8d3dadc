/** The answer of a stand-in OpenAI chat completions server, in OpenAI's wire format (for the stand-ins of the tests). */
import type http from 'node:http';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Answers one chat completion of `text`: whole, or (when the request asked for a stream) as
 * server-sent events, one chunk per piece, `delayMs` apart, then the finish and the usage.
 */
export async function answerChatCompletion(
  response: http.ServerResponse,
  answer: { id: string; model: string; pieces: string[]; usage: Usage; stream: boolean; delayMs?: number },
): Promise<void> {
  const text = answer.pieces.join('');
  if (!answer.stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: answer.id,
        object: 'chat.completion',
        created: 1,
        model: answer.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: answer.usage,
      }),
    );
    return;
  }
  const base = { id: answer.id, object: 'chat.completion.chunk', created: 1, model: answer.model };
  const send = (value: unknown) => response.write(`data: ${JSON.stringify(value)}\n\n`);
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  for (const piece of answer.pieces) {
    send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
  }
  send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  send({ ...base, choices: [], usage: answer.usage });
  response.end('data: [DONE]\n\n');
}
