/**
 * The real @arizeai/phoenix-client 6.14.2 against Sightline (auth on, a member's user key):
 * logSpans builds two chat sessions, then listSessions, getSession, getSessionTurns, the trace,
 * session and document annotation and note helpers, deleteSpan and deleteSession(s); every
 * result is checked through Sightline's API. Deleting is admin-only (docs/api.md,
 * "Permissions"): the member is refused and an admin's key does it.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createClient } from '@arizeai/phoenix-client';
import {
  addSessionNote,
  deleteSession,
  deleteSessions,
  getSession,
  getSessionTurns,
  listSessions,
  logSessionAnnotations,
} from '@arizeai/phoenix-client/sessions';
import { addSpanNote, deleteSpan, getSpanAnnotations, getSpans, logDocumentAnnotations, logSpans } from '@arizeai/phoenix-client/spans';
import { addTraceNote, getTraces, logTraceAnnotations } from '@arizeai/phoenix-client/traces';
import {
  AUTH_ENV,
  type ApiClient,
  bearerClient,
  createActiveUser,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
} from '../../packages/server/test/helpers/auth.js';
import { newSpanId, newTraceId } from '../../packages/server/test/helpers/otlp-bodies.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';

// A stray .env.phoenix must not redirect the client.
process.env.PHOENIX_DISCOVER_CONFIG = 'false';

type RestSpan = Parameters<typeof logSpans>[0]['spans'][number];

/** One turn of a chat: a CHAIN root with input and output, an LLM child with tokens, a RETRIEVER child with two documents. */
function turn(
  sessionId: string,
  question: string,
  answer: string,
  startSecond: number,
): { traceId: string; rootId: string; retrieverId: string; spans: RestSpan[] } {
  const traceId = newTraceId();
  const rootId = newSpanId();
  const retrieverId = newSpanId();
  const time = (offsetMs: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, startSecond) + offsetMs).toISOString();
  const base = { context: { trace_id: traceId, span_id: '' }, status_code: 'OK', status_message: '', events: [] };
  return {
    traceId,
    rootId,
    retrieverId,
    spans: [
      {
        ...base,
        name: 'chat turn',
        context: { trace_id: traceId, span_id: rootId },
        span_kind: 'CHAIN',
        parent_id: null,
        start_time: time(0),
        end_time: time(900),
        attributes: { 'session.id': sessionId, 'input.value': question, 'input.mime_type': 'text/plain', 'output.value': answer },
      },
      {
        ...base,
        name: 'llm',
        context: { trace_id: traceId, span_id: newSpanId() },
        span_kind: 'LLM',
        parent_id: rootId,
        start_time: time(100),
        end_time: time(800),
        attributes: { 'session.id': sessionId, 'llm.token_count.prompt': 20, 'llm.token_count.completion': 5, 'llm.model_name': 'gpt-x' },
      },
      {
        ...base,
        name: 'retrieve',
        context: { trace_id: traceId, span_id: retrieverId },
        span_kind: 'RETRIEVER',
        parent_id: rootId,
        start_time: time(10),
        end_time: time(90),
        attributes: { 'retrieval.documents': [{ 'document.content': 'doc a' }, { 'document.content': 'doc b' }] as unknown as string[] },
      },
    ],
  };
}

