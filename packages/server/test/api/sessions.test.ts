/**
 * Sessions (docs/sessions.md): recorded by ingest from `session.id`, listed with aggregates and
 * keyset pages, read by id or text, filtered on traces, deleted (admins and system keys only);
 * and span and trace deletion.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import {
  AUTH_ENV,
  type ApiClient,
  bearerClient,
  createActiveUser,
  createSystemKey,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
} from '../helpers/auth.js';
import { describeEachDialect } from '../helpers/server.js';
import { at, newTraceId, type OtlpValue, type QuerySpan, sendSpans } from '../helpers/query.js';

interface SessionBody {
  id: string;
  session_id: string;
  project_id: string;
  start_time: string;
  end_time: string;
  traces: { id: string; trace_id: string; start_time: string; end_time: string }[];
  token_count_prompt: number;
  token_count_completion: number;
  token_count_total: number;
  trace_count: number;
  duration_ms: number;
  first_input: string | null;
  last_output: string | null;
}

/** A root CHAIN span with input and output, and an LLM child with token counts, in one trace. */
function turn(traceId: string, sessionId: string | null, startMs: number, n: number): QuerySpan[] {
  const rootId = `${n.toString(16).padStart(4, '0')}${'a'.repeat(12)}`;
  const session: Record<string, OtlpValue> = sessionId === null ? {} : { 'session.id': sessionId };
  return [
    {
      traceId,
      spanId: rootId,
      name: 'turn',
      start: at(startMs),
      duration: 10_000_000n,
      kind: 'CHAIN',
      attributes: { ...session, 'input.value': `question ${n}`, 'output.value': `answer ${n}` },
    },
    {
      traceId,
      parentSpanId: rootId,
      name: 'llm',
      start: at(startMs + 1),
      duration: 5_000_000n,
      kind: 'LLM',
      attributes: { ...session, 'llm.token_count.prompt': 10 * n, 'llm.token_count.completion': n },
    },
  ];
}

