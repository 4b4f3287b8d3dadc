/**
 * Experiment tags (docs/experiments.md, "Tags"), Phoenix 20.3's routes and shapes: a tag names
 * one experiment of a dataset at a time (setting it elsewhere moves it), re-setting replaces the
 * description, removal by name or id is idempotent and never takes another experiment's tag,
 * the 4xx answers for bad input, and who may call.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { AUTH_ENV, anonymous, expectStatus, memberAndSystemClients, unique, type ApiClient } from '../helpers/auth.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

interface Tag {
  id: string;
  name: string;
  description: string | null;
}

describeEachDialect('experiment tags API', (server) => {
  const url = () => server().url;
  const dataset = async () => {
    const upload = await request(url(), 'POST', '/v1/datasets/upload', { action: 'create', name: unique('tags'), inputs: [{ a: 1 }] });
    assert.equal(upload.status, 200, upload.text);
    return upload.body.data.dataset_id as string;
  };
  const experiment = async (datasetId: string) => {
    const created = await request(url(), 'POST', `/v1/datasets/${datasetId}/experiments`, {});
    assert.equal(created.status, 200, created.text);
    return created.body.data.id as string;
  };
  const setTag = async (experimentId: string, body: Record<string, unknown>): Promise<Tag> => {
    const response = await request(url(), 'POST', `/v1/experiments/${experimentId}/tags`, body);
    assert.equal(response.status, 200, response.text);
    return response.body.data as Tag;
  };
  const tagsOf = async (experimentId: string) => (await getOk(url(), `/v1/experiments/${experimentId}/tags`)).data as Tag[];

  it('assigns tags in Phoenix shape, lists them by name, and moves a tag between experiments of a dataset', async () => {
    const datasetId = await dataset();
    const [first, second] = [await experiment(datasetId), await experiment(datasetId)];
    const baseline = await setTag(first, { name: 'baseline', description: 'the reference run' });
    assert.deepEqual(Object.keys(baseline).sort(), ['description', 'id', 'name']);
    assert.equal(Buffer.from(baseline.id, 'base64').toString().startsWith('ExperimentTag:'), true, 'the id is an ExperimentTag GlobalID');
    assert.deepEqual([baseline.name, baseline.description], ['baseline', 'the reference run']);
    const candidate = await setTag(first, { name: 'candidate-2' });
    assert.deepEqual(await tagsOf(first), [baseline, candidate], 'by name');

    // Re-assigning to the same experiment replaces the description, keeping the tag.
    const again = await setTag(first, { name: 'baseline' });
    assert.deepEqual(again, { ...baseline, description: null });

    // Assigning it on another experiment of the dataset moves it.
    const moved = await setTag(second, { name: 'baseline', description: 'new reference' });
    assert.equal(moved.id, baseline.id, 'the same tag, pointing elsewhere');
    assert.deepEqual(await tagsOf(first), [candidate]);
    assert.deepEqual(await tagsOf(second), [moved]);

    // Another dataset has tags of its own: the same name is a different tag.
    const elsewhere = await experiment(await dataset());
    const own = await setTag(elsewhere, { name: 'baseline' });
    assert.notEqual(own.id, baseline.id);
    assert.deepEqual(await tagsOf(second), [moved], 'untouched by another dataset');
  });

  it('removes a tag by name or id, idempotently, and never from an experiment that does not own it', async () => {
    const datasetId = await dataset();
    const [owner, other] = [await experiment(datasetId), await experiment(datasetId)];
    const tag = await setTag(owner, { name: 'best' });
    const kept = await setTag(owner, { name: 'keep_me' });
    assert.equal((await request(url(), 'DELETE', `/v1/experiments/${other}/tags/best`)).status, 204, 'not its tag: a no-op');
    assert.equal((await request(url(), 'DELETE', `/v1/experiments/${other}/tags/${tag.id}`)).status, 204);
    assert.deepEqual(await tagsOf(owner), [tag, kept], 'the owner still has it');
    assert.equal((await request(url(), 'DELETE', `/v1/experiments/${owner}/tags/${tag.id}`)).status, 204);
    assert.deepEqual(await tagsOf(owner), [kept]);
    assert.equal((await request(url(), 'DELETE', `/v1/experiments/${owner}/tags/keep_me`)).status, 204);
    assert.equal((await request(url(), 'DELETE', `/v1/experiments/${owner}/tags/keep_me`)).status, 204, 'removing twice is a no-op');
    assert.deepEqual(await tagsOf(owner), []);
  });

  it('pages the tags of an experiment', async () => {
    const experimentId = await experiment(await dataset());
    for (const name of ['c', 'a', 'b']) await setTag(experimentId, { name });
    const first = await getOk(url(), `/v1/experiments/${experimentId}/tags?limit=2`);
    assert.deepEqual(
      first.data.map((tag: Tag) => tag.name),
      ['a', 'b'],
    );
    const second = await getOk(url(), `/v1/experiments/${experimentId}/tags?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    assert.deepEqual(
      second.data.map((tag: Tag) => tag.name),
      ['c'],
    );
    assert.equal(second.next_cursor, null);
  });

  it('answers 404 and 422 with a sentence', async () => {
    const experimentId = await experiment(await dataset());
    const none = toGlobalId('Experiment', 987654);
    expectError(await request(url(), 'GET', `/v1/experiments/${none}/tags`), 404, /experiment/);
    expectError(await request(url(), 'POST', `/v1/experiments/${none}/tags`, { name: 'x' }), 404, /experiment/);
    expectError(await request(url(), 'DELETE', `/v1/experiments/${none}/tags/x`), 404, /experiment/);
    for (const name of ['Baseline', 'with space', '-dash', 'end_', '']) {
      expectError(await request(url(), 'POST', `/v1/experiments/${experimentId}/tags`, { name }), 422, /not a tag name/);
    }
    expectError(await request(url(), 'POST', `/v1/experiments/${experimentId}/tags`, {}), 422, /name/);
    expectError(await request(url(), 'DELETE', `/v1/experiments/${experimentId}/tags/Not%20A%20Tag`), 422, /not a tag name/);
    expectError(await request(url(), 'GET', `/v1/experiments/${experimentId}/tags?cursor=nonsense`), 422, /cursor/);
    expectError(
      await request(url(), 'GET', `/v1/experiments/${experimentId}/tags?cursor=${encodeURIComponent(toGlobalId('ExperimentTag', 987654))}`),
      422,
      /cursor/,
    );
    assert.deepEqual(await tagsOf(experimentId), [], 'refused requests added nothing');
  });
});

describeEachDialect(
  'experiment tags API with auth on',
  (server) => {
    const url = () => server().url;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      ({ member, system } = await memberAndSystemClients(url()));
    });

    it('lets members and system keys tag and untag experiments; refuses calls without a credential', async () => {
      for (const client of [member, system]) {
        const dataset = expectStatus(
          await client.post('/v1/datasets/upload', { action: 'create', name: unique('t'), inputs: [{ q: 1 }] }),
          200,
        ).body.data;
        const experiment = expectStatus(await client.post(`/v1/datasets/${dataset.dataset_id}/experiments`, {}), 200).body.data;
        expectStatus(await client.post(`/v1/experiments/${experiment.id}/tags`, { name: 'baseline' }), 200);
        expectStatus(await client.get(`/v1/experiments/${experiment.id}/tags`), 200);
        expectStatus(await client.delete(`/v1/experiments/${experiment.id}/tags/baseline`), 204);
      }
      expectStatus(await anonymous(url()).get(`/v1/experiments/${toGlobalId('Experiment', 1)}/tags`), 401);
    });
  },
  AUTH_ENV,
);
