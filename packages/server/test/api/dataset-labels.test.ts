/**
 * Dataset labels (docs/datasets.md, "Labels"), Phoenix's routes and shapes: create, read, page,
 * change and delete labels (409 on a taken name), apply, remove and replace the labels of a
 * dataset (idempotent, 404 for unknown ones), the 4xx answers for bad input, and who may call.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { AUTH_ENV, anonymous, expectStatus, memberAndSystemClients, unique, type ApiClient } from '../helpers/auth.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

interface Label {
  id: string;
  name: string;
  description: string | null;
  color: string;
}

describeEachDialect('dataset labels API', (server) => {
  const url = () => server().url;
  const createLabel = async (fields: Record<string, unknown>): Promise<Label> => {
    const response = await request(url(), 'POST', '/v1/dataset_labels', fields);
    assert.equal(response.status, 201, response.text);
    return response.body.data as Label;
  };
  const createDataset = async (name = unique('labelled')): Promise<string> => {
    const response = await request(url(), 'POST', '/v1/datasets/upload?sync=true', { action: 'create', name, inputs: [{ q: 1 }] });
    assert.equal(response.status, 200, response.text);
    return response.body.data.dataset_id as string;
  };

  it('creates a label in Phoenix shape, reads it back, changes it and deletes it', async () => {
    const name = unique('gold');
    const label = await createLabel({ name, color: '#00cc88', description: 'hand-checked' });
    assert.deepEqual(Object.keys(label).sort(), ['color', 'description', 'id', 'name']);
    assert.equal(Buffer.from(label.id, 'base64').toString().startsWith('DatasetLabel:'), true, 'the id is a DatasetLabel GlobalID');
    assert.deepEqual([label.name, label.color, label.description], [name, '#00cc88', 'hand-checked']);
    assert.deepEqual((await getOk(url(), `/v1/dataset_labels/${label.id}`)).data, label);

    const renamed = unique('silver');
    const patched = await request(url(), 'PATCH', `/v1/dataset_labels/${label.id}`, { name: renamed });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.data, { ...label, name: renamed }, 'only the name changed');
    const cleared = await request(url(), 'PATCH', `/v1/dataset_labels/${label.id}`, { description: null, color: '#112233' });
    assert.deepEqual(cleared.body.data, { ...label, name: renamed, description: null, color: '#112233' });

    assert.equal((await request(url(), 'DELETE', `/v1/dataset_labels/${label.id}`)).status, 204);
    expectError(await request(url(), 'GET', `/v1/dataset_labels/${label.id}`), 404, /not found/);
    expectError(await request(url(), 'DELETE', `/v1/dataset_labels/${label.id}`), 404, /not found/);
    expectError(await request(url(), 'PATCH', `/v1/dataset_labels/${label.id}`, { name: unique('x') }), 404, /not found/);
  });

  it('answers 409 for a taken name, on create and on rename', async () => {
    const first = await createLabel({ name: unique('taken'), color: '#aabbcc' });
    expectError(await request(url(), 'POST', '/v1/dataset_labels', { name: first.name, color: '#000000' }), 409, /already exists/);
    const second = await createLabel({ name: unique('other'), color: '#aabbcc' });
    expectError(await request(url(), 'PATCH', `/v1/dataset_labels/${second.id}`, { name: first.name }), 409, /already exists/);
    assert.equal((await getOk(url(), `/v1/dataset_labels/${second.id}`)).data.name, second.name, 'the refused rename changed nothing');
  });

  it('lists labels newest first, page by page', async () => {
    const made = [];
    for (let index = 0; index < 3; index++) made.push(await createLabel({ name: unique(`page-${index}`), color: '#010203' }));
    const first = await getOk(url(), '/v1/dataset_labels?limit=2');
    assert.deepEqual(
      first.data.map((label: Label) => label.id),
      [made[2]!.id, made[1]!.id],
    );
    assert.equal(typeof first.next_cursor, 'string');
    const second = await getOk(url(), `/v1/dataset_labels?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    assert.equal(second.data[0].id, made[0]!.id, 'the next page starts where the first stopped');
    expectError(await request(url(), 'GET', '/v1/dataset_labels?cursor=nonsense'), 422, /cursor/);
  });

  it('applies, lists, replaces and removes the labels of a dataset, idempotently', async () => {
    const datasetName = unique('ds');
    const datasetId = await createDataset(datasetName);
    const [a, b, c] = [
      await createLabel({ name: unique('a'), color: '#aa0000' }),
      await createLabel({ name: unique('b'), color: '#00bb00' }),
      await createLabel({ name: unique('c'), color: '#0000cc' }),
    ];
    const applied = await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels/${a!.id}`);
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(applied.body.data, a);
    assert.equal((await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels/${a!.id}`)).status, 200, 'applying twice is a no-op');
    // By name too, as Phoenix's dataset_identifier allows.
    assert.equal((await request(url(), 'PUT', `/v1/datasets/${encodeURIComponent(datasetName)}/labels/${b!.id}`)).status, 200);
    const listed = await getOk(url(), `/v1/datasets/${datasetId}/labels`);
    assert.deepEqual(listed.data, [b, a], 'newest label first');
    assert.equal(listed.next_cursor, null);

    const set = await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels`, { dataset_label_ids: [c!.id, a!.id, c!.id] });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.data, [c, a], 'b removed, c added, a kept; a repeated id counts once');
    assert.deepEqual((await getOk(url(), `/v1/datasets/${datasetId}/labels`)).data, [c, a]);

    const unknown = toGlobalId('DatasetLabel', 987654);
    expectError(
      await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels`, { dataset_label_ids: [b!.id, unknown] }),
      404,
      /987654|not found/,
    );
    assert.deepEqual((await getOk(url(), `/v1/datasets/${datasetId}/labels`)).data, [c, a], 'a refused set changes nothing');

    assert.equal((await request(url(), 'DELETE', `/v1/datasets/${datasetId}/labels/${c!.id}`)).status, 204);
    assert.equal((await request(url(), 'DELETE', `/v1/datasets/${datasetId}/labels/${c!.id}`)).status, 204, 'removing twice is a no-op');
    assert.deepEqual((await getOk(url(), `/v1/datasets/${datasetId}/labels`)).data, [a]);

    // Deleting a label takes it off the dataset.
    assert.equal((await request(url(), 'DELETE', `/v1/dataset_labels/${a!.id}`)).status, 204);
    assert.deepEqual((await getOk(url(), `/v1/datasets/${datasetId}/labels`)).data, []);

    const emptied = await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels`, {});
    assert.deepEqual(emptied.body.data, [], 'no ids: no labels');
  });

  it('answers 404 and 422 with a sentence', async () => {
    const datasetId = await createDataset();
    const label = await createLabel({ name: unique('l'), color: '#123456' });
    const noDataset = toGlobalId('Dataset', 987654);
    const noLabel = toGlobalId('DatasetLabel', 987654);
    expectError(await request(url(), 'GET', `/v1/datasets/${noDataset}/labels`), 404, /dataset/);
    expectError(await request(url(), 'PUT', `/v1/datasets/${noDataset}/labels/${label.id}`), 404, /dataset/);
    expectError(await request(url(), 'DELETE', `/v1/datasets/${noDataset}/labels/${label.id}`), 404, /dataset/);
    expectError(await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels/${noLabel}`), 404, /label/);
    expectError(await request(url(), 'GET', `/v1/dataset_labels/${noLabel}`), 404, /label/);

    expectError(await request(url(), 'GET', '/v1/dataset_labels/not-an-id'), 422, /not a dataset label id/);
    expectError(await request(url(), 'GET', `/v1/dataset_labels/${toGlobalId('Dataset', 1)}`), 422, /not a dataset label id/);
    expectError(await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels/not-an-id`), 422, /not a dataset label id/);
    expectError(
      await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels`, { dataset_label_ids: ['nope'] }),
      422,
      /not a dataset label id/,
    );
    expectError(await request(url(), 'POST', '/v1/dataset_labels', { name: unique('c'), color: 'red' }), 422, /hex colour/);
    expectError(await request(url(), 'POST', '/v1/dataset_labels', { name: unique('c'), color: '#AABBCC' }), 422, /lower-case/);
    expectError(await request(url(), 'POST', '/v1/dataset_labels', { color: '#aabbcc' }), 422, /name/);
    expectError(await request(url(), 'POST', '/v1/dataset_labels', { name: '   ', color: '#aabbcc' }), 422, /blank/);
    expectError(await request(url(), 'PATCH', `/v1/dataset_labels/${label.id}`, {}), 422, /no fields to update/);
    expectError(await request(url(), 'PATCH', `/v1/dataset_labels/${label.id}`, { name: null }), 422, /name cannot be null/);
    expectError(await request(url(), 'PATCH', `/v1/dataset_labels/${label.id}`, { color: null }), 422, /color cannot be null/);
    expectError(await request(url(), 'GET', '/v1/dataset_labels?limit=0'), 422, /limit/);
    assert.deepEqual((await getOk(url(), `/v1/dataset_labels/${label.id}`)).data, label, 'refused changes changed nothing');
  });

  it('hides the labels of a deleted dataset', async () => {
    const datasetId = await createDataset();
    const label = await createLabel({ name: unique('gone'), color: '#999999' });
    assert.equal((await request(url(), 'PUT', `/v1/datasets/${datasetId}/labels/${label.id}`)).status, 200);
    assert.equal((await request(url(), 'DELETE', `/v1/datasets/${datasetId}`)).status, 204);
    expectError(await request(url(), 'GET', `/v1/datasets/${datasetId}/labels`), 404);
    assert.deepEqual((await getOk(url(), `/v1/dataset_labels/${label.id}`)).data, label, 'the label itself stays');
  });
});

describeEachDialect(
  'dataset labels API with auth on',
  (server) => {
    const url = () => server().url;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      ({ member, system } = await memberAndSystemClients(url()));
    });

    it('lets members and system keys create, apply, change and delete labels; refuses calls without a credential', async () => {
      for (const client of [member, system]) {
        const dataset = expectStatus(
          await client.post('/v1/datasets/upload', { action: 'create', name: unique('auth-ds'), inputs: [{ q: 1 }] }),
          200,
        ).body.data;
        const label = expectStatus(await client.post('/v1/dataset_labels', { name: unique('auth'), color: '#abcdef' }), 201).body.data;
        expectStatus(await client.request('PUT', `/v1/datasets/${dataset.dataset_id}/labels/${label.id}`), 200);
        expectStatus(await client.get(`/v1/datasets/${dataset.dataset_id}/labels`), 200);
        expectStatus(await client.patch(`/v1/dataset_labels/${label.id}`, { description: 'x' }), 200);
        expectStatus(await client.delete(`/v1/datasets/${dataset.dataset_id}/labels/${label.id}`), 204);
        expectStatus(await client.delete(`/v1/dataset_labels/${label.id}`), 204);
      }
      const nobody = anonymous(url());
      expectStatus(await nobody.get('/v1/dataset_labels'), 401);
      expectStatus(await nobody.post('/v1/dataset_labels', { name: unique('nope'), color: '#abcdef' }), 401);
    });
  },
  AUTH_ENV,
);