describeEachDialect(
  'sessions API',
  (server) => {
    const clients = {} as { admin: ApiClient; member: ApiClient; system: ApiClient; adminKey: string };
    const send = (project: string, spans: QuerySpan[]) =>
      sendSpans(server().url, project, spans, { authorization: `Bearer ${clients.adminKey}` });
    const state = { project: '', other: '', sessionText: '', traceIds: [] as string[] };

    before(async () => {
      const url = server().url;
      const admin = await setupDefaultAdmin(url);
      const member = await createActiveUser(url, sessionOf(url, admin), 'member');
      clients.admin = bearerClient(url, admin.key);
      clients.adminKey = admin.key;
      clients.member = bearerClient(url, member.key);
      clients.system = bearerClient(url, (await createSystemKey(sessionOf(url, admin))).key);

      state.project = unique('chat');
      state.other = unique('chat-other');
      state.sessionText = unique('conversation');
      state.traceIds = [newTraceId(), newTraceId(), newTraceId()];
      // Two turns in one export, the third later; the session ends with the late child span below.
      await send(state.project, [
        ...turn(state.traceIds[0]!, state.sessionText, 0, 1),
        ...turn(state.traceIds[1]!, state.sessionText, 100, 2),
      ]);
      await send(state.project, turn(state.traceIds[2]!, state.sessionText, 200, 3));
      await send(state.project, turn(newTraceId(), null, 300, 4));
    });

    it('records the session of each trace from session.id, with aggregates, through the member key', async () => {
      const body = expectStatus(await clients.member.get(`/v1/projects/${state.project}/sessions`), 200).body;
      assert.equal(body.next_cursor, null);
      assert.equal(body.data.length, 1, 'the trace without session.id makes no session');
      const session = body.data[0] as SessionBody;
      assert.equal(session.session_id, state.sessionText);
      assert.match(Buffer.from(session.id, 'base64').toString(), /^ProjectSession:\d+$/);
      assert.deepEqual(
        session.traces.map((trace) => trace.trace_id),
        state.traceIds,
        'traces in start order',
      );
      assert.equal(session.trace_count, 3);
      assert.equal(session.start_time, '2025-11-22T00:00:00.000000000Z');
      assert.equal(session.end_time, '2025-11-22T00:00:00.210000000Z');
      assert.equal(session.duration_ms, 210);
      assert.deepEqual(
        [session.token_count_prompt, session.token_count_completion, session.token_count_total],
        [60, 6, 66],
        'sums over the LLM spans of the three turns',
      );
      assert.deepEqual([session.first_input, session.last_output], ['question 1', 'answer 3']);
    });

    it('extends the session when a later export adds to one of its traces, even without session.id', async () => {
      const project = unique('late');
      const text = unique('late-session');
      const traceId = newTraceId();
      await send(project, turn(traceId, text, 0, 1));
      await send(project, [{ traceId, name: 'late', start: at(5000), duration: 1_000_000n }]);
      const [session] = expectStatus(await clients.member.get(`/v1/projects/${project}/sessions`), 200).body.data as SessionBody[];
      assert.equal(session!.end_time, '2025-11-22T00:00:05.001000000Z');
      assert.equal(session!.trace_count, 1);
    });

    it('pages sessions by id, ascending by default, descending on request', async () => {
      const project = unique('paged');
      const texts = Array.from({ length: 5 }, (_, i) => `s${i}-${unique('p')}`);
      for (const [i, text] of texts.entries()) await send(project, turn(newTraceId(), text, i * 10, i + 1));
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const body = expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?${query}`), 200).body;
        seen.push(...body.data.map((session: SessionBody) => session.session_id));
        cursor = body.next_cursor;
        pages += 1;
      } while (cursor !== null && pages < 10);
      assert.equal(pages, 3);
      assert.deepEqual(seen, texts);
      const desc = expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?order=desc&limit=10`), 200).body;
      assert.deepEqual(
        desc.data.map((session: SessionBody) => session.session_id),
        [...texts].reverse(),
      );
      expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?cursor=bm9wZQ==`), 422);
      expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?limit=0`), 422);
      expectStatus(await clients.member.get(`/v1/projects/${unique('missing')}/sessions`), 404);
    });

    it('sorts sessions by start time on request, newest first, paging through ties', async () => {
      const project = unique('by-start');
      // Seen by ingest in this order; they started in another: 20, 5, 10 (and two at 30).
      const starts = [20, 5, 10, 30, 30];
      const texts = starts.map((_, i) => `s${i}-${unique('t')}`);
      for (const [i, text] of texts.entries()) await send(project, turn(newTraceId(), text, starts[i]! * 1000, i + 1));
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `sort=start_time&order=desc&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const body = expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?${query}`), 200).body;
        seen.push(...body.data.map((session: SessionBody) => session.session_id));
        cursor = body.next_cursor;
        pages += 1;
      } while (cursor !== null && pages < 10);
      // Ties in start time go by id, in the same order.
      assert.deepEqual(seen, [texts[4], texts[3], texts[0], texts[2], texts[1]]);
      const ascending = expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?sort=start_time`), 200).body;
      assert.deepEqual(
        ascending.data.map((session: SessionBody) => session.session_id),
        [texts[1], texts[2], texts[0], texts[3], texts[4]],
      );
      expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?sort=last_activity`), 422);
    });

    it('sorts sessions by last activity, and counts their error spans', async () => {
      const project = unique('by-activity');
      const [early, late] = [`early-${unique('s')}`, `late-${unique('s')}`];
      await send(project, turn(newTraceId(), early, 0, 1));
      await send(project, turn(newTraceId(), late, 50_000, 2));
      // The early session's second turn makes it the last active.
      await send(project, turn(newTraceId(), early, 100_000, 3));
      await send(project, [
        { traceId: newTraceId(), name: 'failing', start: at(60_000), status: 'ERROR', attributes: { 'session.id': late } },
      ]);
      const ids = async (query: string) =>
        expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?${query}`), 200).body.data.map(
          (session: SessionBody & { error_count: number }) => `${session.session_id}:${session.error_count}`,
        );
      assert.deepEqual(await ids('sort=end_time&order=desc'), [`${early}:0`, `${late}:1`]);
      assert.deepEqual(await ids('sort=start_time&order=desc'), [`${late}:1`, `${early}:0`]);
      const first = expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?sort=end_time&order=desc&limit=1`), 200).body;
      const second = expectStatus(
        await clients.member.get(
          `/v1/projects/${project}/sessions?sort=end_time&order=desc&limit=1&cursor=${encodeURIComponent(first.next_cursor)}`,
        ),
        200,
      ).body;
      assert.equal(second.data[0].session_id, late, 'the cursor pages by last activity');
    });

    it("looks up a user's sessions and traces by user.id, mixed-user traces included", async () => {
      const project = unique('by-user');
      const [alice, bob] = [unique('alice'), unique('bob')];
      const [aliceTrace, bobTrace, sharedTrace] = [newTraceId(), newTraceId(), newTraceId()];
      const span = (traceId: string, session: string, user: string, ms: number): QuerySpan => ({
        traceId,
        start: at(ms),
        attributes: { 'session.id': session, 'user.id': user },
      });
      await send(project, [span(aliceTrace, 's-alice', alice, 0)]);
      await send(project, [span(bobTrace, 's-bob', bob, 10)]);
      // One trace with spans of both users: its key is "several users", and each of them finds it.
      await send(project, [span(sharedTrace, 's-shared', bob, 20), span(sharedTrace, 's-shared', alice, 21)]);
      const traces = async (user: string) =>
        expectStatus(await clients.member.get(`/v1/projects/${project}/traces?user_id=${encodeURIComponent(user)}`), 200)
          .body.data.map((trace: { trace_id: string }) => trace.trace_id)
          .sort();
      assert.deepEqual(await traces(alice), [aliceTrace, sharedTrace].sort());
      assert.deepEqual(await traces(bob), [bobTrace, sharedTrace].sort());
      assert.deepEqual(await traces('nobody'), []);
      const sessions = async (user: string) =>
        expectStatus(await clients.member.get(`/v1/projects/${project}/sessions?user_id=${encodeURIComponent(user)}`), 200)
          .body.data.map((session: SessionBody) => session.session_id)
          .sort();
      assert.deepEqual(await sessions(alice), ['s-alice', 's-shared']);
      assert.deepEqual(await sessions(bob), ['s-bob', 's-shared']);
    });

    it('reads one session by id or by session.id text; a text in two projects is ambiguous', async () => {
      const listed = expectStatus(await clients.member.get(`/v1/projects/${state.project}/sessions`), 200).body.data[0] as SessionBody;
      const byId = expectStatus(await clients.member.get(`/v1/sessions/${encodeURIComponent(listed.id)}`), 200).body.data;
      assert.deepEqual(byId, listed);
      const byText = expectStatus(await clients.member.get(`/v1/sessions/${encodeURIComponent(state.sessionText)}`), 200).body.data;
      assert.equal(byText.id, listed.id);
      const missing = expectStatus(await clients.member.get(`/v1/sessions/${unique('nope')}`), 404);
      assert.match(missing.body.detail, /session "nope-.*" not found/);
      expectStatus(await clients.member.get(`/v1/sessions/${encodeURIComponent(toGlobalId('ProjectSession', 999999))}`), 404);

      const shared = unique('shared');
      await send(state.other, turn(newTraceId(), shared, 0, 1));
      await send(unique('third'), turn(newTraceId(), shared, 0, 1));
      const ambiguous = expectStatus(await clients.member.get(`/v1/sessions/${shared}`), 409);
      assert.match(ambiguous.body.detail, /several projects/);
    });

    it("filters a project's traces by session (getTraces sessionId)", async () => {
      const byText = expectStatus(
        await clients.member.get(`/v1/projects/${state.project}/traces?session_identifier=${encodeURIComponent(state.sessionText)}`),
        200,
      ).body;
      assert.deepEqual(new Set(byText.data.map((trace: { trace_id: string }) => trace.trace_id)), new Set(state.traceIds));
      const all = expectStatus(await clients.member.get(`/v1/projects/${state.project}/traces`), 200).body;
      assert.equal(all.data.length, 4);
      const none = expectStatus(await clients.member.get(`/v1/projects/${state.project}/traces?session_identifier=unknown-session`), 200);
      assert.deepEqual(none.body.data, []);
    });

    it('deletes a session with its traces: admins and system keys only', async () => {
      const project = unique('deleting');
      const texts = [unique('d1'), unique('d2'), unique('d3'), unique('d4')];
      const traceIds = texts.map(() => newTraceId());
      for (const [i, text] of texts.entries()) await send(project, turn(traceIds[i]!, text, i, i + 1));
      const forbidden = expectStatus(await clients.member.delete(`/v1/sessions/${texts[0]}`), 403);
      assert.match(forbidden.body.detail, /only admins/);
      expectStatus(await clients.member.post('/v1/sessions/delete', { session_identifiers: [texts[0]] }), 403);

      expectStatus(await clients.admin.delete(`/v1/sessions/${texts[0]}`), 204);
      expectStatus(await clients.member.get(`/v1/sessions/${texts[0]}`), 404);
      expectStatus(await clients.member.get(`/v1/projects/${project}/traces/${traceIds[0]}`), 404);
      expectStatus(await clients.admin.delete(`/v1/sessions/${texts[0]}`), 404);

      const ids = (expectStatus(await clients.member.get(`/v1/projects/${project}/sessions`), 200).body.data as SessionBody[]).map(
        (session) => session.id,
      );
      assert.equal(ids.length, 3);
      const mixed = expectStatus(await clients.system.post('/v1/sessions/delete', { session_identifiers: [ids[0], texts[2]] }), 422);
      assert.match(mixed.body.detail, /all session ids or all session.id texts/);
      expectStatus(await clients.system.post('/v1/sessions/delete', { session_identifiers: [] }), 422);
      expectStatus(
        await clients.system.post('/v1/sessions/delete', { session_identifiers: [ids[0], ids[1], toGlobalId('ProjectSession', 999999)] }),
        204,
      );
      const left = expectStatus(await clients.member.get(`/v1/projects/${project}/sessions`), 200).body.data as SessionBody[];
      assert.deepEqual(
        left.map((session) => session.session_id),
        [texts[3]],
      );
      const traces = expectStatus(await clients.member.get(`/v1/projects/${project}/traces`), 200).body.data;
      assert.deepEqual(
        traces.map((trace: { trace_id: string }) => trace.trace_id),
        [traceIds[3]],
      );
    });

    it('deletes one span (children stay), and the trace with its last span; deletes a whole trace', async () => {
      const project = unique('span-delete');
      const traceId = newTraceId();
      const spans = await send(project, turn(traceId, null, 0, 7));
      const [root, child] = spans;
      expectStatus(await clients.member.delete(`/v1/spans/${root!.spanId}`), 403);
      expectStatus(await clients.admin.delete(`/v1/spans/${root!.spanId}`), 204);
      expectStatus(await clients.member.get(`/v1/spans/${root!.spanId}`), 404);
      const orphan = expectStatus(await clients.member.get(`/v1/spans/${child!.spanId}`), 200).body.data;
      assert.equal(orphan.parent_id, root!.spanId, 'the child keeps its parent id');
      expectStatus(await clients.admin.delete(`/v1/spans/${root!.spanId}`), 404);
      expectStatus(
        await clients.system.delete(
          `/v1/spans/${encodeURIComponent(toGlobalId('Span', Number(Buffer.from(orphan.id, 'base64').toString().split(':')[1])))}`,
        ),
        204,
      );
      expectStatus(await clients.member.get(`/v1/projects/${project}/traces/${traceId}`), 404);

      const other = newTraceId();
      await send(project, turn(other, null, 0, 8));
      expectStatus(await clients.member.delete(`/v1/traces/${other}`), 403);
      expectStatus(await clients.admin.delete(`/v1/traces/${other}`), 204);
      expectStatus(await clients.member.get(`/v1/projects/${project}/traces/${other}`), 404);
      expectStatus(await clients.admin.delete(`/v1/traces/${other}`), 404);
      expectStatus(await clients.admin.delete('/v1/traces/not-a-trace'), 404);
    });
  },
  AUTH_ENV,
);
