/**
 * POST /v1/traces/transfer (Phoenix's transferTraces): traces named by GlobalID or OpenTelemetry id
 * move with their spans and annotations, sessions follow by session.id, Phoenix's answer, and the
 * 404 and 422 cases.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { unique } from '../helpers/auth.js';
import { at, expectError, getOk, newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

interface TraceItem {
  id: string;
  trace_id: string;
}

describeEachDialect('trace transfer', (server) => {
  const url = () => server().url;
  const transfer = (body: unknown) => request(url(), 'POST', '/v1/traces/transfer', body);
  const traceIdsOf = async (project: string) =>
    ((await getOk(url(), `/v1/projects/${project}/traces?limit=1000`)).data as TraceItem[]).map((trace) => trace.trace_id).sort();
  const sessionsOf = async (project: string) =>
    ((await getOk(url(), `/v1/projects/${project}/sessions`)).data as { session_id: string; id: string }[]).map((row) => row.session_id);

  it('moves traces named by GlobalID or OpenTelemetry id, with their spans and annotations, and answers as Phoenix', async () => {
    const source = unique('src');
    const destination = unique('dst');
    const [a, b, stays] = [newTraceId(), newTraceId(), newTraceId()];
    const spanOfA = newSpanId();
    await sendSpans(url(), source, [
      { traceId: a, spanId: spanOfA, name: 'a', start: at(0) },
      { traceId: a, parentSpanId: spanOfA, name: 'a-child', start: at(1) },
      { traceId: b, name: 'b', start: at(2) },
      { traceId: stays, name: 'stays', start: at(3) },
    ]);
    await sendSpans(url(), destination, [{ traceId: newTraceId(), name: 'already there', start: at(4) }]);
    const annotated = await request(url(), 'POST', '/v1/span_annotations', {
      data: [{ span_id: spanOfA, name: 'quality', annotator_kind: 'HUMAN', result: { score: 1 } }],
    });
    assert.equal(annotated.status, 200);
    const traceOfB = ((await getOk(url(), `/v1/projects/${source}/traces`)).data as TraceItem[]).find((trace) => trace.trace_id === b)!;
    const project = (await getOk(url(), `/v1/projects/${destination}`)).data as { id: string };

    const response = await transfer({
      trace_identifiers: [a.toUpperCase(), traceOfB.id, a],
      destination_project_identifier: destination,
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { data: { transferred_trace_count: 2, destination_project_id: project.id } });

    assert.deepEqual(await traceIdsOf(source), [stays]);
    assert.equal((await traceIdsOf(destination)).length, 3);
    assert.ok((await traceIdsOf(destination)).includes(a) && (await traceIdsOf(destination)).includes(b));
    const spans = (await getOk(url(), `/v1/projects/${destination}/spans?trace_id=${a}`)).data as { name: string }[];
    assert.deepEqual(spans.map((span) => span.name).sort(), ['a', 'a-child']);
    assert.deepEqual((await getOk(url(), `/v1/projects/${source}/spans?trace_id=${a}`)).data, []);
    const annotations = (await getOk(url(), `/v1/projects/${destination}/span_annotations?span_ids=${spanOfA}`)).data as { name: string }[];
    assert.deepEqual(
      annotations.map((row) => row.name),
      ['quality'],
    );
    // The destination may be named by its GlobalID too, and moving traces back works the same way.
    const back = await transfer({
      trace_identifiers: [a],
      destination_project_identifier: (await getOk(url(), `/v1/projects/${source}`)).data.id,
    });
    assert.equal(back.status, 200, back.text);
    assert.deepEqual(await traceIdsOf(source), [a, stays].sort());
  });

  it("joins moved traces to the destination's session of the same session.id and drops the emptied source session", async () => {
    const source = unique('src');
    const destination = unique('dst');
    const [first, second, third] = [newTraceId(), newTraceId(), newTraceId()];
    await sendSpans(url(), source, [
      { traceId: first, name: 'turn 1', start: at(0), attributes: { 'session.id': 'chat-1' } },
      { traceId: second, name: 'turn 2', start: at(5), attributes: { 'session.id': 'chat-1' } },
      { traceId: third, name: 'other', start: at(6), attributes: { 'session.id': 'chat-2' } },
    ]);
    await sendSpans(url(), destination, [
      { traceId: newTraceId(), name: 'dest turn', start: at(10), attributes: { 'session.id': 'chat-2' } },
    ]);

    // chat-1 keeps a trace in the source: both projects then have a chat-1 session.
    let response = await transfer({ trace_identifiers: [first, third], destination_project_identifier: destination });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual((await sessionsOf(source)).sort(), ['chat-1']);
    assert.deepEqual((await sessionsOf(destination)).sort(), ['chat-1', 'chat-2']);
    const chat2 = ((await getOk(url(), `/v1/projects/${destination}/sessions`)).data as { session_id: string; id: string }[]).find(
      (row) => row.session_id === 'chat-2',
    )!;
    const traces = (await getOk(url(), `/v1/projects/${destination}/traces?session_identifier=${chat2.id}`)).data as TraceItem[];
    assert.equal(traces.length, 2, 'the moved trace joined the existing chat-2 session');

    response = await transfer({ trace_identifiers: [second], destination_project_identifier: destination });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(await sessionsOf(source), [], 'the emptied source session is gone');
    const chat1 = ((await getOk(url(), `/v1/projects/${destination}/sessions`)).data as { session_id: string; id: string }[]).find(
      (row) => row.session_id === 'chat-1',
    )!;
    const turns = (await getOk(url(), `/v1/projects/${destination}/traces?session_identifier=${chat1.id}`)).data as TraceItem[];
    assert.deepEqual(turns.map((trace) => trace.trace_id).sort(), [first, second].sort());
  });

  it('answers 404 for unknown traces or destination and 422 for none, too many or traces of several projects', async () => {
    const one = unique('one');
    const two = unique('two');
    const [x, y] = [newTraceId(), newTraceId()];
    await sendSpans(url(), one, [{ traceId: x, name: 'x', start: at(0) }]);
    await sendSpans(url(), two, [{ traceId: y, name: 'y', start: at(0) }]);
    expectError(await transfer({ trace_identifiers: [newTraceId()], destination_project_identifier: one }), 404, /traces not found/);
    expectError(await transfer({ trace_identifiers: ['not-a-trace'], destination_project_identifier: one }), 404, /not-a-trace/);
    expectError(await transfer({ trace_identifiers: [x], destination_project_identifier: unique('nowhere') }), 404, /project/);
    expectError(await transfer({ trace_identifiers: [], destination_project_identifier: one }), 422, /at least one trace/);
    expectError(await transfer({ trace_identifiers: [x, y], destination_project_identifier: one }), 422, /2 projects/);
    const many = Array.from({ length: 1001 }, () => newTraceId());
    expectError(await transfer({ trace_identifiers: many, destination_project_identifier: one }), 422, /at most 1000/);
    expectError(await transfer({ trace_identifiers: [x] }), 422, /destination_project_identifier/);
    assert.deepEqual(await traceIdsOf(one), [x], 'nothing moved');
  });
});
