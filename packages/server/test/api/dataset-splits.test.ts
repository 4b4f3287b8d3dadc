/**
 * Dataset splits (docs/datasets.md, "Splits"), Phoenix's routes and shapes: create a split seeded
 * with examples, change it and its examples, delete it (the examples stay), read a dataset's
 * examples filtered by split, the 409 of a taken name, the 4xx answers for bad input, and who may call.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { AUTH_ENV, anonymous, expectStatus, memberAndSystemClients, unique, type ApiClient } from '../helpers/auth.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

interface Split {
  id: string;
  name: string;
  description: string | null;
  color: string;
  metadata: Record<string, unknown>;
  example_count: number;
  created_at: string;
  updated_at: string;
}

describeEachDialect('dataset splits API', (server) => {
  const url = () => server().url;
  /** A dataset of `count` examples: its id, name and example node ids. */
  const createDataset = async (count = 4) => {
    const name = unique('split-ds');
    const inputs = Array.from({ length: count }, (_, index) => ({ q: index }));
    const response = await request(url(), 'POST', '/v1/datasets/upload?sync=true', { action: 'create', name, inputs });
    assert.equal(response.status, 200, response.text);
    const id = response.body.data.dataset_id as string;
    const examples = (await getOk(url(), `/v1/datasets/${id}/examples`)).data.examples as { node_id: string; input: { q: number } }[];
    return { id, name, exampleIds: examples.map((example) => example.node_id) };
  };
  const createSplit = async (datasetId: string, body: Record<string, unknown>): Promise<Split> => {
    const response = await request(url(), 'POST', `/v1/datasets/${datasetId}/splits`, body);
    assert.equal(response.status, 201, response.text);
    return response.body.data as Split;
  };
  const inSplit = async (datasetId: string, ...splits: string[]) => {
    const query = splits.map((split) => `split=${encodeURIComponent(split)}`).join('&');
    return (await getOk(url(), `/v1/datasets/${datasetId}/examples?${query}`)).data as {
      filtered_splits?: string[];
      examples: { node_id: string }[];
    };
  };

  it('creates a split in Phoenix shape, seeded with examples, and filters the examples by it', async () => {
    const dataset = await createDataset();
    const name = unique('train');
    const split = await createSplit(dataset.id, {
      name: `  ${name}  `,
      description: 'for training',
      metadata: { ratio: 0.5 },
      example_ids: [dataset.exampleIds[0], dataset.exampleIds[2], dataset.exampleIds[0]],
    });
    assert.deepEqual(Object.keys(split).sort(), [
      'color',
      'created_at',
      'description',
      'example_count',
      'id',
      'metadata',
      'name',
      'updated_at',
    ]);
    assert.equal(Buffer.from(split.id, 'base64').toString().startsWith('DatasetSplit:'), true, 'the id is a DatasetSplit GlobalID');
    assert.deepEqual(
      [split.name, split.description, split.color, split.metadata, split.example_count],
      [name, 'for training', '#33c5e8', { ratio: 0.5 }, 2],
      'the name is trimmed, the colour defaults, a repeated example counts once',
    );
    assert.ok(!Number.isNaN(Date.parse(split.created_at)));

    const byName = await inSplit(dataset.id, name);
    assert.deepEqual(byName.filtered_splits, [name]);
    assert.deepEqual(
      byName.examples.map((example) => example.node_id),
      [dataset.exampleIds[0], dataset.exampleIds[2]],
    );
    assert.deepEqual((await inSplit(dataset.id, split.id)).examples.length, 2, 'a split id filters too');
    const unfiltered = (await getOk(url(), `/v1/datasets/${dataset.id}/examples`)).data;
    assert.equal(unfiltered.examples.length, 4);
    assert.equal('filtered_splits' in unfiltered, false, 'no filter, no filtered_splits');
  });

  it('changes a split: fields sent only, examples added then removed, counted in this dataset', async () => {
    const dataset = await createDataset();
    const split = await createSplit(dataset.id, { name: unique('dev'), color: '#ff0000', example_ids: [dataset.exampleIds[0]] });
    const [e0, e1, e2, e3] = dataset.exampleIds;
    const renamed = unique('validation');
    const patched = await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, {
      name: renamed,
      add_example_ids: [e1, e2, e0],
      remove_example_ids: [e2, e3],
    });
    assert.equal(patched.status, 200, patched.text);
    const changed = patched.body.data as Split;
    assert.deepEqual(
      [changed.id, changed.name, changed.color, changed.description, changed.example_count],
      [split.id, renamed, '#ff0000', null, 2],
      'e2 added and removed ends up removed; e3 was never in; the colour stays',
    );
    assert.deepEqual(
      (await inSplit(dataset.id, renamed)).examples.map((example) => example.node_id),
      [e0, e1],
    );

    const metadata = await request(url(), 'PATCH', `/v1/datasets/${encodeURIComponent(dataset.name)}/splits/${split.id}`, {
      description: 'held out',
      metadata: { k: 'v' },
    });
    assert.equal(metadata.status, 200, metadata.text);
    assert.deepEqual(
      [metadata.body.data.description, metadata.body.data.metadata, metadata.body.data.name],
      ['held out', { k: 'v' }, renamed],
    );
    const cleared = await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, { description: null, metadata: null });
    assert.deepEqual(
      [cleared.body.data.description, cleared.body.data.metadata],
      [null, { k: 'v' }],
      'null clears the description, not the metadata',
    );

    // One split may hold examples of several datasets; each dataset counts its own.
    const other = await createDataset(2);
    const shared = await request(url(), 'PATCH', `/v1/datasets/${other.id}/splits/${split.id}`, { add_example_ids: [other.exampleIds[1]] });
    assert.equal(shared.body.data.example_count, 1);
    assert.equal((await inSplit(dataset.id, renamed)).examples.length, 2, 'the first dataset still reads its own two');
  });

  it('deletes a split; its examples stay', async () => {
    const dataset = await createDataset();
    const split = await createSplit(dataset.id, { name: unique('gone'), example_ids: dataset.exampleIds });
    assert.equal((await request(url(), 'DELETE', `/v1/datasets/${dataset.id}/splits/${split.id}`)).status, 204);
    expectError(await request(url(), 'DELETE', `/v1/datasets/${dataset.id}/splits/${split.id}`), 404, /not found/);
    expectError(await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, { name: unique('x') }), 404, /not found/);
    expectError(await request(url(), 'GET', `/v1/datasets/${dataset.id}/examples?split=${encodeURIComponent(split.name)}`), 404, /split/);
    assert.equal((await getOk(url(), `/v1/datasets/${dataset.id}/examples`)).data.examples.length, 4);
  });

  it('answers 409 for a name taken by any split, on create and on rename', async () => {
    const first = await createDataset(1);
    const second = await createDataset(1);
    const taken = await createSplit(first.id, { name: unique('taken') });
    expectError(await request(url(), 'POST', `/v1/datasets/${second.id}/splits`, { name: taken.name }), 409, /already exists/);
    const other = await createSplit(second.id, { name: unique('other') });
    expectError(await request(url(), 'PATCH', `/v1/datasets/${second.id}/splits/${other.id}`, { name: taken.name }), 409, /already exists/);
  });

  it('answers 404 and 422 with a sentence, and changes nothing', async () => {
    const dataset = await createDataset(2);
    const other = await createDataset(1);
    const split = await createSplit(dataset.id, { name: unique('checked') });
    const noDataset = toGlobalId('Dataset', 987654);
    const noSplit = toGlobalId('DatasetSplit', 987654);
    expectError(await request(url(), 'POST', `/v1/datasets/${noDataset}/splits`, { name: unique('n') }), 404, /dataset/);
    expectError(await request(url(), 'PATCH', `/v1/datasets/${noDataset}/splits/${split.id}`, {}), 404, /dataset/);
    expectError(await request(url(), 'DELETE', `/v1/datasets/${noDataset}/splits/${split.id}`), 404, /dataset/);
    expectError(await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${noSplit}`, {}), 404, /split/);
    // An example of another dataset is not one of this dataset's.
    const name = unique('foreign');
    expectError(
      await request(url(), 'POST', `/v1/datasets/${dataset.id}/splits`, { name, example_ids: [other.exampleIds[0]] }),
      404,
      /not found in dataset/,
    );
    expectError(
      await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, { add_example_ids: [other.exampleIds[0]] }),
      404,
      /not found in dataset/,
    );
    expectError(await request(url(), 'GET', `/v1/datasets/${dataset.id}/examples?split=${encodeURIComponent(name)}`), 404, /split/);

    expectError(await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/not-an-id`, {}), 422, /not a dataset split id/);
    expectError(await request(url(), 'POST', `/v1/datasets/${dataset.id}/splits`, { name: '  ' }), 422, /name cannot be empty/);
    expectError(await request(url(), 'POST', `/v1/datasets/${dataset.id}/splits`, {}), 422, /name/);
    expectError(
      await request(url(), 'POST', `/v1/datasets/${dataset.id}/splits`, { name: unique('c'), color: ' ' }),
      422,
      /color cannot be empty/,
    );
    expectError(
      await request(url(), 'POST', `/v1/datasets/${dataset.id}/splits`, { name: unique('e'), example_ids: ['nope'] }),
      422,
      /not a dataset example id/,
    );
    expectError(
      await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, { name: null }),
      422,
      /name cannot be empty/,
    );
    expectError(
      await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, { color: null }),
      422,
      /color cannot be empty/,
    );
    expectError(
      await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, { remove_example_ids: [toGlobalId('Dataset', 1)] }),
      422,
      /not a dataset example id/,
    );
    expectError(await request(url(), 'POST', `/v1/datasets/${dataset.id}/splits`, { name: unique('m'), metadata: [1] }), 422, /metadata/);
    const unchanged = await request(url(), 'PATCH', `/v1/datasets/${dataset.id}/splits/${split.id}`, {});
    assert.deepEqual(unchanged.body.data, split, 'an empty change answers the split as it was');
  });
});

describeEachDialect(
  'dataset splits API with auth on',
  (server) => {
    const url = () => server().url;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      ({ member, system } = await memberAndSystemClients(url()));
    });

    it('lets members and system keys create, change and delete splits; refuses calls without a credential', async () => {
      for (const client of [member, system]) {
        const dataset = expectStatus(
          await client.post('/v1/datasets/upload', { action: 'create', name: unique('auth-ds'), inputs: [{ q: 1 }] }),
          200,
        ).body.data;
        const split = expectStatus(await client.post(`/v1/datasets/${dataset.dataset_id}/splits`, { name: unique('auth') }), 201).body.data;
        expectStatus(await client.patch(`/v1/datasets/${dataset.dataset_id}/splits/${split.id}`, { description: 'x' }), 200);
        expectStatus(await client.delete(`/v1/datasets/${dataset.dataset_id}/splits/${split.id}`), 204);
      }
      const nobody = anonymous(url());
      expectStatus(await nobody.post(`/v1/datasets/${toGlobalId('Dataset', 1)}/splits`, { name: unique('nope') }), 401);
    });
  },
  AUTH_ENV,
);
