/**
 * Replicas share one PostgreSQL (docs/deployment.md): two span writers (as two `sightline serve`
 * processes have) writing spans of the same new project at the same moment must both succeed,
 * and the project must exist once. Before the project upsert returned its id on conflict, the
 * writer that lost the race got no row back and failed its batch (a 503 to the exporter).
 * Then whole servers: three start together on an empty database (migrations and the first admin
 * once), and two of them take OTLP exports, prompts and dataset uploads for the same new names at once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { isDatabaseUnavailable } from '@sightline/common';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_MODELS } from '../../src/costs/default-models.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { PostgresSpanWriter } from '../../src/db/writer/span-writes-postgres.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { AUTH_ENV, bearerClient, expectStatus, unique } from '../helpers/auth.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { jsonExport, newSpanId, newTraceId } from '../helpers/otlp-bodies.js';
import { spanRow } from '../helpers/span-row.js';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

function rows(project: string, count: number): SpanRow[] {
  const traceId = hex(16);
  return Array.from({ length: count }, (_, index) =>
    spanRow({
      projectName: project,
      traceId,
      spanId: hex(8),
      name: `span ${index}`,
      spanKind: 'CHAIN',
      startTime: 1_700_000_000_000_000_000n + BigInt(index),
      endTime: 1_700_000_000_000_000_100n + BigInt(index),
      statusCode: 'OK',
    }),
  );
}

// PostgreSQL only: SQLite has one writer by construction.
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('two span writers on one PostgreSQL (replicas)', () => {
    let database: TestDatabase;
    const writers: PostgresSpanWriter[] = [];
    before(async () => {
      database = await createTestDatabase('postgres');
      const opened = openDatabase({ dialect: 'postgres', url: database.url! });
      await migrateToLatest(opened);
      await opened.close();
      writers.push(new PostgresSpanWriter(database.url!), new PostgresSpanWriter(database.url!));
    });
    after(async () => {
      for (const writer of writers) await writer.close();
      await database?.drop();
    });

    it('a deadlock PostgreSQL breaks between two writers is a retryable outage (503), not a bug (500)', async () => {
      // Two transactions locking two rows in opposite orders, as replicas might outside the span writer.
      const clients = [new pg.Client({ connectionString: database.url! }), new pg.Client({ connectionString: database.url! })];
      for (const client of clients) await client.connect();
      try {
        await clients[0]!.query(
          'CREATE TABLE deadlock_probe (id integer PRIMARY KEY, n integer NOT NULL); INSERT INTO deadlock_probe VALUES (1, 0), (2, 0)',
        );
        await Promise.all(clients.map((client) => client.query('BEGIN')));
        await clients[0]!.query('UPDATE deadlock_probe SET n = 1 WHERE id = 1');
        await clients[1]!.query('UPDATE deadlock_probe SET n = 1 WHERE id = 2');
        const crossed = await Promise.allSettled([
          clients[0]!.query('UPDATE deadlock_probe SET n = 2 WHERE id = 2'),
          clients[1]!.query('UPDATE deadlock_probe SET n = 2 WHERE id = 1'),
        ]);
        const errors = crossed.flatMap((result) => (result.status === 'rejected' ? [result.reason as { code?: string }] : []));
        assert.deepEqual(
          errors.map((error) => error.code),
          ['40P01'],
          'PostgreSQL breaks the deadlock by failing one of them',
        );
        assert.equal(isDatabaseUnavailable(errors[0]), true);
      } finally {
        for (const client of clients) await client.end().catch(() => {});
      }
    });

    it('create the same new projects at once without a failed batch, and store every span once', async () => {
      for (let round = 0; round < 10; round++) {
        const project = `race-${round}-${hex(4)}`;
        const batches = Array.from({ length: 20 }, () => rows(project, 10));
        const results = await Promise.allSettled(batches.map((batch, index) => writers[index % 2]!.write(batch)));
        const failed = results.filter((result) => result.status === 'rejected');
        assert.deepEqual(
          failed.map((result) => String((result as PromiseRejectedResult).reason)),
          [],
          `round ${round}: no batch fails`,
        );
      }
      const opened = openDatabase({ dialect: 'postgres', url: database.url! });
      try {
        const projects = await opened.db.selectFrom('projects').select('name').where('name', 'like', 'race-%').execute();
        assert.equal(projects.length, 10, 'each project exists once');
        const spans = await opened.db
          .selectFrom('spans')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(spans.n), 10 * 20 * 10, 'every span stored once');
      } finally {
        await opened.close();
      }
    });
  });
}

/** An OTLP/JSON export of `count` spans in one trace per project, the projects in the order given. */
function exportOf(projects: string[], count: number): { body: unknown; spanIds: string[] } {
  const spanIds: string[] = [];
  const resourceSpans = projects.flatMap((project) => {
    const traceId = newTraceId();
    const spans = Array.from({ length: count }, (_, index) => {
      const spanId = newSpanId();
      spanIds.push(spanId);
      return { traceId, spanId, name: `span ${index}` };
    });
    return jsonExport(spans, { 'openinference.project.name': project }).resourceSpans;
  });
  return { body: { resourceSpans }, spanIds };
}

