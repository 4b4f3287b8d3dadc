/**
 * The OpenAI fine-tuning and evals downloads of a dataset (docs/datasets.md, "Downloads"), as
 * Phoenix writes them: one JSON object per example and line, at the latest or a given version,
 * streamed; fields that are missing or of the wrong type count as none; 404 and 422 answers.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { unique } from '../helpers/auth.js';
import { expectError, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const system = { role: 'system', content: 'Answer briefly.' };
const user = { role: 'user', content: 'Capital of France?' };
const assistant = { role: 'assistant', content: 'Paris' };
const tool = { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } };

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describeEachDialect('dataset OpenAI downloads', (server) => {
  const url = () => server().url;
  const upload = async (action: string, name: string, inputs: object[], outputs: object[]) => {
    const response = await request(url(), 'POST', '/v1/datasets/upload?sync=true', { action, name, inputs, outputs });
    assert.equal(response.status, 200, response.text);
    return response.body.data as { dataset_id: string; version_id: string };
  };

  it('writes {messages, tools?} per example for fine-tuning and {messages, ideal} for evals, at any version', async () => {
    const name = unique('chat é');
    const first = await upload(
      'create',
      name,
      [{ messages: [system, user], tools: [tool] }, { messages: [user], tools: [] }, { messages: 'not a list', question: 'x' }, {}],
      [
        { messages: [assistant] },
        { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'parts' }] }] },
        { messages: [] },
        { answer: 'y' },
      ],
    );

    const ft = await fetch(`${url()}/v1/datasets/${first.dataset_id}/jsonl/openai_ft`);
    assert.equal(ft.status, 200);
    assert.match(ft.headers.get('content-type') ?? '', /jsonl/);
    assert.match(ft.headers.get('content-disposition') ?? '', /attachment; filename=".*\.jsonl"/);
    assert.deepEqual(lines(await ft.text()), [
      { messages: [system, user, assistant], tools: [tool] },
      { messages: [user, { role: 'assistant', content: [{ type: 'text', text: 'parts' }] }] },
      { messages: [] },
      { messages: [] },
    ]);

    const evals = await fetch(`${url()}/v1/datasets/${first.dataset_id}/jsonl/openai_evals`);
    assert.equal(evals.status, 200);
    assert.deepEqual(lines(await evals.text()), [
      { messages: [system, user], ideal: 'Paris' },
      { messages: [user], ideal: '' },
      { messages: [], ideal: '' },
      { messages: [], ideal: '' },
    ]);

    // A later version adds an example; the first version still downloads as it was, by name too.
    await upload('append', name, [{ messages: [user] }], [{ messages: [system, assistant] }]);
    const latest = lines(await (await fetch(`${url()}/v1/datasets/${first.dataset_id}/jsonl/openai_evals`)).text());
    assert.equal(latest.length, 5);
    assert.deepEqual(latest[4], { messages: [user], ideal: 'Paris' });
    const old = await fetch(
      `${url()}/v1/datasets/${encodeURIComponent(name)}/jsonl/openai_ft?version_id=${encodeURIComponent(first.version_id)}`,
    );
    assert.equal(lines(await old.text()).length, 4);
  });

  it('answers 404 for an unknown dataset or version and 422 for a malformed version id', async () => {
    const created = await upload('create', unique('chat'), [{ messages: [user] }], [{}]);
    for (const kind of ['openai_ft', 'openai_evals']) {
      expectError(await request(url(), 'GET', `/v1/datasets/${toGlobalId('Dataset', 987654)}/jsonl/${kind}`), 404, /dataset/);
      expectError(
        await request(url(), 'GET', `/v1/datasets/${created.dataset_id}/jsonl/${kind}?version_id=${toGlobalId('DatasetVersion', 987654)}`),
        404,
        /version/,
      );
      expectError(await request(url(), 'GET', `/v1/datasets/${created.dataset_id}/jsonl/${kind}?version_id=nope`), 422, /version/);
    }
  });
});
