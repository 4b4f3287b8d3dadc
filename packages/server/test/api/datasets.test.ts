/**
 * Datasets (docs/datasets.md): JSON uploads that create, append and update, immutable versions
 * that read back exactly as they were, listing, downloads, deletion, the 4xx answers for bad
 * input, and who may call.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/global-id.js';
import { AUTH_ENV, memberAndSystemClients, anonymous, expectStatus, unique, type ApiClient } from '../helpers/auth.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

interface Example {
  id: string;
  node_id: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  metadata: Record<string, unknown>;
  source?: { span_id: string } | null;
}

/** An upload body of `count` examples labelled by `tag`. */
function examples(tag: string, count: number, extra: Record<string, unknown> = {}) {
  const indices = Array.from({ length: count }, (_, index) => index);
  return {
    inputs: indices.map((index) => ({ question: `${tag} question ${index}` })),
    outputs: indices.map((index) => ({ answer: `${tag} answer ${index}` })),
    metadata: indices.map((index) => ({ index, tag })),
    ...extra,
  };
}

describeEachDialect('datasets API', (server) => {
  const url = () => server().url;
  const upload = (body: unknown) => request(url(), 'POST', '/v1/datasets/upload?sync=true', body);
  const examplesAt = async (datasetId: string, versionId?: string) =>
    (await getOk(url(), `/v1/datasets/${datasetId}/examples${versionId ? `?version_id=${encodeURIComponent(versionId)}` : ''}`)).data as {
      dataset_id: string;
      version_id: string;
      examples: Example[];
    };

  it('creates a dataset from JSON, appends a version, and reads every version back unchanged', async () => {
    const name = unique('qa');
    const created = expectStatus(await upload({ action: 'create', name, description: 'first', ...examples('v1', 3) }), 200).body.data;
    assert.equal(created.num_created_examples, 3);
    assert.equal(created.dataset_id.length > 0, true);
    const first = await examplesAt(created.dataset_id);
    assert.equal(first.version_id, created.version_id);
    assert.deepEqual(
      first.examples.map((example) => [example.input, example.output, example.metadata]),
      [0, 1, 2].map((index) => [{ question: `v1 question ${index}` }, { answer: `v1 answer ${index}` }, { index, tag: 'v1' }]),
    );
    for (const example of first.examples) assert.equal(example.id, example.node_id, 'without example_ids the id is the node id');

    const appended = expectStatus(await upload({ action: 'append', name, ...examples('v2', 2) }), 200).body.data;
    assert.equal(appended.dataset_id, created.dataset_id);
    assert.notEqual(appended.version_id, created.version_id);
    const second = await examplesAt(created.dataset_id);
    assert.equal(second.examples.length, 5);
    assert.deepEqual(second.examples.slice(0, 3), first.examples, 'the old examples are untouched');

    // The first version still reads exactly as it was.
    assert.deepEqual(await examplesAt(created.dataset_id, created.version_id), first);

    const dataset = (await getOk(url(), `/v1/datasets/${created.dataset_id}`)).data;
    assert.deepEqual([dataset.name, dataset.description, dataset.example_count], [name, 'first', 5]);
    const byName = (await getOk(url(), `/v1/datasets/${encodeURIComponent(name)}`)).data;
    assert.equal(byName.id, created.dataset_id, 'a dataset is also found by name');
    const versions = (await getOk(url(), `/v1/datasets/${created.dataset_id}/versions`)).data;
    assert.deepEqual(
      versions.map((version: { version_id: string }) => version.version_id),
      [appended.version_id, created.version_id],
      'versions newest first',
    );
  });

  it('update makes the dataset hold exactly the examples sent, as a new version; old versions keep theirs', async () => {
    const name = unique('declarative');
    const ids = ['a', 'b', 'c'];
    const first = expectStatus(await upload({ action: 'update', name, ...examples('one', 3, { example_ids: ids }) }), 200).body.data;
    assert.equal(first.num_created_examples, 3, 'update of an unknown name creates the dataset');
    const before = await examplesAt(first.dataset_id);
    assert.deepEqual(
      before.examples.map((example) => example.id),
      ids,
      'the caller ids are the example ids',
    );

    // Keep a unchanged, change b, drop c, add d.
    const second = expectStatus(
      await upload({
        action: 'update',
        name,
        inputs: [{ question: 'one question 0' }, { question: 'changed' }, { question: 'new' }],
        outputs: [{ answer: 'one answer 0' }, { answer: 'changed' }, { answer: 'new' }],
        metadata: [{ index: 0, tag: 'one' }, {}, {}],
        example_ids: ['a', 'b', 'd'],
      }),
      200,
    ).body.data;
    assert.deepEqual([second.num_created_examples, second.num_updated_examples, second.num_deleted_examples], [1, 1, 1]);
    const after = await examplesAt(first.dataset_id);
    assert.deepEqual(
      after.examples.map((example) => [example.id, example.input.question]),
      [
        ['a', 'one question 0'],
        ['b', 'changed'],
        ['d', 'new'],
      ],
    );
    assert.deepEqual(await examplesAt(first.dataset_id, first.version_id), before, 'the first version is unchanged');

    // Sending the same examples again changes nothing but adds a version.
    const third = expectStatus(
      await upload({
        action: 'update',
        name,
        inputs: after.examples.map((example) => example.input),
        outputs: after.examples.map((example) => example.output),
        metadata: after.examples.map((example) => example.metadata),
        example_ids: ['a', 'b', 'd'],
      }),
      200,
    ).body.data;
    assert.deepEqual([third.num_created_examples, third.num_updated_examples, third.num_deleted_examples], [0, 0, 0]);
  });

  it('update without ids matches examples by content', async () => {
    const name = unique('by-content');
    const first = expectStatus(await upload({ action: 'update', name, ...examples('x', 2) }), 200).body.data;
    const nodeIds = (await examplesAt(first.dataset_id)).examples.map((example) => example.node_id);
    const second = expectStatus(await upload({ action: 'update', name, ...examples('x', 3) }), 200).body.data;
    assert.deepEqual([second.num_created_examples, second.num_updated_examples, second.num_deleted_examples], [1, 0, 0]);
    const after = (await examplesAt(first.dataset_id)).examples;
    assert.deepEqual(
      after.slice(0, 2).map((example) => example.node_id),
      nodeIds,
      'the matched examples keep their ids',
    );
  });

  /** POST a multipart form with the fields (in order) and then the file, as browsers and Phoenix's clients send it. */
  const uploadFile = (fields: [string, string][], file: { name: string; type: string; content: string }) => {
    const form = new FormData();
    for (const [key, value] of fields) form.append(key, value);
    form.append('file', new Blob([file.content], { type: file.type }), file.name);
    return fetch(`${url()}/v1/datasets/upload`, { method: 'POST', body: form }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { data?: { dataset_id: string; num_created_examples: number }; detail?: string },
    }));
  };

  it('uploads CSV and JSONL files: the key lists pick input, output and metadata; 1 MB fields and 5,000 rows pass', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const rows = Array.from({ length: 5000 }, (_, index) => `q${index},"a, ${index}",t${index % 3}`);
    const csv = `question,answer,topic\n"${big}","long, quoted ""answer""",long\n${rows.join('\n')}\n`;
    const name = unique('csv');
    const fields: [string, string][] = [
      ['name', name],
      ['action', 'create'],
      ['input_keys[]', 'question'],
      ['output_keys[]', 'answer'],
      ['metadata_keys[]', 'topic'],
    ];
    const created = await uploadFile(fields, { name: 'qa.csv', type: 'text/csv', content: csv });
    assert.equal(created.status, 200, JSON.stringify(created.body).slice(0, 300));
    assert.equal(created.body.data?.num_created_examples, 5001);
    const read = await examplesAt(created.body.data!.dataset_id);
    assert.equal(read.examples.length, 5001);
    assert.equal((read.examples[0]!.input.question as string).length, 1024 * 1024, 'a 1 MB field is kept whole');
    assert.deepEqual(read.examples[0]!.output, { answer: 'long, quoted "answer"' });
    assert.deepEqual(
      [read.examples[5000]!.input, read.examples[5000]!.output, read.examples[5000]!.metadata],
      [{ question: 'q4999' }, { answer: 'a, 4999' }, { topic: 't1' }],
    );

    const jsonl = `${JSON.stringify({ q: { nested: true }, a: 1, id: 'first' })}\n\n${JSON.stringify({ q: 'plain', a: [2], id: 'second' })}\n`;
    const fromJsonl = await uploadFile(
      [
        ['name', unique('jsonl')],
        ['input_keys[]', 'q'],
        ['output_keys[]', 'a'],
        ['example_id_key', 'id'],
      ],
      { name: 'rows.jsonl', type: 'application/octet-stream', content: jsonl },
    );
    assert.equal(fromJsonl.status, 200, JSON.stringify(fromJsonl.body));
    const jsonlExamples = (await examplesAt(fromJsonl.body.data!.dataset_id)).examples;
    assert.deepEqual(
      jsonlExamples.map((example) => [example.id, example.input, example.output]),
      [
        ['first', { q: { nested: true } }, { a: 1 }],
        ['second', { q: 'plain' }, { a: [2] }],
      ],
    );
  });

  it('refuses bad files with a 4xx naming the problem, and stores nothing of them', async () => {
    const csv = { name: 'qa.csv', type: 'text/csv', content: 'question,answer\nq,a\n' };
    const cases: [[string, string][], { name: string; type: string; content: string }, RegExp][] = [
      [
        [
          ['name', unique('unknown')],
          ['input_keys[]', 'nope'],
        ],
        csv,
        /unknown columns: "nope"/,
      ],
      [[['name', unique('no-keys')]], csv, /input_keys/],
      [
        [
          ['name', unique('quote')],
          ['input_keys[]', 'a'],
        ],
        { ...csv, content: 'a,b\n"open,1\n' },
        /malformed at line 2/,
      ],
      [
        [
          ['name', unique('ragged')],
          ['input_keys[]', 'a'],
        ],
        { ...csv, content: 'a,b\n1,2,3\n' },
        /malformed at line 2/,
      ],
      [
        [
          ['name', unique('json')],
          ['input_keys[]', 'q'],
        ],
        { name: 'r.jsonl', type: 'text/plain', content: '{"q":1}\nnope\n' },
        /line 2 of the JSONL file is not valid JSON/,
      ],
      [
        [
          ['name', unique('kind')],
          ['input_keys[]', 'q'],
        ],
        { name: 'r.xlsx', type: 'application/octet-stream', content: 'x' },
        /neither CSV/,
      ],
      [[['input_keys[]', 'question']], csv, /no name/],
      [
        [
          ['name', unique('act')],
          ['action', 'merge'],
          ['input_keys[]', 'question'],
        ],
        csv,
        /action must be one of/,
      ],
    ];
    for (const [fields, file, detail] of cases) {
      const response = await uploadFile(fields, file);
      assert.equal(response.status, 422, `${detail}: ${JSON.stringify(response.body)}`);
      assert.match(response.body.detail ?? '', detail);
      const name = fields.find(([key]) => key === 'name')?.[1];
      if (name) assert.deepEqual((await getOk(url(), `/v1/datasets?name=${encodeURIComponent(name)}`)).data, [], 'nothing stored');
    }
  });

  it('records the source span of an example', async () => {
    const name = unique('from-spans');
    const spanId = 'ABCDEF0123456789';
    const created = expectStatus(await upload({ action: 'create', name, inputs: [{ q: 1 }], span_ids: [spanId] }), 200).body.data;
    const [example] = (await examplesAt(created.dataset_id)).examples;
    assert.equal(example?.source?.span_id, spanId.toLowerCase());
    assert.deepEqual(example?.output, {}, 'a missing output is {}');
  });

  it('lists datasets newest first, pages them, and filters by exact name', async () => {
    const prefix = unique('listed');
    const names = [`${prefix}-1`, `${prefix}-2`, `${prefix}-3`];
    for (const name of names) expectStatus(await upload({ action: 'create', name, ...examples(name, 1) }), 200);
    const exact = (await getOk(url(), `/v1/datasets?name=${encodeURIComponent(names[1]!)}`)).data;
    assert.deepEqual(
      exact.map((dataset: { name: string }) => dataset.name),
      [names[1]],
    );
    assert.deepEqual((await getOk(url(), `/v1/datasets?name=${encodeURIComponent(`${prefix}-none`)}`)).data, []);
    const firstPage = await getOk(url(), '/v1/datasets?limit=2');
    assert.equal(firstPage.data.length, 2);
    assert.ok(firstPage.next_cursor, 'a next page');
    assert.deepEqual(
      firstPage.data.map((dataset: { name: string }) => dataset.name),
      [names[2], names[1]],
    );
    const secondPage = await getOk(url(), `/v1/datasets?limit=2&cursor=${encodeURIComponent(firstPage.next_cursor)}`);
    assert.equal(secondPage.data[0].name, names[0]);
  });

  it('downloads a version as JSONL and CSV', async () => {
    const name = unique('download');
    const created = expectStatus(
      await upload({ action: 'create', name, inputs: [{ q: 'a, "quoted"\nline' }], outputs: [{ a: 1 }], example_ids: ['e1'] }),
      200,
    ).body.data;
    const jsonl = await fetch(`${url()}/v1/datasets/${created.dataset_id}/jsonl`);
    assert.equal(jsonl.status, 200);
    assert.deepEqual(JSON.parse((await jsonl.text()).trim()), { input: { q: 'a, "quoted"\nline' }, output: { a: 1 }, metadata: {} });
    const csv = await fetch(`${url()}/v1/datasets/${created.dataset_id}/csv?version_id=${encodeURIComponent(created.version_id)}`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(await csv.text(), 'example_id,input,output,metadata\r\ne1,"{""q"":""a, \\""quoted\\""\\nline""}","{""a"":1}",{}\r\n');
  });

  it('deletes a dataset with its versions and examples', async () => {
    const created = expectStatus(await upload({ action: 'create', name: unique('gone'), ...examples('g', 2) }), 200).body.data;
    expectStatus(await request(url(), 'DELETE', `/v1/datasets/${created.dataset_id}`), 204);
    expectError(await request(url(), 'GET', `/v1/datasets/${created.dataset_id}`), 404);
    expectError(await request(url(), 'GET', `/v1/datasets/${created.dataset_id}/examples`), 404);
    expectError(await request(url(), 'DELETE', `/v1/datasets/${created.dataset_id}`), 404);
  });

  it('answers bad input with a 4xx naming the problem', async () => {
    const name = unique('strict');
    expectStatus(await upload({ action: 'create', name, ...examples('s', 1) }), 200);
    expectError(await upload({ action: 'create', name, ...examples('s', 1) }), 409, /already exists/);
    expectError(await upload({ action: 'merge', name, ...examples('s', 1) }), 422, /action/);
    expectError(await upload({ name: unique('no-inputs') }), 422, /inputs/);
    expectError(await upload({ name: unique('bad-inputs'), inputs: ['text'] }), 422, /inputs/);
    expectError(await upload({ name: '   ', inputs: [{}] }), 422, /blank/);
    expectError(await upload({ name: unique('mismatch'), inputs: [{}, {}], outputs: [{}] }), 422, /outputs has 1 items but inputs has 2/);
    expectError(await upload({ name: unique('repeat'), inputs: [{}, {}], example_ids: ['x', 'x'] }), 422, /repeat/);
    expectStatus(await upload({ action: 'append', name, inputs: [{}], example_ids: ['dup'] }), 200);
    expectError(await upload({ action: 'append', name, inputs: [{}], example_ids: ['dup'] }), 409, /already holds/);
    const noFile = await fetch(`${url()}/v1/datasets/upload`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x--\r\n',
    });
    assert.equal(noFile.status, 422);
    assert.match(((await noFile.json()) as { detail: string }).detail, /no file/);
    const dataset = (await getOk(url(), `/v1/datasets/${encodeURIComponent(name)}`)).data;
    expectError(await request(url(), 'GET', `/v1/datasets/${dataset.id}/examples?version_id=nonsense`), 422, /version_id/);
    expectError(
      await request(url(), 'GET', `/v1/datasets/${dataset.id}/examples?version_id=${toGlobalId('DatasetVersion', 999999)}`),
      404,
      /version/,
    );
    expectError(await request(url(), 'GET', `/v1/datasets/${toGlobalId('Dataset', 999999)}`), 404);
    expectError(await request(url(), 'GET', '/v1/datasets?limit=0'), 422, /^query\.limit: must be >= 1$/);
  });
});

describeEachDialect(
  'datasets API with auth on',
  (server) => {
    const url = () => server().url;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      ({ member, system } = await memberAndSystemClients(url()));
    });

    it('lets a member key and a system key upload, read and delete datasets; refuses calls without a credential', async () => {
      for (const client of [member, system]) {
        const name = unique('shared');
        const created = expectStatus(await client.post('/v1/datasets/upload', { action: 'create', name, ...examples('m', 2) }), 200).body
          .data;
        expectStatus(await client.get('/v1/datasets'), 200);
        expectStatus(await client.get(`/v1/datasets/${created.dataset_id}/examples`), 200);
        expectStatus(await client.get(`/v1/datasets/${created.dataset_id}/versions`), 200);
        expectStatus(await client.delete(`/v1/datasets/${created.dataset_id}`), 204);
      }
      const nobody = anonymous(url());
      expectStatus(await nobody.get('/v1/datasets'), 401);
      expectStatus(await nobody.post('/v1/datasets/upload', { action: 'create', name: unique('nope'), inputs: [{}] }), 401);
    });
  },
  AUTH_ENV,
);
