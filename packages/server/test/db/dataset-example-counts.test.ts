/**
 * The example count stored with each dataset version (migration 0025, docs/datasets.md,
 * "Versions"): the migration counts the versions written before it, and every upload since sets
 * its version's count from the version it started from; both agree with the examples each
 * version reads back.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createPgPool, openSqlite } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const T = '2026-01-01T00:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`migration 0025 counts the examples of versions written before it [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Kysely<unknown>;
    before(async () => {
      database = await createTestDatabase(dialect);
      db = new Kysely<unknown>({
        dialect:
          database.url === undefined
            ? new SqliteDialect({ database: openSqlite(path.join(database.workingDir, 'sightline.db')) })
            : new PostgresDialect({ pool: createPgPool(database.url, 1) }),
      });
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    it('sets each completed version to the examples it holds: creates, patches, deletes and examples brought back', async () => {
      const all = migrations({ dialect });
      await applyMigrations(db, dialect, Object.fromEntries(Object.entries(all).filter(([name]) => name < '0025')));
      await sql`insert into datasets (id, name, metadata, created_at, updated_at) values (1, 'd', '{}', ${T}, ${T}), (2, 'e', '{}', ${T}, ${T})`.execute(
        db,
      );
      // Dataset 1: version 1 creates four examples; 2 patches one and deletes two; 3 brings one back and adds one; 4 is pending.
      await sql`insert into dataset_versions (id, dataset_id, metadata, created_at, completed_at, last_write_at)
        values (1, 1, '{}', ${T}, ${T}, ${T}), (2, 1, '{}', ${T}, ${T}, ${T}), (3, 1, '{}', ${T}, ${T}, ${T}),
               (4, 1, '{}', ${T}, null, ${T}), (5, 2, '{}', ${T}, ${T}, ${T})`.execute(db);
      await sql`insert into dataset_examples (id, dataset_id, created_at)
        values (1, 1, ${T}), (2, 1, ${T}), (3, 1, ${T}), (4, 1, ${T}), (5, 1, ${T}), (6, 1, ${T})`.execute(db);
      const revision = (example: number, version: number, kind: string) =>
        sql`insert into dataset_example_revisions (example_id, version_id, kind, input, output, metadata, created_at)
          values (${example}, ${version}, ${kind}, '{}', '{}', '{}', ${T})`.execute(db);
      for (const example of [1, 2, 3, 4]) await revision(example, 1, 'CREATE');
      await revision(1, 2, 'PATCH');
      await revision(2, 2, 'DELETE');
      await revision(3, 2, 'DELETE');
      await revision(2, 3, 'PATCH');
      await revision(5, 3, 'CREATE');
      await revision(6, 4, 'CREATE');
      await applyMigrations(db, dialect, all);
      const rows = await sql<{ id: number | string; example_count: number | string }>`
        select id, example_count from dataset_versions order by id`.execute(db);
      assert.deepEqual(
        rows.rows.map((row) => [Number(row.id), Number(row.example_count)]),
        [
          [1, 4],
          [2, 2],
          [3, 4],
          [4, 0],
          [5, 0],
        ],
      );
    });
  });
}

describeEachDialect('dataset uploads store the example count of their version', (server) => {
  const url = () => server().url;
  const upload = async (body: Record<string, unknown>) => {
    const response = await request(url(), 'POST', '/v1/datasets/upload', body);
    assert.equal(response.status, 200, response.text);
    return response.body.data as { dataset_id: string; version_id: string };
  };
  const examplesAt = async (datasetId: string, versionId: string) =>
    (await getOk(url(), `/v1/datasets/${datasetId}/examples?version_id=${encodeURIComponent(versionId)}`)).data.examples.length;
  const storedCount = async (versionId: string) => {
    const rowId = Number(Buffer.from(versionId, 'base64').toString().split(':')[1]);
    const row = await server()
      .server.database.db.selectFrom('dataset_versions')
      .select('example_count')
      .where('id', '=', rowId)
      .executeTakeFirstOrThrow();
    return Number(row.example_count);
  };

  it('after create, append, update that deletes, and update that brings an example back, each count matches what its version reads', async () => {
    const name = 'counted';
    const ids = (list: string[]) => ({ inputs: list.map((id) => ({ id })), example_ids: list });
    const versions = [
      await upload({ action: 'create', name, ...ids(['a', 'b', 'c']) }),
      await upload({ action: 'append', name, ...ids(['d', 'e']) }),
      await upload({ action: 'update', name, ...ids(['a', 'e']) }),
      await upload({ action: 'update', name, ...ids(['a', 'b', 'e', 'f']) }),
      await upload({ action: 'update', name, inputs: [] }),
    ];
    const expected = [3, 5, 2, 4, 0];
    for (const [index, version] of versions.entries()) {
      assert.equal(await examplesAt(version.dataset_id, version.version_id), expected[index]);
      assert.equal(await storedCount(version.version_id), expected[index], `version ${index + 1}`);
    }
    assert.equal((await getOk(url(), `/v1/datasets/${encodeURIComponent(name)}`)).data.example_count, 0);
    // The versions list shows each version's count (what the UI's examples page pages by).
    const listed = (await getOk(url(), `/v1/datasets/${encodeURIComponent(name)}/versions`)).data as { example_count: number }[];
    assert.deepEqual(
      listed.map((version) => version.example_count),
      [...expected].reverse(),
    );
  });
});
