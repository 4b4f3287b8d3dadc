/**
 * Datasets (docs/datasets.md): JSON uploads that create, append and update, immutable versions
 * that read back exactly as they were, listing, downloads, deletion, the 4xx answers for bad
 * input, and who may call. File uploads written in batches: read back exactly, leave nothing
 * when they fail, stay invisible while written, one at a time per dataset, and what a dead one
 * left is deleted.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { startServerOn } from '../helpers/server.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';
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

const BOUNDARY = 'dataset-upload-boundary';
const fieldPart = (name: string, value: string) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (filename: string, type: string) =>
  `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: ${type}\r\n\r\n`;
const CLOSING = `\r\n--${BOUNDARY}--\r\n`;

interface OpenUpload {
  /** Sends more of the body now. */
  write(text: string): void;
  /** Ends the body (closing the form first unless told not to) and waits for the answer. */
  finish(close?: boolean): Promise<{ status: number; body: { data?: Record<string, unknown>; detail?: string } }>;
}

/**
 * A multipart upload whose body is sent piece by piece over a raw request, so that a test can act
 * while the server is in the middle of it: the fields, then the head of a CSV file part.
 */
function openCsvUpload(url: string, fields: [string, string][]): OpenUpload {
  const target = new URL(`${url}/v1/datasets/upload`);
  const outgoing = http.request(target, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } });
  const answer = new Promise<{ status: number; body: { data?: Record<string, unknown>; detail?: string } }>((resolve, reject) => {
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
      response.on('error', reject);
    });
  });
  outgoing.write(fields.map(([name, value]) => fieldPart(name, value)).join('') + filePart('rows.csv', 'text/csv'));
  return {
    write: (text) => void outgoing.write(text),
    finish: (close = true) => {
      outgoing.end(close ? CLOSING : '');
      return answer;
    },
  };
}

/** CSV lines `id,question,answer` for rows from..to-1, with a tag in the answer. */
const csvRows = (from: number, to: number, tag = 'a') =>
  Array.from({ length: to - from }, (_, offset) => `id-${from + offset},question ${from + offset},"${tag}, ${from + offset}"\n`).join('');

/** The pending versions (of the dataset, or all) and how many revisions each has written, straight from the database. */
async function pendingVersions(database: Database, datasetName?: string): Promise<{ id: number; revisions: number }[]> {
  let select = database.db
    .selectFrom('dataset_versions as v')
    .innerJoin('datasets as d', 'd.id', 'v.dataset_id')
    .leftJoin('dataset_example_revisions as r', 'r.version_id', 'v.id')
    .select((eb) => ['v.id', eb.fn.count<number | string>('r.id').as('revisions')])
    .where('v.completed_at', 'is', null)
    .groupBy('v.id');
  if (datasetName !== undefined) select = select.where('d.name', '=', datasetName);
  return (await select.execute()).map((row) => ({ id: Number(row.id), revisions: Number(row.revisions) }));
}

/** Waits until the dataset's pending version has written at least `revisions` revisions. */
async function untilWritten(database: Database, datasetName: string, revisions: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [pending] = await pendingVersions(database, datasetName);
    if (pending && pending.revisions >= revisions) return;
    assert.ok(Date.now() < deadline, `the upload to ${datasetName} wrote ${pending?.revisions ?? 'no'} revisions in time`);
    await sleep(20);
  }
}

