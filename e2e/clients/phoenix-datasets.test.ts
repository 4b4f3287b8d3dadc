/**
 * The real @arizeai/phoenix-client (6.x) dataset helpers against Sightline, with a member's user
 * key: createDataset (which sends the declarative `update` first), getDatasetInfo by id and by
 * name, getDatasetExamples, appendDatasetExamples, reading the first version back, and the
 * dataset list as the client's own typed GET /v1/datasets reads it (what its listDatasets does).
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createClient } from '@arizeai/phoenix-client';
import { appendDatasetExamples, createDataset, getDataset, getDatasetExamples, getDatasetInfo } from '@arizeai/phoenix-client/datasets';
import { AUTH_ENV, createActiveUser, sessionOf, setupDefaultAdmin, unique } from '../../packages/server/test/helpers/auth.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';

// A stray .env.phoenix must not redirect the client.
process.env.PHOENIX_DISCOVER_CONFIG = 'false';

describeEachDialect(
  '@arizeai/phoenix-client datasets against Sightline',
  (server) => {
    let phoenix: ReturnType<typeof createClient>;
    before(async () => {
      const admin = await setupDefaultAdmin(server().url);
      // A member's user key: datasets are evaluation data that members manage too.
      const member = await createActiveUser(server().url, sessionOf(server().url, admin), 'member');
      phoenix = createClient({ options: { baseUrl: server().url, headers: { Authorization: `Bearer ${member.key}` } } });
    });

    it('creates, reads, appends to and lists a dataset; the first version reads back unchanged', async () => {
      const name = unique('capitals');
      const { datasetId } = await createDataset({
        client: phoenix,
        name,
        description: 'Capital cities',
        examples: [
          { input: { country: 'France' }, output: { capital: 'Paris' }, metadata: { continent: 'Europe' } },
          { input: { country: 'Japan' }, output: { capital: 'Tokyo' }, metadata: { continent: 'Asia' } },
        ],
      });
      assert.ok(datasetId);

      const info = await getDatasetInfo({ client: phoenix, dataset: { datasetId } });
      assert.deepEqual([info.id, info.name, info.description], [datasetId, name, 'Capital cities']);
      const byName = await getDatasetInfo({ client: phoenix, dataset: { datasetName: name } });
      assert.equal(byName.id, datasetId);

      const first = await getDatasetExamples({ client: phoenix, dataset: { datasetId } });
      assert.deepEqual(
        first.examples.map((example) => [example.input, example.output, example.metadata]),
        [
          [{ country: 'France' }, { capital: 'Paris' }, { continent: 'Europe' }],
          [{ country: 'Japan' }, { capital: 'Tokyo' }, { continent: 'Asia' }],
        ],
      );

      const appended = await appendDatasetExamples({
        client: phoenix,
        dataset: { datasetName: name },
        examples: [{ input: { country: 'Kenya' }, output: { capital: 'Nairobi' }, metadata: { continent: 'Africa' } }],
      });
      assert.equal(appended.datasetId, datasetId);
      const all = await getDataset({ client: phoenix, dataset: { datasetId } });
      assert.deepEqual(
        all.examples.map((example) => example.output),
        [{ capital: 'Paris' }, { capital: 'Tokyo' }, { capital: 'Nairobi' }],
      );
      assert.notEqual(all.versionId, first.versionId);

      const old = await getDatasetExamples({ client: phoenix, dataset: { datasetId, versionId: first.versionId } });
      assert.deepEqual(old.examples, first.examples, 'the first version reads back exactly as it was');

      const listed = await phoenix.GET('/v1/datasets', { params: { query: { name } } });
      assert.deepEqual(
        listed.data?.data.map((dataset) => [dataset.id, dataset.name, dataset.example_count]),
        [[datasetId, name, 3]],
        'the list shows the dataset with its example count',
      );
    });

    it('createDataset with a name that exists makes it hold exactly the examples sent (the client sends update)', async () => {
      const name = unique('replaced');
      const first = await createDataset({ client: phoenix, name, description: 'v1', examples: [{ input: { n: 1 }, output: { n: 1 } }] });
      const second = await createDataset({ client: phoenix, name, description: 'v2', examples: [{ input: { n: 2 }, output: { n: 2 } }] });
      assert.equal(second.datasetId, first.datasetId);
      const examples = await getDatasetExamples({ client: phoenix, dataset: { datasetId: first.datasetId } });
      assert.deepEqual(
        examples.examples.map((example) => example.input),
        [{ n: 2 }],
      );
    });
  },
  AUTH_ENV,
);