for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('replicas on one PostgreSQL: three servers start together, two write the same new names at once', () => {
    let database: TestDatabase;
    let servers: RunningServer[] = [];
    let key = '';

    before(async () => {
      database = await createTestDatabase('postgres');
      const config = loadConfig({
        ...AUTH_ENV,
        SERVICE_WORKING_DIR: database.workingDir,
        SERVICE_PORT: '0',
        SERVICE_GRPC_PORT: '0',
        SERVICE_LOG_LEVEL: 'silent',
        SERVICE_SQL_DATABASE_URL: database.url!,
      });
      // All at once on an empty database: each migrates, creates the first admin and syncs the built-in prices.
      const started = await Promise.allSettled([0, 1, 2].map(() => startServer(config)));
      servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      const failures = started.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
      assert.deepEqual(failures, [], 'every replica starts');
      // A system key straight from the service (no logins: password hashing is slow on a busy CI).
      const [admin] = await servers[0]!.auth.users.list(1);
      key = (
        await servers[0]!.auth.apiKeys.createSystemKey(
          { kind: 'user', user: admin!, via: 'session', sessionId: 'test' },
          { name: 'replicas' },
        )
      ).key;
    });
    after(async () => {
      for (const server of servers) await server.close().catch(() => {});
      await database?.drop();
    });

    it('ran each migration once, created one first admin and one row per built-in price', async () => {
      const { db } = servers[0]!.database;
      const applied = await db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      assert.deepEqual(
        applied.map((row) => (row as { name: string }).name).sort(),
        Object.keys(migrations({ dialect: 'postgres' })).sort(),
        'the migrations table holds each migration once',
      );
      const users = await db.selectFrom('users').select(['email', 'role']).execute();
      assert.deepEqual(users, [{ email: 'admin@localhost', role: 'admin' }], 'one first admin');
      const builtIns = await db
        .selectFrom('generative_models')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('is_built_in', '=', 1)
        .executeTakeFirstOrThrow();
      assert.equal(Number(builtIns.n), DEFAULT_MODELS.length, 'each built-in price once');
    });

    it('two replicas export 20 requests of 100 spans each into one new project at once: every answer 200, every span stored once', async () => {
      const [first, second] = servers as [RunningServer, RunningServer];
      const send = (server: RunningServer, body: unknown) =>
        fetch(`${server.url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify(body),
        });
      // Two rounds: one new project, then requests naming two new projects in opposite orders on
      // the two replicas (the order in which a batch locks its projects).
      const rounds = [[`race-${unique('a')}`], [`race-${unique('b')}`, `race-${unique('c')}`]];
      const sent: string[] = [];
      const refused: string[] = [];
      for (const projects of rounds) {
        const requests = Array.from({ length: 40 }, (_, index) => {
          const order = index % 2 === 0 ? projects : [...projects].reverse();
          const { body, spanIds } = exportOf(order, 100 / projects.length);
          sent.push(...spanIds);
          return send(index % 2 === 0 ? first : second, body).then(async (response) => {
            const text = await response.text();
            if (response.status !== 200) refused.push(`${response.status}: ${text}`);
          });
        });
        await Promise.all(requests);
      }
      assert.deepEqual(refused, [], 'no answer but 200');
      const { db } = first.database;
      const projectNames = rounds.flat();
      const projects = await db.selectFrom('projects').select('name').where('name', 'in', projectNames).execute();
      assert.equal(projects.length, projectNames.length, 'each project exists once');
      const stored = await db
        .selectFrom('spans')
        .innerJoin('projects', 'projects.id', 'spans.project_id')
        .select('spans.span_id')
        .where('projects.name', 'in', projectNames)
        .execute();
      assert.equal(stored.length, sent.length, `${sent.length} spans sent, as many stored`);
      assert.deepEqual(new Set(stored.map((row) => row.span_id)), new Set(sent), 'exactly the spans sent');
    });

    it('prompts and dataset uploads naming one new prompt or dataset at once on two replicas all succeed (uploads after a 409 retry) and share one row', async () => {
      const clients = servers.slice(0, 2).map((server) => bearerClient(server.url, key));
      const promptName = unique('race-prompt');
      const datasetName = unique('race-dataset');
      const version = {
        model_provider: 'OPENAI',
        model_name: 'gpt-4o-mini',
        template_type: 'CHAT',
        template_format: 'MUSTACHE',
        template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi {{ name }}' }] }] },
        invocation_parameters: { type: 'openai', openai: {} },
      };
      // Uploads to one dataset go one at a time (docs/datasets.md, "One upload at a time per dataset"):
      // a racing one is answered 409 "retry when it has finished", and retries as a client would.
      const upload = async (client: (typeof clients)[number], index: number) => {
        for (let attempt = 0; ; attempt++) {
          const answer = await client.post('/v1/datasets/upload', {
            action: 'append',
            name: datasetName,
            inputs: [{ question: `q${index}` }],
          });
          if (answer.status !== 409 || attempt === 50) return answer;
          assert.match(answer.body.detail, /is in progress; retry when it has finished/);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => {
          const client = clients[index % 2]!;
          return index < 4 ? client.post('/v1/prompts', { prompt: { name: promptName }, version }) : upload(client, index);
        }),
      );
      for (const answer of answers) expectStatus(answer, 200, 'a racing create');
      const { db } = servers[0]!.database;
      const prompts = await db.selectFrom('prompts').select('id').where('name', '=', promptName).execute();
      assert.equal(prompts.length, 1, 'one prompt');
      const versions = await db.selectFrom('prompt_versions').select('id').where('prompt_id', '=', prompts[0]!.id).execute();
      assert.equal(versions.length, 4, 'every version appended to it');
      const datasets = await db.selectFrom('datasets').select('id').where('name', '=', datasetName).execute();
      assert.equal(datasets.length, 1, 'one dataset');
      const examples = await db.selectFrom('dataset_examples').select('id').where('dataset_id', '=', datasets[0]!.id).execute();
      assert.equal(examples.length, 4, 'every upload appended its example');
    });
  });
}
