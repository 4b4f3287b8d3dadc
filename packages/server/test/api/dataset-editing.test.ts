/**
 * Editing a dataset by hand, what the web UI's dataset pages send (docs/datasets.md, "Empty
 * datasets" and "Deleting an example"): a dataset created with no examples, one example appended
 * to it, and one example deleted as a new version that older versions do not see; the 404s and
 * the 409 while an upload is being written, and who may call.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { AUTH_ENV, anonymous, expectStatus, memberAndSystemClients, unique, type ApiClient } from '../helpers/auth.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

interface Example {
  id: string;
  node_id: string;
  input: Record<string, unknown>;
}

const BOUNDARY = 'dataset-editing-boundary';

describeEachDialect('dataset editing API', (server) => {
  const url = () => server().url;
  const upload = async (body: Record<string, unknown>) =>
    expectStatus(await request(url(), 'POST', '/v1/datasets/upload', body), 200).body.data;
  const examplesAt = async (datasetId: string, versionId?: string): Promise<Example[]> =>
    (await getOk(url(), `/v1/datasets/${datasetId}/examples${versionId ? `?version_id=${encodeURIComponent(versionId)}` : ''}`)).data
      .examples;
  const versionCounts = async (datasetId: string): Promise<number[]> =>
    (await getOk(url(), `/v1/datasets/${datasetId}/versions`)).data.map((version: { example_count: number }) => version.example_count);
  const deleteExample = (datasetId: string, exampleId: string) =>
    request(url(), 'DELETE', `/v1/datasets/${encodeURIComponent(datasetId)}/examples/${encodeURIComponent(exampleId)}`);

  it('creates a dataset with no examples, then appends one example to it as a new version', async () => {
    const name = unique('empty');
    const created = await upload({ action: 'create', name, description: 'filled by hand', inputs: [] });
    assert.equal(created.num_created_examples, 0);
    const dataset = (await getOk(url(), `/v1/datasets/${created.dataset_id}`)).data;
    assert.deepEqual([dataset.name, dataset.description, dataset.example_count], [name, 'filled by hand', 0]);
    assert.deepEqual(await versionCounts(created.dataset_id), [0], 'one version, with no example');
    assert.deepEqual(await examplesAt(created.dataset_id), []);
    expectError(await request(url(), 'POST', '/v1/datasets/upload', { action: 'create', name, inputs: [] }), 409, /already exists/);

    const appended = await upload({
      action: 'append',
      name,
      inputs: [{ question: 'Who wrote Hamlet?' }],
      outputs: [{ answer: 'Shakespeare' }],
      metadata: [{ source: 'by hand' }],
    });
    assert.equal(appended.dataset_id, created.dataset_id);
    const [example] = await examplesAt(created.dataset_id);
    assert.deepEqual(example?.input, { question: 'Who wrote Hamlet?' });
    assert.deepEqual(await versionCounts(created.dataset_id), [1, 0]);
    assert.deepEqual(await examplesAt(created.dataset_id, created.version_id), [], 'the first version is still empty');
  });

  it('deletes an example by node id or by its own id as a new version; older versions keep it', async () => {
    const name = unique('deletes');
    const created = await upload({
      action: 'create',
      name,
      inputs: [{ n: 1 }, { n: 2 }, { n: 3 }],
      example_ids: [null, 'ext-two', null],
    });
    const [first, second, third] = await examplesAt(created.dataset_id);
    assert.equal(second?.id, 'ext-two');

    const byNode = expectStatus(await deleteExample(created.dataset_id, first!.node_id), 200).body.data;
    assert.equal(byNode.dataset_id, created.dataset_id);
    assert.notEqual(byNode.version_id, created.version_id, 'a new version');
    assert.equal(byNode.example_count, 2);
    assert.deepEqual(
      (await examplesAt(created.dataset_id)).map((example) => example.input.n),
      [2, 3],
    );
    assert.equal((await getOk(url(), `/v1/datasets/${created.dataset_id}`)).data.example_count, 2);

    // The dataset by name, the example by the caller's id.
    const byOwnId = expectStatus(await deleteExample(name, 'ext-two'), 200).body.data;
    assert.equal(byOwnId.example_count, 1);
    assert.deepEqual(
      (await examplesAt(created.dataset_id)).map((example) => example.node_id),
      [third!.node_id],
    );
    assert.deepEqual(await versionCounts(created.dataset_id), [1, 2, 3]);
    assert.deepEqual(
      (await examplesAt(created.dataset_id, created.version_id)).map((example) => example.input.n),
      [1, 2, 3],
      'the first version holds every example still',
    );
    assert.deepEqual(
      (await examplesAt(created.dataset_id, byNode.version_id)).map((example) => example.input.n),
      [2, 3],
    );
    const download = await fetch(`${url()}/v1/datasets/${created.dataset_id}/jsonl`);
    assert.deepEqual(
      (await download.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).input),
      [{ n: 3 }],
    );

    expectError(await deleteExample(created.dataset_id, first!.node_id), 404, /example ".*" not found in dataset/);
    expectError(await deleteExample(created.dataset_id, 'ext-two'), 404, /not found/);
    const other = await upload({ action: 'create', name: unique('other'), inputs: [{ n: 9 }] });
    const [foreign] = await examplesAt(other.dataset_id);
    expectError(await deleteExample(created.dataset_id, foreign!.node_id), 404, /not found/);
    expectError(await deleteExample(created.dataset_id, toGlobalId('DatasetExample', 999_999)), 404, /not found/);
    expectError(await deleteExample(toGlobalId('Dataset', 999_999), third!.node_id), 404, /dataset ".*" not found/);
    assert.deepEqual(await versionCounts(created.dataset_id), [1, 2, 3], 'a refused delete writes no version');

    // The last example goes too: an empty latest version.
    assert.equal(expectStatus(await deleteExample(created.dataset_id, third!.node_id), 200).body.data.example_count, 0);
    assert.deepEqual(await examplesAt(created.dataset_id), []);
  });

  it('refuses to delete an example while an upload to the dataset is being written (409), and deletes once it has finished', async () => {
    const name = unique('busy');
    const created = await upload({ action: 'create', name, inputs: [{ q: 'kept' }, { q: 'goes' }] });
    const [, goes] = await examplesAt(created.dataset_id);
    // A form upload whose file is still arriving: its version is pending until the body ends.
    const outgoing = http.request(new URL(`${url()}/v1/datasets/upload`), {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    const answer = new Promise<number>((resolve, reject) => {
      outgoing.on('error', reject);
      outgoing.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
    });
    const field = (key: string, value: string) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`;
    outgoing.write(
      `${field('name', name)}${field('action', 'append')}${field('input_keys[]', 'q')}` +
        `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="more.csv"\r\ncontent-type: text/csv\r\n\r\nq\nfirst\nsecond\n`,
    );
    const db = server().server.database.db;
    const pending = async () =>
      (
        await db
          .selectFrom('dataset_versions as v')
          .innerJoin('datasets as d', 'd.id', 'v.dataset_id')
          .select('v.id')
          .where('d.name', '=', name)
          .where('v.completed_at', 'is', null)
          .execute()
      ).length;
    const deadline = Date.now() + 10_000;
    while ((await pending()) === 0) {
      assert.ok(Date.now() < deadline, 'the upload started in time');
      await sleep(20);
    }
    expectError(await deleteExample(created.dataset_id, goes!.node_id), 409, /an upload to dataset ".*" is in progress/);
    outgoing.end(`\r\n--${BOUNDARY}--\r\n`);
    assert.equal(await answer, 200);
    assert.equal(expectStatus(await deleteExample(created.dataset_id, goes!.node_id), 200).body.data.example_count, 3);
    assert.deepEqual(
      (await examplesAt(created.dataset_id)).map((example) => example.input.q),
      ['kept', 'first', 'second'],
    );
  });
});

describeEachDialect(
  'dataset editing API with auth on',
  (server) => {
    const url = () => server().url;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      ({ member, system } = await memberAndSystemClients(url()));
    });

    it('lets members and system keys create an empty dataset and delete examples; refuses calls without a credential', async () => {
      for (const client of [member, system]) {
        const empty = expectStatus(
          await client.post('/v1/datasets/upload', { action: 'create', name: unique('auth-empty'), inputs: [] }),
          200,
        ).body.data;
        assert.equal(empty.num_created_examples, 0);
        const dataset = expectStatus(
          await client.post('/v1/datasets/upload', { action: 'create', name: unique('auth-del'), inputs: [{ q: 1 }] }),
          200,
        ).body.data;
        const [example] = expectStatus(await client.get(`/v1/datasets/${dataset.dataset_id}/examples`), 200).body.data.examples;
        const deleted = expectStatus(await client.delete(`/v1/datasets/${dataset.dataset_id}/examples/${example.node_id}`), 200);
        assert.equal(deleted.body.data.example_count, 0);
      }
      const nobody = anonymous(url());
      expectStatus(await nobody.delete(`/v1/datasets/${toGlobalId('Dataset', 1)}/examples/${toGlobalId('DatasetExample', 1)}`), 401);
    });
  },
  AUTH_ENV,
);
