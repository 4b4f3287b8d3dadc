/** POST /v1/span_annotations (upsert on name, span and identifier) and GET /v1/projects/{p}/span_annotations. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { describeEachDialect } from '../helpers/server.js';
import { unique } from '../helpers/auth.js';
import { exportSampleTrace, makeExporter } from '../helpers/otel.js';
import { at, collectPages, expectError, getOk, newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';

interface Annotation {
  id: string;
  span_id: string;
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

describeEachDialect('span annotations API', (server) => {
  const url = () => server().url;
  const post = (data: unknown[], query = '') => request(url(), 'POST', `/v1/span_annotations${query}`, { data });
  const state = { project: '', spanIds: [] as string[], otherProject: '', otherSpan: '' };

  before(async () => {
    state.project = unique('annotated');
    const traceId = newTraceId();
    const spans = await sendSpans(
      url(),
      state.project,
      Array.from({ length: 5 }, (_, i) => ({ traceId, name: `s${i}`, start: at(i) })),
    );
    state.spanIds = spans.map((span) => span.spanId!);
    state.otherProject = unique('other');
    state.otherSpan = (await sendSpans(url(), state.otherProject, [{ traceId: newTraceId(), start: at(0) }]))[0]!.spanId!;
  });
  const list = (query: string) => getOk(url(), `/v1/projects/${encodeURIComponent(state.project)}/span_annotations?${query}`);

  it('annotates spans of a real exporter and reads the annotation back in Phoenix shape', async () => {
    const project = unique('annotated-otel');
    const { spans } = await exportSampleTrace(makeExporter('http-json', url(), server().grpcUrl), { 'service.name': project }, 'an');
    const spanId = spans.find((span) => span.name === 'an llm')!.spanContext().spanId;
    const created = await post([
      {
        span_id: spanId,
        name: 'correctness',
        annotator_kind: 'LLM',
        result: { label: 'correct', score: 0.75, explanation: 'matches' },
        metadata: { model: 'judge', n: 2 },
      },
    ]);
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.data.length, 1);
    const id = created.body.data[0].id as string;
    assert.match(Buffer.from(id, 'base64').toString(), /^SpanAnnotation:\d+$/);
    const body = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/span_annotations?span_ids=${spanId}`);
    assert.equal(body.next_cursor, null);
    const [annotation] = body.data as Annotation[];
    const { created_at, updated_at, ...rest } = annotation!;
    assert.deepEqual(rest, {
      id,
      span_id: spanId,
      name: 'correctness',
      annotator_kind: 'LLM',
      result: { label: 'correct', score: 0.75, explanation: 'matches' },
      metadata: { model: 'judge', n: 2 },
      identifier: '',
      source: 'API',
      user_id: null,
    });
    assert.ok(Date.parse(created_at) <= Date.now() && created_at === updated_at);
  });

  it('upserts on (name, span, identifier): same key updates in place, a new identifier or name adds', async () => {
    const [spanId] = state.spanIds;
    const first = await post([{ span_id: spanId, name: 'tone', annotator_kind: 'HUMAN', result: { label: 'rude' }, identifier: 'rev-1' }]);
    const original = (await list(`span_ids=${spanId}&identifier=rev-1`)).data[0] as Annotation;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await post([
      {
        span_id: spanId,
        name: 'tone',
        annotator_kind: 'CODE',
        result: { label: 'polite', score: 1 },
        identifier: 'rev-1',
        metadata: { v: 2 },
      },
    ]);
    assert.deepEqual(again.body.data, first.body.data, 'same id');
    const updated = (await list(`span_ids=${spanId}&identifier=rev-1`)).data as Annotation[];
    assert.equal(updated.length, 1);
    assert.deepEqual(
      [updated[0]!.annotator_kind, updated[0]!.result, updated[0]!.metadata, updated[0]!.created_at],
      ['CODE', { label: 'polite', score: 1, explanation: null }, { v: 2 }, original.created_at],
    );
    assert.ok(updated[0]!.updated_at > original.updated_at, 'updated_at moves');
    const other = await post([
      { span_id: spanId, name: 'tone', annotator_kind: 'HUMAN', result: { label: 'neutral' }, identifier: 'rev-2' },
      { span_id: spanId, name: 'tone', annotator_kind: 'HUMAN', result: { label: 'plain' } },
      { span_id: spanId, name: 'length', annotator_kind: 'HUMAN', result: { score: 3 }, identifier: 'rev-1' },
    ]);
    assert.equal(new Set([first.body.data[0].id, ...other.body.data.map((row: { id: string }) => row.id)]).size, 4);
    const names = (await list(`span_ids=${spanId}&include_annotation_names=tone`)).data.map(
      (row: Annotation) => `${row.name}/${row.identifier}`,
    );
    assert.deepEqual(names, ['tone/', 'tone/rev-2', 'tone/rev-1']);
  });

  it('returns ids in request order and counts a repeated key once', async () => {
    const [, spanId, otherId] = state.spanIds;
    const result = await post([
      { span_id: spanId, name: 'dup', annotator_kind: 'HUMAN', result: { score: 1 } },
      { span_id: otherId, name: 'dup', annotator_kind: 'HUMAN', result: { score: 2 } },
      { span_id: spanId!.toUpperCase(), name: 'dup', annotator_kind: 'HUMAN', result: { score: 3 } },
    ]);
    assert.equal(result.status, 200, result.text);
    const ids = result.body.data.map((row: { id: string }) => row.id);
    assert.equal(ids[0], ids[2]);
    assert.notEqual(ids[0], ids[1]);
    const rows = (await list(`span_ids=${spanId}&include_annotation_names=dup`)).data as Annotation[];
    assert.deepEqual(
      rows.map((row) => row.result?.score),
      [3],
    );
    assert.deepEqual((await post([], '?sync=true')).body, { data: [] });
  });

  it('stores NUL and lone surrogates as U+FFFD, as ingest does, instead of failing', async () => {
    const spanId = state.spanIds[4];
    const name = unique('odd\u0000chars');
    const response = await post([
      {
        span_id: spanId,
        name,
        annotator_kind: 'HUMAN',
        result: { label: 'a\u0000b', explanation: 'x\ud800y' },
        metadata: { 'k\u0000': 'v\u0000' },
      },
    ]);
    assert.equal(response.status, 200, response.text);
    const stored = name.replace('\u0000', '\uFFFD');
    const [row] = (await list(`span_ids=${spanId}&include_annotation_names=${encodeURIComponent(name)}`)).data as Annotation[];
    assert.equal(row!.name, stored);
    assert.deepEqual(row!.result, { label: 'a\uFFFDb', score: null, explanation: 'x\uFFFDy' });
    assert.deepEqual(row!.metadata, { 'k\uFFFD': 'v\uFFFD' });
    expectError(await request(url(), 'GET', `/v1/projects/a%00b/span_annotations?span_ids=${spanId}`), 404);
  });

  it('is all or nothing: an unknown span answers 404 and stores none of the batch', async () => {
    const name = unique('partial');
    const missing = newSpanId();
    const response = await post([
      { span_id: state.spanIds[0], name, annotator_kind: 'HUMAN', result: { score: 1 } },
      { span_id: missing, name, annotator_kind: 'HUMAN', result: { score: 1 } },
    ]);
    expectError(response, 404, new RegExp(missing));
    assert.deepEqual((await list(`span_ids=${state.spanIds[0]}&include_annotation_names=${name}`)).data, []);
  });

  it('validates the body with 422: reserved name, kinds, types and missing fields', async () => {
    const spanId = state.spanIds[0];
    const bad: unknown[] = [
      { span_id: spanId, name: 'note', annotator_kind: 'HUMAN' },
      { span_id: spanId, name: 'x', annotator_kind: 'ROBOT' },
      { span_id: spanId, name: 'x' },
      { name: 'x', annotator_kind: 'HUMAN' },
      { span_id: spanId, name: '', annotator_kind: 'HUMAN' },
      { span_id: spanId, name: '  ', annotator_kind: 'HUMAN' },
      { span_id: spanId, name: 'x', annotator_kind: 'HUMAN', result: { score: 'high' } },
      { span_id: spanId, name: 'x', annotator_kind: 'HUMAN', metadata: [1, 2] },
    ];
    for (const item of bad) expectError(await post([item]), 422);
    expectError(await request(url(), 'POST', '/v1/span_annotations', { items: [] }), 422);
    expectError(await request(url(), 'POST', '/v1/span_annotations', { data: 'nope' }), 422);
  });

  it('lists by span ids and/or identifiers with name filters, newest first, across pages', async () => {
    const [a, b, c] = state.spanIds;
    const label = unique('page');
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await post([
        { span_id: [a, b, c][i % 3], name: `${label}-${i % 2}`, annotator_kind: 'CODE', result: { score: i }, identifier: `${label}/${i}` },
      ]);
      created.push(response.body.data[0].id);
    }
    assert.equal(new Set(created).size, 7);
    const identifiers = Array.from({ length: 7 }, (_, i) => `identifier=${encodeURIComponent(`${label}/${i}`)}`).join('&');
    const everything = await collectPages<Annotation>(
      url(),
      `/v1/projects/${encodeURIComponent(state.project)}/span_annotations?${identifiers}`,
      3,
    );
    assert.equal(everything.pages, 3);
    assert.deepEqual(
      everything.items.map((row) => row.id),
      [...created].reverse(),
    );
    const onA = (await list(`${identifiers}&span_ids=${a}`)).data as Annotation[];
    assert.deepEqual(
      onA.map((row) => row.result?.score),
      [6, 3, 0],
    );
    const twoSpans = (await list(`${identifiers}&span_ids=${a}&span_ids=${b}`)).data as Annotation[];
    assert.deepEqual(
      twoSpans.map((row) => row.result?.score),
      [6, 4, 3, 1, 0],
    );
    const someIds = (await list(`identifier=${encodeURIComponent(`${label}/2`)}&identifier=${encodeURIComponent(`${label}/5`)}`))
      .data as Annotation[];
    assert.deepEqual(
      someIds.map((row) => row.result?.score),
      [5, 2],
    );
    const odd = (await list(`${identifiers}&include_annotation_names=${label}-1`)).data as Annotation[];
    assert.deepEqual(
      odd.map((row) => row.result?.score),
      [5, 3, 1],
    );
    const notOdd = (await list(`${identifiers}&exclude_annotation_names=${label}-1`)).data as Annotation[];
    assert.deepEqual(
      notOdd.map((row) => row.result?.score),
      [6, 4, 2, 0],
    );
    assert.equal(
      onA.every((row) => row.span_id === a),
      true,
    );
  });

  it('keeps other projects apart, and answers 404 and 422 like Phoenix', async () => {
    await post([{ span_id: state.otherSpan, name: 'elsewhere', annotator_kind: 'HUMAN', result: { label: 'x' } }]);
    const path = `/v1/projects/${encodeURIComponent(state.project)}/span_annotations`;
    expectError(await request(url(), 'GET', `${path}?span_ids=${state.otherSpan}`), 404, /none of the span_ids/);
    expectError(await request(url(), 'GET', `${path}?span_ids=${newSpanId()}`), 404);
    // A span of the project without annotations is an empty list, not 404.
    assert.deepEqual(await getOk(url(), `${path}?span_ids=${state.spanIds[3]}`), { data: [], next_cursor: null });
    expectError(await request(url(), 'GET', path), 422, /span_ids or identifier/);
    expectError(await request(url(), 'GET', `${path}?span_ids=${state.spanIds[0]}&limit=1001`), 422);
    expectError(await request(url(), 'GET', `${path}?span_ids=${state.spanIds[0]}&limit=0`), 422);
    expectError(await request(url(), 'GET', `${path}?span_ids=${state.spanIds[0]}&cursor=bad`), 422, /invalid cursor/);
    expectError(await request(url(), 'GET', `${path}?span_ids=${state.spanIds[0]}&cursor=${toGlobalId('Span', 1)}`), 422, /invalid cursor/);
    // Short distinct values: 1001 real span ids would overflow Node's 16 KiB request-line limit first.
    const tooMany = Array.from({ length: 1001 }, (_, i) => `span_ids=${i.toString(36)}`).join('&');
    expectError(await request(url(), 'GET', `${path}?${tooMany}`), 422, /too many/);
    expectError(await request(url(), 'GET', `/v1/projects/${unique('none')}/span_annotations?span_ids=${state.spanIds[0]}`), 404);
    const other = await getOk(url(), `/v1/projects/${encodeURIComponent(state.otherProject)}/span_annotations?span_ids=${state.otherSpan}`);
    assert.deepEqual(
      other.data.map((row: Annotation) => row.name),
      ['elsewhere'],
    );
  });
});
