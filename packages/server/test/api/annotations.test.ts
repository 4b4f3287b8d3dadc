/**
 * Trace, session and document annotations and span, trace and session notes
 * (docs/annotations.md): Phoenix's bodies and answers, upserts, read-backs through the API,
 * the calling member recorded, and the 4xx cases (unknown targets, bad bodies, reserved name).
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import {
  AUTH_ENV,
  type ApiClient,
  bearerClient,
  createActiveUser,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
} from '../helpers/auth.js';
import { describeEachDialect } from '../helpers/server.js';
import { at, expectError, type JsonResponse, newSpanId, newTraceId, sendSpans } from '../helpers/query.js';

interface Annotation {
  id: string;
  name: string;
  annotator_kind: string;
  result: { label: string | null; score: number | null; explanation: string | null } | null;
  metadata: Record<string, unknown>;
  identifier: string;
  source: string;
  user_id: string | null;
  created_at: string;
  updated_at: string;
}

const kindOf = (id: string) => Buffer.from(id, 'base64').toString().split(':')[0];

describeEachDialect(
  'trace, session and document annotations and notes',
  (server) => {
    let member: ApiClient;
    let memberId = '';
    const state = { project: '', traceId: '', otherTraceId: '', sessionId: '', retrieverSpan: '', rootSpan: '' };
    /** The ApiClient's answer in the shape expectError takes. */
    const asJson = (response: { status: number; headers: Headers; body: unknown }): JsonResponse => ({
      ...response,
      text: JSON.stringify(response.body),
    });

    before(async () => {
      const url = server().url;
      const admin = await setupDefaultAdmin(url);
      const user = await createActiveUser(url, sessionOf(url, admin), 'member');
      member = bearerClient(url, user.key);
      memberId = user.id;
      state.project = unique('annotations');
      state.sessionId = unique('chat');
      state.traceId = newTraceId();
      state.otherTraceId = newTraceId();
      state.rootSpan = newSpanId();
      state.retrieverSpan = newSpanId();
      await sendSpans(
        url,
        state.project,
        [
          {
            traceId: state.traceId,
            spanId: state.rootSpan,
            name: 'turn',
            start: at(0),
            kind: 'CHAIN',
            attributes: { 'session.id': state.sessionId },
          },
          {
            traceId: state.traceId,
            spanId: state.retrieverSpan,
            parentSpanId: state.rootSpan,
            name: 'retrieve',
            start: at(1),
            kind: 'RETRIEVER',
            attributes: { 'retrieval.documents.0.document.content': 'a', 'retrieval.documents.1.document.content': 'b' },
          },
          { traceId: state.otherTraceId, name: 'other', start: at(5) },
        ],
        { authorization: `Bearer ${user.key}` },
      );
    });

    const listTrace = (query: string) => member.get(`/v1/projects/${state.project}/trace_annotations?${query}`);
    const listSession = (query: string) => member.get(`/v1/projects/${state.project}/session_annotations?${query}`);

    it('annotates traces, upserting on (name, trace, identifier), and lists them in Phoenix shape with the member as author', async () => {
      const created = expectStatus(
        await member.post('/v1/trace_annotations?sync=false', {
          data: [
            {
              trace_id: state.traceId,
              name: 'quality',
              annotator_kind: 'HUMAN',
              result: { label: 'good', score: 0.9, explanation: 'fine' },
              metadata: { by: 'qa' },
            },
            { trace_id: state.otherTraceId.toUpperCase(), name: 'quality', annotator_kind: 'CODE', result: { score: 0 } },
          ],
        }),
        200,
      ).body.data as { id: string }[];
      assert.equal(created.length, 2);
      assert.deepEqual(
        created.map((row) => kindOf(row.id)),
        ['TraceAnnotation', 'TraceAnnotation'],
      );
      const again = expectStatus(
        await member.post('/v1/trace_annotations', {
          data: [{ trace_id: state.traceId, name: 'quality', annotator_kind: 'LLM', result: { label: 'bad' } }],
        }),
        200,
      ).body.data;
      assert.equal(again[0].id, created[0]!.id, 'same name, trace and identifier: updated in place');
      const body = expectStatus(await listTrace(`trace_ids=${state.traceId}`), 200).body;
      assert.equal(body.next_cursor, null);
      const [annotation] = body.data as (Annotation & { trace_id: string })[];
      const { created_at, updated_at, ...rest } = annotation!;
      assert.deepEqual(rest, {
        id: created[0]!.id,
        trace_id: state.traceId,
        name: 'quality',
        annotator_kind: 'LLM',
        result: { label: 'bad', score: null, explanation: null },
        metadata: {},
        identifier: '',
        source: 'API',
        user_id: memberId,
      });
      assert.ok(created_at <= updated_at);
      expectStatus(
        await member.post('/v1/trace_annotations', {
          data: [
            { trace_id: state.traceId, name: 'quality', annotator_kind: 'HUMAN', result: { label: 'ok' }, identifier: 'second-opinion' },
          ],
        }),
        200,
      );
      const both = expectStatus(await listTrace(`trace_ids=${state.traceId}&limit=1`), 200).body;
      assert.equal(both.data.length, 1);
      assert.equal(both.data[0].identifier, 'second-opinion', 'newest first');
      const next = expectStatus(
        await listTrace(`trace_ids=${state.traceId}&limit=1&cursor=${encodeURIComponent(both.next_cursor)}`),
        200,
      ).body;
      assert.deepEqual([next.data[0].id, next.next_cursor], [created[0]!.id, null]);
      const byIdentifier = expectStatus(await listTrace('identifier=second-opinion'), 200).body.data;
      assert.equal(byIdentifier.length, 1);
    });

    it('annotates sessions by session.id and lists them', async () => {
      const created = expectStatus(
        await member.post('/v1/session_annotations', {
          data: [{ session_id: state.sessionId, name: 'resolved', annotator_kind: 'HUMAN', result: { label: 'yes', score: 1 } }],
        }),
        200,
      ).body.data;
      assert.equal(kindOf(created[0].id), 'ProjectSessionAnnotation');
      const rows = expectStatus(await listSession(`session_ids=${encodeURIComponent(state.sessionId)}`), 200).body.data as (Annotation & {
        session_id: string;
      })[];
      assert.equal(rows.length, 1);
      assert.deepEqual(
        [rows[0]!.session_id, rows[0]!.name, rows[0]!.result?.label, rows[0]!.user_id],
        [state.sessionId, 'resolved', 'yes', memberId],
      );
    });

    it('annotates documents of a retriever span by position and reads them back', async () => {
      const created = expectStatus(
        await member.post('/v1/document_annotations', {
          data: [
            { span_id: state.retrieverSpan, document_position: 0, name: 'relevance', annotator_kind: 'LLM', result: { score: 1 } },
            { span_id: state.retrieverSpan, document_position: 1, name: 'relevance', annotator_kind: 'LLM', result: { score: 0 } },
          ],
        }),
        200,
      ).body.data;
      assert.equal(created.length, 2);
      assert.equal(kindOf(created[0].id), 'DocumentAnnotation');
      const again = expectStatus(
        await member.post('/v1/document_annotations', {
          data: [
            { span_id: state.retrieverSpan, document_position: 1, name: 'relevance', annotator_kind: 'HUMAN', result: { score: 0.5 } },
          ],
        }),
        200,
      ).body.data;
      assert.equal(again[0].id, created[1].id);
      const rows = expectStatus(await member.get(`/v1/spans/${state.retrieverSpan}/document_annotations`), 200).body.data;
      assert.deepEqual(
        rows.map((row: Annotation & { document_position: number }) => [row.document_position, row.result?.score, row.annotator_kind]),
        [
          [0, 1, 'LLM'],
          [1, 0.5, 'HUMAN'],
        ],
      );
    });

    it('adds notes: a fresh identifier each time, or replaces the note of a given identifier', async () => {
      const first = expectStatus(await member.post('/v1/span_notes', { data: { span_id: state.rootSpan, note: 'looks off' } }), 200).body
        .data;
      const second = expectStatus(await member.post('/v1/span_notes', { data: { span_id: state.rootSpan, note: ' again ' } }), 200).body
        .data;
      assert.equal(kindOf(first.id), 'SpanAnnotation');
      assert.notEqual(first.id, second.id);
      const spanNotes = expectStatus(
        await member.get(`/v1/projects/${state.project}/span_annotations?span_ids=${state.rootSpan}&include_annotation_names=note`),
        200,
      ).body.data as Annotation[];
      assert.deepEqual(
        spanNotes.map((row) => row.result?.explanation),
        ['again', 'looks off'],
      );
      assert.ok(
        spanNotes.every((row) => row.annotator_kind === 'HUMAN' && row.identifier.startsWith('px-span-note:') && row.user_id === memberId),
      );

      const traceNote = expectStatus(
        await member.post('/v1/trace_notes', { data: { trace_id: state.traceId, note: 'v1', identifier: 'mine' } }),
        200,
      ).body.data;
      const replaced = expectStatus(
        await member.post('/v1/trace_notes', { data: { trace_id: state.traceId, note: 'v2', identifier: 'mine' } }),
        200,
      ).body.data;
      assert.equal(replaced.id, traceNote.id);
      const traceNotes = expectStatus(await listTrace(`trace_ids=${state.traceId}&include_annotation_names=note`), 200).body.data;
      assert.deepEqual(
        traceNotes.map((row: Annotation) => row.result?.explanation),
        ['v2'],
      );

      const sessionNote = expectStatus(
        await member.post('/v1/session_notes', { data: { session_id: state.sessionId, note: 'long chat' } }),
        200,
      ).body.data;
      assert.equal(kindOf(sessionNote.id), 'ProjectSessionAnnotation');
      const sessionNotes = expectStatus(
        await listSession(`session_ids=${encodeURIComponent(state.sessionId)}&include_annotation_names=note`),
        200,
      ).body.data;
      assert.equal(sessionNotes[0].result.explanation, 'long chat');
      assert.match(sessionNotes[0].identifier, /^px-session-note:/);
    });

    it('answers 404 naming unknown targets, and writes nothing of a batch that has one', async () => {
      const ghostTrace = newTraceId();
      const missing = asJson(
        await member.post('/v1/trace_annotations', {
          data: [
            { trace_id: state.traceId, name: 'batch', annotator_kind: 'HUMAN', result: { label: 'x' } },
            { trace_id: ghostTrace, name: 'batch', annotator_kind: 'HUMAN', result: { label: 'y' } },
          ],
        }),
      );
      expectError(missing, 404, new RegExp(`traces not found: ${ghostTrace}`));
      assert.deepEqual(expectStatus(await listTrace(`trace_ids=${state.traceId}&include_annotation_names=batch`), 200).body.data, []);
      const ghostSession = unique('ghost');
      expectError(
        asJson(await member.post('/v1/session_annotations', { data: [{ session_id: ghostSession, name: 'n', annotator_kind: 'HUMAN' }] })),
        404,
        new RegExp(`sessions not found: ${ghostSession}`),
      );
      const ghostSpan = newSpanId();
      expectError(
        asJson(
          await member.post('/v1/document_annotations', {
            data: [{ span_id: ghostSpan, document_position: 0, name: 'n', annotator_kind: 'HUMAN' }],
          }),
        ),
        404,
        new RegExp(ghostSpan),
      );
      expectError(asJson(await member.post('/v1/span_notes', { data: { span_id: ghostSpan, note: 'n' } })), 404, new RegExp(ghostSpan));
      expectError(asJson(await member.post('/v1/trace_notes', { data: { trace_id: ghostTrace, note: 'n' } })), 404, new RegExp(ghostTrace));
      expectError(
        asJson(await member.post('/v1/session_notes', { data: { session_id: ghostSession, note: 'n' } })),
        404,
        new RegExp(ghostSession),
      );
      expectError(asJson(await member.get(`/v1/spans/${ghostSpan}/document_annotations`)), 404);
      expectError(asJson(await listTrace(`trace_ids=${ghostTrace}`)), 404, /none of the trace_ids/);
      expectError(asJson(await listSession(`session_ids=${ghostSession}`)), 404, /none of the session_ids/);
      expectError(asJson(await member.get(`/v1/projects/${unique('nope')}/trace_annotations?trace_ids=${state.traceId}`)), 404);
    });

    it('answers 422 with a clear message for malformed bodies and queries, never 500', async () => {
      const cases: [string, string, unknown, RegExp][] = [
        ['POST', '/v1/trace_annotations', { data: [{ trace_id: state.traceId, name: 'note', annotator_kind: 'HUMAN' }] }, /reserved/],
        ['POST', '/v1/session_annotations', { data: [{ session_id: state.sessionId, name: '  ', annotator_kind: 'HUMAN' }] }, /blank/],
        ['POST', '/v1/trace_annotations', { data: [{ trace_id: state.traceId, name: 'x', annotator_kind: 'ROBOT' }] }, /annotator_kind/],
        ['POST', '/v1/trace_annotations', { data: [{ name: 'x', annotator_kind: 'HUMAN' }] }, /trace_id/],
        ['POST', '/v1/trace_annotations', { data: 'nope' }, /data/],
        ['POST', '/v1/trace_annotations', {}, /data/],
        [
          'POST',
          '/v1/document_annotations',
          { data: [{ span_id: state.retrieverSpan, document_position: -1, name: 'x', annotator_kind: 'HUMAN' }] },
          /document_position/,
        ],
        [
          'POST',
          '/v1/document_annotations',
          { data: [{ span_id: state.retrieverSpan, document_position: 'first', name: 'x', annotator_kind: 'HUMAN' }] },
          /document_position/,
        ],
        ['POST', '/v1/span_notes', { data: { span_id: state.rootSpan, note: '   ' } }, /note must not be blank/],
        ['POST', '/v1/trace_notes', { data: { trace_id: state.traceId } }, /note/],
        ['POST', '/v1/session_notes', { data: [{ session_id: state.sessionId, note: 'x' }] }, /data/],
        ['GET', `/v1/projects/${state.project}/trace_annotations`, undefined, /at least one of trace_ids or identifier/],
        ['GET', `/v1/projects/${state.project}/session_annotations?limit=5`, undefined, /at least one of session_ids or identifier/],
        ['GET', `/v1/projects/${state.project}/trace_annotations?trace_ids=${state.traceId}&cursor=zzz`, undefined, /cursor/],
        ['GET', `/v1/projects/${state.project}/trace_annotations?trace_ids=${state.traceId}&limit=0`, undefined, /limit/],
      ];
      for (const [method, path, body, detail] of cases) {
        const response = asJson(await member.request(method, path, body === undefined ? {} : { body }));
        expectError(response, 422, detail);
      }
      const cursorOfOtherKind = encodeURIComponent(toGlobalId('Span', 1));
      expectError(asJson(await listTrace(`trace_ids=${state.traceId}&cursor=${cursorOfOtherKind}`)), 422, /cursor/);
    });
  },
  AUTH_ENV,
);
