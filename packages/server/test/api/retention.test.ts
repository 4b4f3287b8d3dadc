/**
 * Retention (docs/retention.md): a 2-day policy deletes the traces that started earlier, with their
 * spans, costs and annotations, and the sessions left without traces, while ingest keeps running
 * without an error; a max_traces policy keeps the newest; who may set policies; bad values.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import {
  AUTH_ENV,
  type ApiClient,
  bearerClient,
  createActiveUser,
  createSystemKey,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
} from '../helpers/auth.js';
import { newTraceId, type OtlpValue, otlpJson, type QuerySpan } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const DAY_MS = 86_400_000;
/** Nanoseconds `daysAgo` days before the test started (plus `ms`). */
const started = Date.now();
const daysAgo = (days: number, ms = 0) => BigInt(started - days * DAY_MS + ms) * 1_000_000n;

/** A trace of a root span and an LLM span priced by the shipped prices (so it has a span_costs row). */
const traceSpans = (traceId: string, start: bigint, session?: string): QuerySpan[] => {
  const root = `${traceId.slice(0, 15)}1`;
  const attributes: Record<string, OtlpValue> = session ? { 'session.id': session } : {};
  return [
    { traceId, spanId: root, start, kind: 'CHAIN', attributes },
    {
      traceId,
      parentSpanId: root,
      start: start + 1000n,
      kind: 'LLM',
      attributes: { ...attributes, 'llm.model_name': 'gpt-4o', 'llm.token_count.prompt': 100, 'llm.token_count.completion': 10 },
    },
  ];
};

