/**
 * Bulk deletes of a project's span, trace and session annotations (Phoenix's deleteSpanAnnotations,
 * deleteTraceAnnotations, deleteSessionAnnotations): the bounded-or-delete_all gate, each filter,
 * the project scope, a member reaching only their own annotations, batches past 1000 rows, and
 * the 4xx answers.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
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
import { at, expectError, type JsonResponse, newSpanId, newTraceId, sendSpans } from '../helpers/query.js';
import { DELETE_BATCH } from '../../src/annotations/annotations-service.js';

const asJson = (response: { status: number; headers: Headers; body: unknown }): JsonResponse => ({
  ...response,
  text: JSON.stringify(response.body),
});

describeEachDialect(
  'bulk annotation deletes',
  (server) => {
    let member: ApiClient;
    let system: ApiClient;
    let memberId = '';

    before(async () => {
      const url = server().url;
      const admin = await setupDefaultAdmin(url);
      const user = await createActiveUser(url, sessionOf(url, admin), 'member');
      member = bearerClient(url, user.key);
      memberId = user.id;
      system = bearerClient(url, (await createSystemKey(sessionOf(url, admin))).key);
    });

    /** A project with one trace of one span in a session; returns its ids. */
    const project = async () => {
      const name = unique('anno-del');
      const traceId = newTraceId();
      const spanId = newSpanId();
      const sessionId = unique('chat');
      await sendSpans(server().url, name, [{ traceId, spanId, name: 'root', start: at(0), attributes: { 'session.id': sessionId } }], {
        authorization: `Bearer ${(system.credential as { bearer: string }).bearer}`,
      });
      return { name, traceId, spanId, sessionId };
    };

    const annotate = async (client: ApiClient, path: string, data: object[]) => expectStatus(await client.post(path, { data }), 200);
    const spanNames = async (projectName: string, spanId: string) =>
      (
        expectStatus(await system.get(`/v1/projects/${projectName}/span_annotations?span_ids=${spanId}&limit=1000`), 200).body.data as {
          name: string;
          identifier: string;
          user_id: string | null;
        }[]
      )
        .map((row) => `${row.name}/${row.identifier}/${row.user_id === null ? 'system' : row.user_id === memberId ? 'member' : 'other'}`)
        .sort();

    it('refuses an unbounded delete, a half-open window, an empty window and malformed filters with 422', async () => {
      const p = await project();
      const path = `/v1/projects/${p.name}/span_annotations`;
      expectError(asJson(await system.delete(path)), 422, /unbounded: set delete_all=true/);
      expectError(asJson(await system.delete(`${path}?name=x`)), 422, /unbounded/);
      expectError(asJson(await system.delete(`${path}?start_time=2026-01-01T00:00:00Z`)), 422, /unbounded/);
      expectError(
        asJson(await system.delete(`${path}?start_time=2026-01-02T00:00:00Z&end_time=2026-01-01T00:00:00Z`)),
        422,
        /end_time must be after start_time/,
      );
      expectError(asJson(await system.delete(`${path}?delete_all=true&start_time=yesterday`)), 422, /start_time must be an ISO 8601/);
      expectError(asJson(await system.delete(`${path}?delete_all=true&name=`)), 422, /name/);
      expectError(asJson(await system.delete(`${path}?delete_all=true&annotator_kind=ROBOT`)), 422, /annotator_kind/);
      expectError(asJson(await system.delete(`${path}?delete_all=maybe`)), 422, /delete_all/);
      expectError(asJson(await system.delete(`/v1/projects/${unique('no-such')}/trace_annotations?delete_all=true`)), 404, /project/);
    });

    it('deletes what every filter matches, only in the project, and answers 204 when nothing matches', async () => {
      const p = await project();
      const other = await project();
      for (const target of [p, other]) {
        await annotate(system, '/v1/span_annotations', [
          { span_id: target.spanId, name: 'quality', annotator_kind: 'LLM', result: { score: 1 } },
          { span_id: target.spanId, name: 'quality', annotator_kind: 'HUMAN', result: { label: 'ok' }, identifier: 'second' },
          { span_id: target.spanId, name: 'tone', annotator_kind: 'LLM', result: { label: 'calm' } },
        ]);
      }
      const path = `/v1/projects/${p.name}/span_annotations`;
      // A window that ended before the annotations were made matches none of them.
      const none = await system.delete(`${path}?start_time=2020-01-01T00:00:00Z&end_time=2020-01-02T00:00:00Z`);
      assert.equal(none.status, 204);
      assert.equal(none.body, '');
      assert.equal((await spanNames(p.name, p.spanId)).length, 3);

      expectStatus(await system.delete(`${path}?delete_all=true&name=quality&identifier=second`), 204);
      assert.deepEqual(await spanNames(p.name, p.spanId), ['quality//system', 'tone//system']);
      expectStatus(await system.delete(`${path}?delete_all=true&annotator_kind=LLM&name=tone`), 204);
      assert.deepEqual(await spanNames(p.name, p.spanId), ['quality//system']);
      // A window around now (start inclusive, end exclusive, on created_at) takes the rest.
      const start = new Date(Date.now() - 3_600_000).toISOString();
      const end = new Date(Date.now() + 3_600_000).toISOString();
      expectStatus(await system.delete(`${path}?start_time=${start}&end_time=${end}`), 204);
      assert.deepEqual(await spanNames(p.name, p.spanId), []);
      assert.deepEqual(await spanNames(other.name, other.spanId), ['quality//system', 'quality/second/system', 'tone//system']);
    });

    it("lets a member delete only the annotations they wrote; a system key deletes everyone's", async () => {
      const p = await project();
      await annotate(member, '/v1/span_annotations', [{ span_id: p.spanId, name: 'mine', annotator_kind: 'HUMAN', result: { score: 1 } }]);
      await annotate(system, '/v1/span_annotations', [{ span_id: p.spanId, name: 'theirs', annotator_kind: 'CODE', result: { score: 0 } }]);
      const path = `/v1/projects/${p.name}/span_annotations?delete_all=true`;
      expectStatus(await member.delete(path), 204);
      assert.deepEqual(await spanNames(p.name, p.spanId), ['theirs//system']);
      expectStatus(await system.delete(path), 204);
      assert.deepEqual(await spanNames(p.name, p.spanId), []);
    });

    it('deletes trace and session annotations by the same rules, leaving the other kinds alone', async () => {
      const p = await project();
      await annotate(system, '/v1/trace_annotations', [
        { trace_id: p.traceId, name: 'resolved', annotator_kind: 'HUMAN', result: { label: 'yes' } },
        { trace_id: p.traceId, name: 'keep', annotator_kind: 'HUMAN', result: { label: 'yes' } },
      ]);
      await annotate(system, '/v1/session_annotations', [
        { session_id: p.sessionId, name: 'resolved', annotator_kind: 'HUMAN', result: { label: 'yes' } },
      ]);
      await annotate(system, '/v1/span_annotations', [
        { span_id: p.spanId, name: 'resolved', annotator_kind: 'HUMAN', result: { score: 1 } },
      ]);
      expectStatus(await system.delete(`/v1/projects/${p.name}/trace_annotations?delete_all=true&name=resolved`), 204);
      const traces = expectStatus(await system.get(`/v1/projects/${p.name}/trace_annotations?trace_ids=${p.traceId}`), 200).body.data;
      assert.deepEqual(
        traces.map((row: { name: string }) => row.name),
        ['keep'],
      );
      const sessionsBefore = expectStatus(await system.get(`/v1/projects/${p.name}/session_annotations?session_ids=${p.sessionId}`), 200);
      assert.equal(sessionsBefore.body.data.length, 1);
      expectStatus(await system.delete(`/v1/projects/${p.name}/session_annotations?delete_all=true`), 204);
      const sessionsAfter = expectStatus(await system.get(`/v1/projects/${p.name}/session_annotations?session_ids=${p.sessionId}`), 200);
      assert.deepEqual(sessionsAfter.body, { data: [], next_cursor: null });
      assert.deepEqual(await spanNames(p.name, p.spanId), ['resolved//system']);
    });

    describe('batches', () => {
      it(`deletes more annotations than one batch (${DELETE_BATCH}) holds`, async () => {
        const p = await project();
        const count = DELETE_BATCH + 5;
        const data = Array.from({ length: count }, (_, index) => ({
          span_id: p.spanId,
          name: 'bulk',
          annotator_kind: 'CODE',
          result: { score: index },
          identifier: `run-${index}`,
        }));
        await annotate(system, '/v1/span_annotations', data);
        const path = `/v1/projects/${p.name}/span_annotations?span_ids=${p.spanId}&limit=1000`;
        assert.ok(expectStatus(await system.get(path), 200).body.next_cursor, 'more than one page before');
        expectStatus(await system.delete(`/v1/projects/${p.name}/span_annotations?delete_all=true&name=bulk`), 204);
        assert.deepEqual(expectStatus(await system.get(path), 200).body, { data: [], next_cursor: null });
      });
    });
  },
  AUTH_ENV,
);