/** Rows of the dataset (any version, pending too) straight from the database: datasets, versions, examples. */
async function storedRows(database: Database, datasetName: string) {
  const datasets = await database.db.selectFrom('datasets').select('id').where('name', '=', datasetName).execute();
  const ids = datasets.map((row) => Number(row.id));
  if (ids.length === 0) return { datasets: 0, versions: 0, examples: 0, revisions: 0 };
  const count = async (table: 'dataset_versions' | 'dataset_examples') =>
    Number(
      (
        await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('dataset_id', 'in', ids)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const revisions = await database.db
    .selectFrom('dataset_example_revisions as r')
    .innerJoin('dataset_examples as e', 'e.id', 'r.example_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('e.dataset_id', 'in', ids)
    .executeTakeFirstOrThrow();
  return {
    datasets: ids.length,
    versions: await count('dataset_versions'),
    examples: await count('dataset_examples'),
    revisions: Number(revisions.n),
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

  const database = () => server().server.database;
  const csvFields = (name: string, action: string): [string, string][] => [
    ['name', name],
    ['action', action],
    ['input_keys[]', 'question'],
    ['output_keys[]', 'answer'],
    ['example_id_key', 'id'],
  ];
  const csvFile = (content: string) => ({ name: 'rows.csv', type: 'text/csv', content: `id,question,answer\n${content}` });

  it('writes a file of many batches as it arrives, and reads it back exactly and in order', async () => {
    const name = unique('batches');
    const created = await uploadFile(csvFields(name, 'create'), csvFile(csvRows(0, 3500)));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.data?.num_created_examples, 3500);
    const datasetId = created.body.data!.dataset_id;
    const first = await examplesAt(datasetId);
    assert.deepEqual(
      first.examples.map((example) => [example.id, example.input, example.output]),
      Array.from({ length: 3500 }, (_, index) => [`id-${index}`, { question: `question ${index}` }, { answer: `a, ${index}` }]),
    );
    assert.equal((await getOk(url(), `/v1/datasets/${datasetId}`)).data.example_count, 3500);
    assert.equal((await getOk(url(), `/v1/datasets/${datasetId}/versions`)).data.length, 1, 'one version for all the batches');

    const lines = Array.from({ length: 1200 }, (_, index) => `${JSON.stringify({ id: `j-${index}`, q: { n: index }, a: [index] })}\n`);
    const appended = await uploadFile(
      [
        ['name', name],
        ['action', 'append'],
        ['input_keys[]', 'q'],
        ['output_keys[]', 'a'],
        ['example_id_key', 'id'],
      ],
      { name: 'more.jsonl', type: 'application/jsonl', content: lines.join('') },
    );
    assert.equal(appended.status, 200, JSON.stringify(appended.body));
    const second = await examplesAt(datasetId);
    assert.equal(second.examples.length, 4700);
    assert.deepEqual(second.examples.slice(0, 3500), first.examples, "the first version's examples are untouched");
    assert.deepEqual(
      second.examples.slice(3500).map((example) => [example.id, example.input, example.output]),
      Array.from({ length: 1200 }, (_, index) => [`j-${index}`, { q: { n: index } }, { a: [index] }]),
    );
    assert.deepEqual(await examplesAt(datasetId, first.version_id), first);
  });

  it('stores nothing of a file that fails in its last batch: no dataset for create, no version for append', async () => {
    const db = database();
    const failures: [string, { name: string; type: string; content: string }, number, RegExp][] = [
      ['an unclosed quote', csvFile(`${csvRows(0, 2500)}id-x,"open,quote\n`), 422, /CSV file is malformed/],
      ['a ragged row', csvFile(`${csvRows(0, 2500)}id-x,1,2,3\n`), 422, /malformed at line 2502/],
      ['an id sent twice, batches apart', csvFile(`${csvRows(0, 2500)}id-7,again,again\n`), 422, /repeat an id: "id-7"/],
      [
        'a JSONL line that is not JSON',
        { name: 'rows.jsonl', type: 'application/jsonl', content: `${'{"id":"j","question":"q","answer":"a"}\n'.repeat(2500)}{nope\n` },
        422,
        /line 2501 of the JSONL file is not valid JSON/,
      ],
    ];
    for (const [what, file, status, detail] of failures) {
      const name = unique('broken-create');
      const fields = csvFields(name, 'create').filter(([key]) => !(file.name.endsWith('.jsonl') && key === 'example_id_key'));
      const answer = await uploadFile(fields, file);
      assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.detail ?? '', detail, what);
      assert.deepEqual((await getOk(url(), `/v1/datasets?name=${encodeURIComponent(name)}`)).data, [], what);
      assert.deepEqual(await storedRows(db, name), { datasets: 0, versions: 0, examples: 0, revisions: 0 }, `${what}: no row left`);
    }

    const name = unique('broken-append');
    const created = expectStatus(await upload({ action: 'create', name, ...examples('kept', 2) }), 200).body.data;
    const before = await examplesAt(created.dataset_id);
    for (const [what, file, status, detail] of failures.slice(0, 3)) {
      const answer = await uploadFile(csvFields(name, 'append'), file);
      assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.detail ?? '', detail, what);
    }
    // A body cut short after two batches: the multipart parser fails mid-file.
    const cut = openCsvUpload(url(), csvFields(name, 'append'));
    cut.write(`id,question,answer\n${csvRows(0, 2500)}`);
    await untilWritten(db, name, 2000);
    const answer = await cut.finish(false);
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.match(answer.body.detail ?? '', /unexpected end of multipart data/);
    assert.deepEqual(await examplesAt(created.dataset_id), before);
    assert.equal((await getOk(url(), `/v1/datasets/${created.dataset_id}/versions`)).data.length, 1);
    assert.deepEqual(await storedRows(db, name), { datasets: 1, versions: 1, examples: 2, revisions: 2 }, "only the first version's rows");
    assert.deepEqual(await pendingVersions(db, name), []);
  });

  it('while a file is written, readers see the previous version only and other uploads to the dataset get 409', async () => {
    const db = database();
    const name = unique('in-flight');
    const first = expectStatus(
      await upload({ action: 'create', name, inputs: [{ question: 'old' }], outputs: [{ answer: 'old' }], example_ids: ['old'] }),
      200,
    ).body.data;
    const before = await examplesAt(first.dataset_id);
    const experimentsBefore = (await getOk(url(), `/v1/datasets/${first.dataset_id}/experiments`)).data.length;
    const writing = openCsvUpload(url(), csvFields(name, 'append'));
    writing.write(`id,question,answer\n${csvRows(0, 2500)}`);
    await untilWritten(db, name, 2000);

    assert.deepEqual(await examplesAt(first.dataset_id), before, 'the examples of the latest complete version');
    assert.deepEqual(
      (await getOk(url(), `/v1/datasets/${first.dataset_id}/versions`)).data.map((version: { version_id: string }) => version.version_id),
      [first.version_id],
    );
    assert.equal((await getOk(url(), `/v1/datasets/${first.dataset_id}`)).data.example_count, 1);
    assert.equal((await getOk(url(), `/v1/datasets?name=${encodeURIComponent(name)}`)).data[0].example_count, 1);
    const download = await fetch(`${url()}/v1/datasets/${first.dataset_id}/jsonl`);
    assert.equal((await download.text()).trim().split('\n').length, 1);
    const [pending] = await pendingVersions(db, name);
    expectError(
      await request(url(), 'GET', `/v1/datasets/${first.dataset_id}/examples?version_id=${toGlobalId('DatasetVersion', pending!.id)}`),
      404,
      /version/,
    );
    const experiment = expectStatus(
      await request(url(), 'POST', `/v1/datasets/${first.dataset_id}/experiments`, { name: 'meanwhile' }),
      200,
    ).body.data;
    assert.deepEqual(
      [experiment.dataset_version_id, experiment.example_count],
      [first.version_id, 1],
      'an experiment takes the complete version',
    );
    expectError(
      await request(url(), 'POST', `/v1/datasets/${first.dataset_id}/experiments`, {
        version_id: toGlobalId('DatasetVersion', pending!.id),
      }),
      404,
    );

    expectError(await upload({ action: 'append', name, inputs: [{ q: 1 }] }), 409, /upload to dataset .* is in progress/);
    expectError(await upload({ action: 'update', name, inputs: [{ q: 1 }] }), 409, /in progress/);
    expectError(await upload({ action: 'create', name, inputs: [{ q: 1 }] }), 409, /in progress/);
    const second = await uploadFile(csvFields(name, 'append'), csvFile(csvRows(5000, 5001)));
    assert.equal(second.status, 409, JSON.stringify(second.body));
    assert.match(second.body.detail ?? '', /in progress/);
    expectError(await request(url(), 'DELETE', `/v1/datasets/${first.dataset_id}`), 409, /in progress/);

    writing.write(csvRows(2500, 3000));
    const done = await writing.finish();
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.data?.num_created_examples, 3000);
    const after = await examplesAt(first.dataset_id);
    assert.equal(after.version_id, done.body.data?.version_id);
    assert.deepEqual(
      after.examples.map((example) => example.id),
      ['old', ...Array.from({ length: 3000 }, (_, index) => `id-${index}`)],
    );
    assert.deepEqual(await examplesAt(first.dataset_id, first.version_id), before, 'the first version is unchanged');
    assert.equal((await getOk(url(), `/v1/datasets/${first.dataset_id}/experiments`)).data.length, experimentsBefore + 1);
    expectStatus(await upload({ action: 'append', name, inputs: [{ q: 1 }] }), 200, 'the next upload goes ahead');
  });

  it('keeps a dataset whose first upload is being written invisible, and its name taken', async () => {
    const name = unique('creating');
    const writing = openCsvUpload(url(), csvFields(name, 'create'));
    writing.write(`id,question,answer\n${csvRows(0, 2500)}`);
    await untilWritten(database(), name, 2000);
    assert.deepEqual((await getOk(url(), `/v1/datasets?name=${encodeURIComponent(name)}`)).data, []);
    expectError(await request(url(), 'GET', `/v1/datasets/${encodeURIComponent(name)}`), 404);
    const names = (await getOk(url(), '/v1/datasets?limit=1000')).data.map((dataset: { name: string }) => dataset.name);
    assert.ok(!names.includes(name), 'not listed');
    expectError(await upload({ action: 'create', name, inputs: [{ q: 1 }] }), 409, /in progress/);
    const done = await writing.finish();
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal((await getOk(url(), `/v1/datasets/${encodeURIComponent(name)}`)).data.example_count, 2500);
  });

  it('deletes what an upload that died left behind when the next upload starts', async () => {
    const { db } = database();
    const name = unique('died');
    expectStatus(await upload({ action: 'create', name, inputs: [{ q: 'kept' }], example_ids: ['kept'] }), 200);
    const longAgo = '2000-01-01T00:00:00.000Z';
    const dataset = await db.selectFrom('datasets').select('id').where('name', '=', name).executeTakeFirstOrThrow();
    await leaveDeadUpload(db, Number(dataset.id), 'ghost');
    const firstUploadDied = unique('died-first');
    const orphan = await db
      .insertInto('datasets')
      .values({ name: firstUploadDied, description: null, metadata: '{}', created_at: longAgo, updated_at: longAgo })
      .returning('id')
      .executeTakeFirstOrThrow();
    await leaveDeadUpload(db, Number(orphan.id), 'ghost');

    const datasetId = toGlobalId('Dataset', Number(dataset.id));
    assert.deepEqual(
      (await examplesAt(datasetId)).examples.map((example) => example.id),
      ['kept'],
      'readers never see it',
    );
    assert.equal((await getOk(url(), `/v1/datasets/${datasetId}`)).data.example_count, 1);
    assert.deepEqual((await getOk(url(), `/v1/datasets?name=${encodeURIComponent(firstUploadDied)}`)).data, []);

    // The next upload (to any dataset) deletes both, and the ghost's id is free again.
    expectStatus(await upload({ action: 'append', name, inputs: [{ q: 'new ghost' }], example_ids: ['ghost'] }), 200);
    assert.deepEqual(await storedRows(database(), firstUploadDied), { datasets: 0, versions: 0, examples: 0, revisions: 0 });
    assert.deepEqual(await pendingVersions(database(), name), []);
    assert.deepEqual(
      (await examplesAt(datasetId)).examples.map((example) => [example.id, example.input]),
      [
        ['kept', { q: 'kept' }],
        ['ghost', { q: 'new ghost' }],
      ],
    );
    assert.deepEqual(await storedRows(database(), name), { datasets: 1, versions: 2, examples: 2, revisions: 2 });
    expectStatus(await upload({ action: 'create', name: firstUploadDied, inputs: [{ q: 1 }] }), 200, 'its name is free');
  });

  it('updates from a file batch by batch: matches by id or content, patches, deletes the rest; old versions keep theirs', async () => {
    const name = unique('file-update');
    const created = await uploadFile(csvFields(name, 'create'), csvFile(csvRows(0, 2500)));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const datasetId = created.body.data!.dataset_id;
    const first = await examplesAt(datasetId);
    // Drop 100..199, change 1000..1049, keep the rest, add 30.
    const kept = Array.from({ length: 2500 }, (_, index) => index).filter((index) => index < 100 || index >= 200);
    const sent =
      kept.map((index) => csvRows(index, index + 1, index >= 1000 && index < 1050 ? 'b' : 'a')).join('') +
      Array.from({ length: 30 }, (_, index) => `new-${index},new question ${index},new\n`).join('');
    const updated = await uploadFile(csvFields(name, 'update'), csvFile(sent));
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const counts = (data: Record<string, unknown> | undefined) => [
      data?.num_created_examples,
      data?.num_updated_examples,
      data?.num_deleted_examples,
    ];
    assert.deepEqual(counts(updated.body.data), [30, 50, 100]);
    const second = await examplesAt(datasetId);
    assert.deepEqual(
      second.examples.map((example) => example.id),
      [...kept.map((index) => `id-${index}`), ...Array.from({ length: 30 }, (_, index) => `new-${index}`)],
    );
    const byId = new Map(second.examples.map((example) => [example.id, example]));
    assert.deepEqual(byId.get('id-1000')?.output, { answer: 'b, 1000' });
    assert.deepEqual(byId.get('id-999'), first.examples[999], 'an unchanged example keeps its revision');
    assert.deepEqual(await examplesAt(datasetId, first.version_id), first, 'the first version is unchanged');
    assert.equal((await getOk(url(), `/v1/datasets/${datasetId}`)).data.example_count, 2430);

    // An id deleted at an earlier version, sent again, comes back under its old node id.
    const revived = await uploadFile(csvFields(name, 'update'), csvFile(`${sent}${csvRows(150, 151)}`));
    assert.equal(revived.status, 200, JSON.stringify(revived.body));
    assert.deepEqual(counts(revived.body.data), [1, 0, 0]);
    const back = (await examplesAt(datasetId)).examples.find((example) => example.id === 'id-150');
    assert.deepEqual(
      [back?.node_id, back?.input, back?.output],
      [first.examples[150]!.node_id, first.examples[150]!.input, first.examples[150]!.output],
    );

    // Without ids: matched by content, batch by batch; a repeated row is a new example.
    const plain = unique('file-update-content');
    const rows = Array.from({ length: 1500 }, (_, index) => `question ${index},answer ${index}\n`).join('');
    const plainFields = (action: string): [string, string][] => [
      ['name', plain],
      ['action', action],
      ['input_keys[]', 'question'],
      ['output_keys[]', 'answer'],
    ];
    const plainFile = (content: string) => ({ name: 'rows.csv', type: 'text/csv', content: `question,answer\n${content}` });
    const made = await uploadFile(plainFields('create'), plainFile(rows));
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const nodeIds = (await examplesAt(made.body.data!.dataset_id)).examples.map((example) => example.node_id);
    const again = await uploadFile(plainFields('update'), plainFile(`${rows}question 0,answer 0\n`));
    assert.deepEqual(counts(again.body.data), [1, 0, 0]);
    const matched = (await examplesAt(made.body.data!.dataset_id)).examples;
    assert.deepEqual(
      matched.slice(0, 1500).map((example) => example.node_id),
      nodeIds,
      'matched examples keep their ids',
    );
    const fewer = await uploadFile(plainFields('update'), plainFile(rows.split('\n').slice(500).join('\n')));
    assert.deepEqual(counts(fewer.body.data), [0, 0, 501]);
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

  it('deletes a dataset with its versions, examples and experiments: at once for readers, its rows soon after', async () => {
    const name = unique('gone');
    const created = expectStatus(await upload({ action: 'create', name, ...examples('g', 2) }), 200).body.data;
    const experiment = expectStatus(await request(url(), 'POST', `/v1/datasets/${created.dataset_id}/experiments`, {}), 200).body.data;
    const [example] = (await examplesAt(created.dataset_id)).examples;
    const run = expectStatus(
      await request(url(), 'POST', `/v1/experiments/${experiment.id}/runs`, {
        dataset_example_id: example!.node_id,
        output: 'x',
        repetition_number: 1,
        start_time: '2026-01-01T00:00:00Z',
        end_time: '2026-01-01T00:00:01Z',
      }),
      200,
    ).body.data;
    const evaluation = {
      experiment_run_id: run.id,
      name: 'e',
      annotator_kind: 'CODE',
      start_time: '2026-01-01T00:00:00Z',
      end_time: '2026-01-01T00:00:01Z',
    };
    expectStatus(await request(url(), 'POST', '/v1/experiment_evaluations', evaluation), 200);
    expectStatus(await request(url(), 'DELETE', `/v1/datasets/${created.dataset_id}`), 204);
    expectError(await request(url(), 'GET', `/v1/datasets/${created.dataset_id}`), 404);
    expectError(await request(url(), 'GET', `/v1/datasets/${encodeURIComponent(name)}`), 404);
    expectError(await request(url(), 'GET', `/v1/datasets/${created.dataset_id}/examples`), 404);
    expectError(await request(url(), 'GET', `/v1/datasets/${created.dataset_id}/csv`), 404);
    expectError(await request(url(), 'GET', `/v1/experiments/${experiment.id}`), 404);
    expectError(await request(url(), 'GET', `/v1/experiments/${experiment.id}/runs`), 404);
    expectError(await request(url(), 'POST', '/v1/experiment_evaluations', evaluation), 404);
    expectError(await request(url(), 'DELETE', `/v1/datasets/${created.dataset_id}`), 404);
    // The dataset-deletions job, started by the deletion, removes every row.
    const rowId = Number(Buffer.from(created.dataset_id, 'base64').toString().split(':')[1]);
    const { db } = server().server.database;
    const left = async () =>
      [
        (await db.selectFrom('datasets').select('id').where('id', '=', rowId).execute()).length,
        (await db.selectFrom('dataset_examples').select('id').where('dataset_id', '=', rowId).execute()).length,
        (await db.selectFrom('experiments').select('id').where('dataset_id', '=', rowId).execute()).length,
        (await db.selectFrom('experiment_run_annotations').select('id').where('name', '=', 'e').execute()).length,
      ].reduce((sum, n) => sum + n, 0);
    const deadline = Date.now() + 15_000;
    while ((await left()) > 0) {
      assert.ok(Date.now() < deadline, 'the deleted dataset was purged in time');
      await sleep(50);
    }
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

describeEachDialect(
  'dataset uploads that stall',
  (server) => {
    it('gives up an upload that wrote nothing for the idle timeout: the next upload deletes it and goes ahead, the stalled one gets 409', async () => {
      const url = server().url;
      const name = unique('stalled');
      expectStatus(await request(url, 'POST', '/v1/datasets/upload', { action: 'create', name, inputs: [{ q: 'first' }] }), 200);
      const stalled = openCsvUpload(url, [
        ['name', name],
        ['action', 'append'],
        ['input_keys[]', 'question'],
      ]);
      stalled.write(`id,question,answer\n${csvRows(0, 10)}`);
      await untilWritten(server().server.database, name, 0);
      await sleep(1500);
      expectStatus(
        await request(url, 'POST', '/v1/datasets/upload', { action: 'append', name, inputs: [{ q: 'second' }] }),
        200,
        'an upload idle past the timeout no longer blocks the dataset',
      );
      assert.deepEqual(await pendingVersions(server().server.database, name), [], 'the stalled version is deleted');
      stalled.write(csvRows(10, 20));
      const answer = await stalled.finish();
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assert.match(answer.body.detail ?? '', /was stopped: it wrote nothing for 1 s/);
      const dataset = (await getOk(url, `/v1/datasets/${encodeURIComponent(name)}`)).data;
      const examples = (await getOk(url, `/v1/datasets/${dataset.id}/examples`)).data.examples as Example[];
      assert.deepEqual(
        examples.map((example) => example.input.q),
        ['first', 'second'],
      );
      assert.deepEqual(await storedRows(server().server.database, name), { datasets: 1, versions: 2, examples: 2, revisions: 2 });
    });
  },
  { SERVICE_DATASET_UPLOAD_IDLE_SECONDS: '1' },
);

for (const dialect of DIALECTS) {
  describe(`dataset uploads that died with the server [${dialect}]`, () => {
    const opened: { close(): Promise<void> }[] = [];
    after(async () => {
      for (const item of opened.reverse()) await item.close();
    });

    it('are deleted when the server starts again', async () => {
      const database = await createTestDatabase(dialect);
      opened.push({ close: () => database.drop() });
      const first = await startServerOn(database);
      const name = unique('before-crash');
      const { db } = first.database;
      try {
        expectStatus(await request(first.url, 'POST', '/v1/datasets/upload', { action: 'create', name, inputs: [{ q: 1 }] }), 200);
        const dataset = await db.selectFrom('datasets').select('id').where('name', '=', name).executeTakeFirstOrThrow();
        await leaveDeadUpload(db, Number(dataset.id), null);
        assert.deepEqual(await storedRows(first.database, name), { datasets: 1, versions: 2, examples: 2, revisions: 2 });
      } finally {
        await first.close();
      }
      const second = await startServerOn(database);
      try {
        assert.deepEqual(await storedRows(second.database, name), { datasets: 1, versions: 1, examples: 1, revisions: 1 });
        assert.deepEqual(await pendingVersions(second.database), []);
      } finally {
        await second.close();
      }
    });
  });
}

/** What a process that died mid-upload leaves: a pending version, idle since long ago, with one example written. */
async function leaveDeadUpload(db: Kysely<DB>, datasetId: number, externalId: string | null): Promise<void> {
  const longAgo = '2000-01-01T00:00:00.000Z';
  const version = await db
    .insertInto('dataset_versions')
    .values({ dataset_id: datasetId, description: null, metadata: '{}', created_at: longAgo, completed_at: null, last_write_at: longAgo })
    .returning('id')
    .executeTakeFirstOrThrow();
  const example = await db
    .insertInto('dataset_examples')
    .values({ dataset_id: datasetId, external_id: externalId, source_span_id: null, created_at: longAgo })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('dataset_example_revisions')
    .values({
      example_id: example.id,
      version_id: version.id,
      kind: 'CREATE',
      input: '{"q":"ghost"}',
      output: '{}',
      metadata: '{}',
      created_at: longAgo,
    })
    .execute();
}