/** Polls until `check` passes. */
async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describeEachDialect(
  'retention',
  (server) => {
    let admin: ApiClient;
    let member: ApiClient;
    let system: ApiClient;
    const project = 'retention-days';
    const old = [newTraceId(), newTraceId(), newTraceId()];
    const recent = [newTraceId(), newTraceId()];

    const send = async (client: ApiClient, name: string, spans: QuerySpan[]) =>
      expectStatus(await client.post('/v1/traces', otlpJson(name, spans), { 'x-project-name': name }), 200);
    const put = (client: ApiClient, name: string, body: unknown) => client.request('PUT', `/v1/projects/${name}/retention`, { body });
    /** Rows of a table whose column is in the values, counted in the server's database. */
    const count = async (table: string, column: string, values: (string | number)[]) => {
      const { db } = server().server.database;
      const result = await sql<{
        n: number | string;
      }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(values)})`.execute(db);
      return Number(result.rows[0]?.n ?? 0);
    };
    const traceRowids = async (traceIds: string[]) => {
      const { db } = server().server.database;
      return (await db.selectFrom('traces').select('id').where('trace_id', 'in', traceIds).execute()).map((row) => Number(row.id));
    };
    const sessionRowid = async (sessionId: string) => {
      const { db } = server().server.database;
      const row = await db.selectFrom('project_sessions').select('id').where('session_id', '=', sessionId).executeTakeFirst();
      return row === undefined ? undefined : Number(row.id);
    };

    before(async () => {
      const url = server().url;
      const adminUser = await setupDefaultAdmin(url);
      admin = sessionOf(url, adminUser);
      member = bearerClient(url, (await createActiveUser(url, admin, 'member')).key);
      system = bearerClient(url, (await createSystemKey(admin)).key);
      // Five, four and three days ago, one day ago and now; "old-session" only has old traces, "mixed-session" both.
      await send(system, project, [
        ...traceSpans(old[0]!, daysAgo(5), 'old-session'),
        ...traceSpans(old[1]!, daysAgo(4), 'old-session'),
        ...traceSpans(old[2]!, daysAgo(3), 'mixed-session'),
        ...traceSpans(recent[0]!, daysAgo(1), 'mixed-session'),
        ...traceSpans(recent[1]!, daysAgo(0)),
      ]);
      // Annotations of every kind on the old data: they must go with it.
      const rootOf = (traceId: string) => `${traceId.slice(0, 15)}1`;
      expectStatus(
        await member.post('/v1/trace_annotations', {
          data: [{ trace_id: old[0], name: 'q', annotator_kind: 'HUMAN', result: { score: 1 } }],
        }),
        200,
      );
      expectStatus(
        await member.post('/v1/span_annotations', {
          data: [{ span_id: rootOf(old[1]!), name: 'q', annotator_kind: 'HUMAN', result: { score: 1 } }],
        }),
        200,
      );
      expectStatus(
        await member.post('/v1/session_annotations', {
          data: [{ session_id: 'old-session', name: 'q', annotator_kind: 'HUMAN', result: { score: 1 } }],
        }),
        200,
      );
      // The cost job prices the LLM spans within about a second.
      const rowids = await traceRowids([...old, ...recent]);
      await eventually(async () => assert.equal(await count('span_costs', 'trace_rowid', rowids), 5));
    });

    it('shows a project without a policy as keeping everything', async () => {
      const body = expectStatus(await member.get(`/v1/projects/${project}/retention`), 200).body;
      assert.equal(body.data.max_days, null);
      assert.equal(body.data.max_traces, null);
      assert.equal(body.data.last_run, null);
      assert.equal(body.data.updated_at, null);
    });

    it('lets only admins set a policy or run the job', async () => {
      expectStatus(await put(member, project, { max_days: 2 }), 403);
      expectStatus(await put(system, project, { max_days: 2 }), 403, 'a system key is not an admin');
      expectStatus(await member.post('/v1/retention/run'), 403);
      expectStatus(await put(admin, 'no-such-project', { max_days: 2 }), 404);
    });

    it('answers bad values with 422 naming the field', async () => {
      for (const body of [
        { max_days: 0 },
        { max_days: -1 },
        { max_days: 1.5 },
        { max_days: 'two' },
        { max_traces: 0 },
        { max_traces: 2.5 },
        { max_days: 36_501 },
      ]) {
        const response = expectStatus(await put(admin, project, body), 422, JSON.stringify(body));
        assert.match(response.body.detail, /max_(days|traces)/, JSON.stringify(response.body));
      }
      expectStatus(await admin.request('PUT', `/v1/projects/${project}/retention`, { body: '[]' }), 422);
    });

    it('deletes traces older than max_days with their spans, costs, annotations and emptied sessions, while ingest goes on', async () => {
      const oldRowids = await traceRowids(old);
      const recentRowids = await traceRowids(recent);
      const oldSession = await sessionRowid('old-session');
      assert.ok(oldSession !== undefined);
      // Many old traces in another project: several batches for the job while ingest runs.
      const bulk = 'retention-bulk';
      for (let chunk = 0; chunk < 3; chunk++) {
        const spans = Array.from({ length: 500 }, (_, i) => ({ traceId: newTraceId(), start: daysAgo(10, chunk * 500 + i) }));
        await send(system, bulk, spans);
      }
      const set = expectStatus(await put(admin, project, { max_days: 2 }), 200).body.data;
      assert.equal(set.max_days, 2);
      assert.equal(set.max_traces, null);
      assert.ok(set.updated_at);
      expectStatus(await put(admin, bulk, { max_days: 2 }), 200);

      // Ingest keeps sending recent spans the whole time the job deletes.
      let ingesting = true;
      let sent = 0;
      const loop = (async () => {
        while (ingesting) {
          await send(system, 'retention-live', [{ traceId: newTraceId(), start: daysAgo(0) }]);
          await send(system, project, traceSpans(newTraceId(), daysAgo(0)));
          sent += 1;
        }
      })();
      const run = expectStatus(await admin.post('/v1/retention/run'), 200).body.data;
      ingesting = false;
      await loop;
      assert.ok(sent > 0, 'ingest ran during the job');

      const byProject = new Map<string, { deleted_traces: number; deleted_spans: number; deleted_sessions: number }>();
      const projects = expectStatus(await admin.get('/v1/projects?limit=100'), 200).body.data as { id: string; name: string }[];
      for (const item of run.projects) byProject.set(projects.find((p) => p.id === item.project_id)!.name, item);
      const main = byProject.get(project)!;
      assert.deepEqual([main.deleted_traces, main.deleted_spans, main.deleted_sessions], [3, 6, 1]);
      assert.equal(byProject.get(bulk)?.deleted_traces, 1500);
      assert.equal(run.deleted_traces, 1503);
      assert.equal(run.deleted_spans, 1506);

      assert.equal(await count('traces', 'id', oldRowids), 0, 'old traces gone');
      assert.equal(await count('spans', 'trace_rowid', oldRowids), 0, 'their spans gone');
      assert.equal(await count('span_costs', 'trace_rowid', oldRowids), 0, 'their costs gone');
      assert.equal(await count('trace_annotations', 'trace_rowid', oldRowids), 0, 'their annotations gone');
      assert.equal(await count('project_sessions', 'id', [oldSession]), 0, 'the session left without traces is gone');
      assert.equal(await count('session_annotations', 'project_session_rowid', [oldSession]), 0, "the session's annotations are gone");
      assert.equal(await count('traces', 'id', recentRowids), 2, 'recent traces kept');
      assert.equal(await count('spans', 'trace_rowid', recentRowids), 4, 'with their spans');
      assert.equal(await count('span_costs', 'trace_rowid', recentRowids), 2, 'and their costs');
      assert.ok((await sessionRowid('mixed-session')) !== undefined, 'a session with a recent trace is kept');
      const { db } = server().server.database;
      const spanAnnotations = await db.selectFrom('span_annotations').select('id').execute();
      assert.equal(spanAnnotations.length, 0, 'span annotations gone');

      // Through the API: the old trace is 404, the recent one is there; the policy shows the run.
      expectStatus(await member.get(`/v1/projects/${project}/traces/${old[0]}`), 404);
      expectStatus(await member.get(`/v1/projects/${project}/traces/${recent[0]}`), 200);
      const shown = expectStatus(await member.get(`/v1/projects/${project}/retention`), 200).body.data;
      assert.equal(shown.max_days, 2);
      assert.deepEqual({ traces: shown.last_run.deleted_traces, spans: shown.last_run.deleted_spans }, { traces: 3, spans: 6 });
      assert.equal(shown.total_deleted_traces, 3);
      assert.ok(shown.job_last_run_at >= shown.last_run.at);

      // A second run finds nothing more to delete; the totals stay.
      const again = expectStatus(await admin.post('/v1/retention/run'), 200).body.data;
      assert.equal(again.deleted_traces, 0);
      const after = expectStatus(await member.get(`/v1/projects/${project}/retention`), 200).body.data;
      assert.equal(after.last_run.deleted_traces, 0);
      assert.equal(after.total_deleted_traces, 3);
    });

    it('keeps the newest max_traces traces, and keeps everything again once both bounds are null', async () => {
      const name = 'retention-count';
      const ids = Array.from({ length: 5 }, () => newTraceId());
      await send(
        system,
        name,
        ids.map((traceId, i) => ({ traceId, start: daysAgo(0, i * 1000) })),
      );
      const set = expectStatus(await put(admin, name, { max_traces: 2 }), 200).body.data;
      assert.deepEqual([set.max_days, set.max_traces], [null, 2]);
      expectStatus(await admin.post('/v1/retention/run'), 200);
      const kept = expectStatus(await member.get(`/v1/projects/${name}/traces?limit=10`), 200).body.data as { trace_id: string }[];
      assert.deepEqual(kept.map((trace) => trace.trace_id).sort(), [ids[3], ids[4]].sort(), 'the two newest remain');

      // An absent field keeps its value; null removes it.
      const both = expectStatus(await put(admin, name, { max_days: 30 }), 200).body.data;
      assert.deepEqual([both.max_days, both.max_traces], [30, 2]);
      const cleared = expectStatus(await put(admin, name, { max_days: null, max_traces: null }), 200).body.data;
      assert.deepEqual([cleared.max_days, cleared.max_traces], [null, null]);
      await send(system, name, [{ traceId: newTraceId(), start: daysAgo(100) }]);
      const run = expectStatus(await admin.post('/v1/retention/run'), 200).body.data;
      assert.equal(
        run.projects.find((item: { project_id: string }) => item.project_id === cleared.project_id),
        undefined,
      );
      assert.equal((expectStatus(await member.get(`/v1/projects/${name}/traces?limit=10`), 200).body.data as unknown[]).length, 3);
    });
  },
  AUTH_ENV,
);