describeEachDialect(
  '@arizeai/phoenix-client sessions, annotations and span writes against Sightline',
  (server) => {
    let phoenix: ReturnType<typeof createClient>;
    let adminPhoenix: ReturnType<typeof createClient>;
    let member: ApiClient;
    const project = unique('chatbot');
    const chatA = unique('chat-a');
    const chatB = unique('chat-b');
    let turns: ReturnType<typeof turn>[] = [];

    before(async () => {
      const url = server().url;
      const admin = await setupDefaultAdmin(url);
      const user = await createActiveUser(url, sessionOf(url, admin), 'member');
      member = bearerClient(url, user.key);
      phoenix = createClient({ options: { baseUrl: url, headers: { Authorization: `Bearer ${user.key}` } } });
      adminPhoenix = createClient({ options: { baseUrl: url, headers: { Authorization: `Bearer ${admin.key}` } } });
      turns = [
        turn(chatA, 'hi', 'hello', 0),
        turn(chatA, 'how are you?', 'fine', 10),
        turn(chatA, 'bye', 'see you', 20),
        turn(chatB, 'q', 'a', 30),
      ];
    });

    it('logSpans stores every span through the ingest path, all or nothing', async () => {
      const spans = turns.flatMap((t) => t.spans);
      const result = await logSpans({ client: phoenix, project: { projectName: project }, spans });
      assert.deepEqual(result, { totalReceived: 12, totalQueued: 12 });
      const stored = await getSpans({ client: phoenix, project: { projectName: project }, limit: 100 });
      assert.equal(stored.spans.length, 12);
      const llm = stored.spans.find((span) => span.context.span_id === turns[0]!.spans[1]!.context.span_id);
      assert.equal(llm?.span_kind, 'LLM');
      assert.equal(llm?.parent_id, turns[0]!.rootId);

      // A duplicate refuses the whole request, naming the span; the new span of that request is not stored.
      const fresh = turn(chatB, 'new', 'never stored', 40);
      await assert.rejects(
        logSpans({ client: phoenix, project: { projectName: project }, spans: [fresh.spans[0]!, turns[0]!.spans[0]!] }),
        (error: Error) => error.message.includes(turns[0]!.rootId) && /duplicate/.test(error.message),
      );
      // A malformed span too.
      const broken = { ...fresh.spans[0]!, context: { trace_id: 'not-hex', span_id: fresh.rootId }, start_time: 'yesterday' };
      await assert.rejects(
        logSpans({ client: phoenix, project: { projectName: project }, spans: [fresh.spans[1]!, broken] }),
        (error: Error) => error.message.includes(fresh.rootId) && /trace_id/.test(error.message),
      );
      const after = await getSpans({ client: phoenix, project: { projectName: project }, traceIds: [fresh.traceId] });
      assert.equal(after.spans.length, 0, 'nothing of a refused request is stored');
    });

    it('listSessions, getSession and getSessionTurns read the sessions the spans named', async () => {
      const sessions = await listSessions({ client: phoenix, projectName: project });
      // Sessions are listed in the order they were created, which depends on how the writer batched the spans.
      assert.deepEqual(sessions.map((session) => [session.sessionId, session.traces.length]).sort(), [
        [chatA, 3],
        [chatB, 1],
      ]);
      const a = await getSession({ client: phoenix, sessionId: chatA });
      assert.deepEqual(
        a.traces.map((trace) => trace.traceId),
        turns.slice(0, 3).map((t) => t.traceId),
      );
      assert.equal(a.startTime, '2026-01-01T00:00:00.000000000Z');
      assert.equal(a.endTime, '2026-01-01T00:00:20.900000000Z');
      const byId = await getSession({ client: phoenix, sessionId: a.id });
      assert.equal(byId.sessionId, chatA);

      const turnsOfA = await getSessionTurns({ client: phoenix, sessionId: chatA });
      assert.deepEqual(
        turnsOfA.map((t) => [t.input?.value, t.input?.mimeType, t.output?.value]),
        [
          ['hi', 'text/plain', 'hello'],
          ['how are you?', 'text/plain', 'fine'],
          ['bye', 'text/plain', 'see you'],
        ],
      );
      const listed = (expectStatus(await member.get(`/v1/projects/${project}/sessions`), 200).body.data as any[]).find(
        (session) => session.session_id === chatA,
      );
      assert.deepEqual([listed.trace_count, listed.token_count_total, listed.first_input, listed.last_output], [3, 75, 'hi', 'see you']);
      const { traces } = await getTraces({ client: phoenix, project: { projectName: project }, sessionId: chatB });
      assert.deepEqual(
        traces.map((trace) => trace.trace_id),
        [turns[3]!.traceId],
      );
    });

    it('logs trace, session and document annotations and notes, readable through the API', async () => {
      const traceIds = await logTraceAnnotations({
        client: phoenix,
        sync: true,
        traceAnnotations: [
          { traceId: turns[0]!.traceId, name: 'helpful', label: 'yes', score: 1, annotatorKind: 'HUMAN' },
          { traceId: turns[1]!.traceId, name: 'helpful', label: 'no', score: 0, annotatorKind: 'LLM', metadata: { judge: 'x' } },
        ],
      });
      assert.equal(traceIds.length, 2);
      const sessionIds = await logSessionAnnotations({
        client: phoenix,
        sync: true,
        sessionAnnotations: [{ sessionId: chatA, name: 'resolved', label: 'yes', annotatorKind: 'HUMAN' }],
      });
      assert.equal(sessionIds.length, 1);
      const documentIds = await logDocumentAnnotations({
        client: phoenix,
        sync: true,
        documentAnnotations: [
          { spanId: turns[0]!.retrieverId, documentPosition: 0, name: 'relevant', score: 1, annotatorKind: 'LLM' },
          { spanId: turns[0]!.retrieverId, documentPosition: 1, name: 'relevant', score: 0, annotatorKind: 'LLM' },
        ],
      });
      assert.equal(documentIds.length, 2);
      const spanNote = await addSpanNote({ client: phoenix, spanNote: { spanId: turns[0]!.rootId, note: 'greeting works' } });
      const traceNote = await addTraceNote({ client: phoenix, traceNote: { traceId: turns[2]!.traceId, note: 'abrupt ending' } });
      const sessionNote = await addSessionNote({ client: phoenix, sessionNote: { sessionId: chatB, note: 'too short' } });
      assert.ok(spanNote.id && traceNote.id && sessionNote.id);

      const traceRows = expectStatus(
        await member.get(
          `/v1/projects/${project}/trace_annotations?trace_ids=${turns[0]!.traceId}&trace_ids=${turns[1]!.traceId}&trace_ids=${turns[2]!.traceId}`,
        ),
        200,
      ).body.data as { trace_id: string; name: string; result: { label: string | null; explanation: string | null } }[];
      assert.deepEqual(
        traceRows.map((row) => [row.trace_id, row.name, row.result.label ?? row.result.explanation]).sort(),
        [
          [turns[0]!.traceId, 'helpful', 'yes'],
          [turns[1]!.traceId, 'helpful', 'no'],
          [turns[2]!.traceId, 'note', 'abrupt ending'],
        ].sort(),
      );
      const sessionRows = expectStatus(
        await member.get(`/v1/projects/${project}/session_annotations?session_ids=${chatA}&session_ids=${chatB}`),
        200,
      ).body.data as { session_id: string; name: string }[];
      assert.deepEqual(sessionRows.map((row) => `${row.session_id}/${row.name}`).sort(), [`${chatA}/resolved`, `${chatB}/note`].sort());
      const documents = expectStatus(await member.get(`/v1/spans/${turns[0]!.retrieverId}/document_annotations`), 200).body.data;
      assert.deepEqual(
        documents.map((row: { document_position: number; result: { score: number } }) => [row.document_position, row.result.score]),
        [
          [0, 1],
          [1, 0],
        ],
      );
      const notes = await getSpanAnnotations({ client: phoenix, project: { projectName: project }, spanIds: [turns[0]!.rootId] });
      assert.deepEqual(
        notes.annotations.map((row) => [row.name, row.result?.explanation]),
        [['note', 'greeting works']],
      );
    });

    it('deleteSpan: refused for the member, done by an admin', async () => {
      const target = turns[3]!.spans[2]!.context.span_id;
      await assert.rejects(deleteSpan({ client: phoenix, spanIdentifier: target }), /403/);
      await deleteSpan({ client: adminPhoenix, spanIdentifier: target });
      const left = await getSpans({ client: phoenix, project: { projectName: project }, traceIds: [turns[3]!.traceId] });
      assert.deepEqual(left.spans.map((span) => span.name).sort(), ['chat turn', 'llm']);
    });

    it('deleteSession and deleteSessions: refused for the member, done by an admin, traces included', async () => {
      await assert.rejects(deleteSession({ client: phoenix, sessionId: chatB }), /403/);
      await deleteSession({ client: adminPhoenix, sessionId: chatB });
      await assert.rejects(getSession({ client: phoenix, sessionId: chatB }), /404/);
      const afterOne = await getTraces({ client: phoenix, project: { projectName: project }, limit: 10 });
      assert.equal(afterOne.traces.length, 3, "the session's trace went with it");

      const a = await getSession({ client: phoenix, sessionId: chatA });
      await assert.rejects(deleteSessions({ client: phoenix, sessionIds: [a.id] }), /403/);
      await deleteSessions({ client: adminPhoenix, sessionIds: [a.id] });
      assert.deepEqual(await listSessions({ client: phoenix, projectName: project }), []);
      const afterAll = await getTraces({ client: phoenix, project: { projectName: project }, limit: 10 });
      assert.equal(afterAll.traces.length, 0);
    });
  },
  AUTH_ENV,
);
