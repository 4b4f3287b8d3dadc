/**
 * PATCH /v1/experiments/{experiment_id} (docs/experiments.md, "Changing an experiment"),
 * Phoenix's updateExperiment: only the fields sent change, the answer is the whole Experiment
 * with its counts, and every refusal is a 4xx with a sentence that changes nothing.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { unique } from '../helpers/auth.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

describeEachDialect('experiment updates', (server) => {
  const url = () => server().url;

  async function experiment() {
    const upload = await request(url(), 'POST', '/v1/datasets/upload', {
      action: 'create',
      name: unique('upd'),
      inputs: [{ a: 1 }, { a: 2 }],
    });
    assert.equal(upload.status, 200, upload.text);
    const created = await request(url(), 'POST', `/v1/datasets/${upload.body.data.dataset_id}/experiments`, {
      name: 'first',
      description: 'before',
      metadata: { model: 'a' },
      repetitions: 2,
    });
    assert.equal(created.status, 200, created.text);
    return created.body.data as Record<string, unknown> & { id: string; updated_at: string };
  }

  it('changes only the fields sent and answers the whole experiment with its counts', async () => {
    const before = await experiment();
    const renamed = await request(url(), 'PATCH', `/v1/experiments/${before.id}`, { name: '  second  ' });
    assert.equal(renamed.status, 200, renamed.text);
    const after = renamed.body.data;
    assert.deepEqual(
      { ...after, updated_at: before.updated_at },
      { ...before, name: 'second' },
      'only the name (trimmed) and updated_at changed; counts and ids are all there',
    );
    assert.ok(after.updated_at >= before.updated_at);
    assert.deepEqual([after.example_count, after.missing_run_count], [2, 4]);

    const changed = await request(url(), 'PATCH', `/v1/experiments/${before.id}`, { description: null, metadata: { model: 'b', t: 0.2 } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(
      [changed.body.data.name, changed.body.data.description, changed.body.data.metadata],
      ['second', null, { model: 'b', t: 0.2 }],
    );
    assert.deepEqual((await getOk(url(), `/v1/experiments/${before.id}`)).data, changed.body.data, 'the change is stored');
  });

  it('answers 404 and 422 with a sentence, and changes nothing', async () => {
    const before = await experiment();
    const path = `/v1/experiments/${before.id}`;
    expectError(await request(url(), 'PATCH', path, {}), 422, /no fields to update/);
    expectError(await request(url(), 'PATCH', path, { name: null }), 422, /name cannot be null/);
    expectError(await request(url(), 'PATCH', path, { name: '  ' }), 422, /blank/);
    expectError(await request(url(), 'PATCH', path, { metadata: null }), 422, /metadata cannot be null/);
    expectError(await request(url(), 'PATCH', path, { metadata: 'x' }), 422, /metadata/);
    assert.deepEqual((await getOk(url(), path)).data, before, 'nothing changed');
    expectError(await request(url(), 'PATCH', `/v1/experiments/${toGlobalId('Experiment', 987654)}`, { name: 'x' }), 404, /not found/);
    expectError(await request(url(), 'PATCH', '/v1/experiments/not-an-id', { name: 'x' }), 404, /not found/);
    assert.equal((await request(url(), 'DELETE', path)).status, 204);
    expectError(await request(url(), 'PATCH', path, { name: 'x' }), 404, /not found/);
  });
});
