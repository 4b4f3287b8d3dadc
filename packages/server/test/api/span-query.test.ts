/**
 * POST /v1/spans (Phoenix's span query): answers read exactly as phoenix-client reads them
 * (helpers/phoenix-dataframe.ts), the condition language, select/index/rename, root spans,
 * limits, and the 4xx answers, hostile conditions included.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { nanosToIso } from '../../src/span-model/time.js';
import { describeEachDialect } from '../helpers/server.js';
import { unique } from '../helpers/auth.js';
import { at, expectError, newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';
import { processSpanDataframes, type DataFrame } from '../helpers/phoenix-dataframe.js';
import path from 'node:path';
import { openLoggedKysely } from '../helpers/span-writer.js';
import { createRepositories } from '../../src/db/repositories/index.js';

const ACCEPT = { accept: 'application/json' };

describeEachDialect('span query API (POST /v1/spans)', (server) => {
  const url = () => server().url;
  const project = unique('span-query');
  const traceId = newTraceId();
  const rootId = newSpanId();
  const slowId = newSpanId();
  const fastId = newSpanId();
  const orphanId = newSpanId();
  const longText = `${'a'.repeat(100)} needle`;

  before(async () => {
    await sendSpans(url(), project, [
      {
        traceId,
        spanId: rootId,
        name: 'root',
        kind: 'CHAIN',
        start: at(0),
        duration: 5_000_000_000n,
        status: 'OK',
        attributes: { 'input.value': longText },
      },
      {
        traceId,
        spanId: slowId,
        parentSpanId: rootId,
        name: 'llm slow',
        kind: 'LLM',
        start: at(100),
        duration: 2_000_000_000n,
        status: 'ERROR',
        statusMessage: 'rate error happened',
        attributes: { 'llm.model_name': 'gpt-4o', 'llm.token_count.total': 150, 'metadata.env': 'prod' },
      },
      {
        traceId,
        spanId: fastId,
        parentSpanId: rootId,
        name: 'llm fast',
        kind: 'LLM',
        start: at(200),
        duration: 10_000_000n,
        status: 'OK',
        attributes: { 'llm.model_name': 'gpt-3.5', 'llm.token_count.total': 20, 'llm.temperature': 0.5 },
      },
      {
        traceId,
        spanId: orphanId,
        parentSpanId: newSpanId(),
        name: 'tool',
        kind: 'TOOL',
        start: at(300),
        attributes: { 'metadata.env': 'dev' },
      },
    ]);
  });

  /** One request, read as phoenix-client reads it. */
  const query = async (body: Record<string, unknown>, params = `project_name=${encodeURIComponent(project)}`): Promise<DataFrame[]> => {
    const response = await fetch(`${url()}/v1/spans?${params}`, {
      method: 'POST',
      headers: { ...ACCEPT, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.match(response.headers.get('content-type') ?? '', /^multipart\/mixed; boundary=[0-9a-f]{64}$/);
    return processSpanDataframes(response.headers.get('content-type'), text);
  };
  const where = async (condition: string) => {
    const [frame] = await query({ queries: [{ filter: { condition } }] });
    return frame!.index.map(([id]) => id as string).sort();
  };
  const post = (body: unknown, params = `project_name=${encodeURIComponent(project)}`) =>
    request(url(), 'POST', `/v1/spans?${params}`, body, ACCEPT);

  it('answers the default SpanQuery as the client reads it: span columns, attributes, index context.span_id', async () => {
    const frames = await query({
      queries: [{ index: { key: 'context.span_id' } }],
      limit: 1000,
      root_spans_only: null,
      start_time: null,
      end_time: null,
    });
    assert.equal(frames.length, 1);
    const frame = frames[0]!;
    assert.deepEqual(frame.indexNames, ['context.span_id']);
    assert.deepEqual(frame.columns.slice(0, 10), [
      'name',
      'span_kind',
      'parent_id',
      'start_time',
      'end_time',
      'status_code',
      'status_message',
      'events',
      'context.span_id',
      'context.trace_id',
    ]);
    assert.ok(frame.columns.includes('attributes.llm.model_name'));
    assert.ok(frame.columns.includes('attributes.input.value'));
    // Newest first.
    assert.deepEqual(frame.index, [[orphanId], [fastId], [slowId], [rootId]]);
    const slow = frame.rows[2]!;
    const column = (name: string) => slow[frame.columns.indexOf(name)];
    assert.equal(column('name'), 'llm slow');
    assert.equal(column('span_kind'), 'LLM');
    assert.equal(column('parent_id'), rootId);
    assert.equal(column('start_time'), nanosToIso(at(100)));
    assert.equal(column('status_code'), 'ERROR');
    assert.equal(column('context.trace_id'), traceId);
    assert.equal(column('attributes.llm.model_name'), 'gpt-4o');
    assert.equal(column('attributes.llm.token_count.total'), 150);
    assert.equal(frame.dtypes[frame.columns.indexOf('start_time')], 'datetime64[ns, UTC]');
    // Long values come back whole (they are stored compressed).
    assert.equal(frame.rows[3]![frame.columns.indexOf('attributes.input.value')], longText);
  });

  it('filters with the condition language', async () => {
    assert.deepEqual(await where("span_kind == 'LLM'"), [fastId, slowId].sort());
    assert.deepEqual(await where("'error' in status_message"), [slowId]);
    assert.deepEqual(await where("'error' not in status_message"), [rootId, fastId, orphanId].sort());
    assert.deepEqual(await where("llm.model_name == 'gpt-4o'"), [slowId]);
    assert.deepEqual(await where("attributes['llm.model_name'] == 'gpt-4o'"), [slowId]);
    assert.deepEqual(await where("attributes['llm']['model_name'] != 'gpt-4o'"), [fastId]);
    assert.deepEqual(await where('latency_ms > 1000'), [rootId, slowId].sort());
    assert.deepEqual(await where('llm.token_count.total >= 100'), [slowId]);
    assert.deepEqual(await where('100 > llm.token_count.total'), [fastId]);
    assert.deepEqual(await where('llm.temperature == 0.5'), [fastId]);
    assert.deepEqual(await where("metadata.env in ['prod', 'dev']"), [slowId, orphanId].sort());
    assert.deepEqual(
      await where("metadata['env'] == 'dev' or (span_kind == 'LLM' and not (latency_ms > 1000))"),
      [fastId, orphanId].sort(),
    );
    assert.deepEqual(await where("name not in ['root', 'tool']"), [fastId, slowId].sort());
    assert.deepEqual(await where('parent_id is None'), [rootId]);
    assert.deepEqual(await where('parent_id is not None and llm.model_name is None'), [orphanId]);
    assert.deepEqual(await where(`context.span_id == '${fastId}'`), [fastId]);
    assert.deepEqual(await where(`trace_id == '${traceId}' and status_code == 'ERROR'`), [slowId]);
    assert.deepEqual(await where('-1 < latency_ms'), [rootId, slowId, fastId, orphanId].sort());
  });

  it('tests annotations by name, score and label', async () => {
    const created = await request(url(), 'POST', '/v1/span_annotations', {
      data: [
        { span_id: slowId, name: 'quality', annotator_kind: 'HUMAN', result: { label: 'bad', score: 0.2 } },
        { span_id: fastId, name: 'quality', annotator_kind: 'LLM', result: { label: 'good', score: 0.9 } },
        { span_id: rootId, name: 'quality', annotator_kind: 'LLM', result: { label: 'good' } },
      ],
    });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(await where("annotations['quality'].score > 0.5"), [fastId]);
    assert.deepEqual(await where("0.5 > evals['quality'].score"), [slowId]);
    assert.deepEqual(await where("annotations['quality'].label == 'good'"), [rootId, fastId].sort());
    assert.deepEqual(await where("annotations['quality'].label in ['bad', 'meh']"), [slowId]);
    // As Phoenix's outer join: a span without the annotation meets no label test.
    assert.deepEqual(await where("annotations['quality'].label not in ['good']"), [slowId]);
    assert.deepEqual(await where("annotations['quality'] is None"), [orphanId]);
    assert.deepEqual(await where("annotations['quality'].score is not None and span_kind == 'LLM'"), [fastId, slowId].sort());
    assert.deepEqual(await where("annotations['quality'].score is None"), [rootId, orphanId].sort());
  });

  it('selects, renames and indexes columns', async () => {
    const [frame] = await query({
      queries: [
        {
          select: { model: { key: 'llm.model_name' }, latency_ms: { key: 'latency_ms' }, 'context.trace_id': { key: 'trace_id' } },
          filter: { condition: "span_kind == 'LLM'" },
          rename: { model: 'model_name' },
          index: { key: 'context.span_id' },
        },
      ],
    });
    assert.deepEqual(frame!.indexNames, ['context.span_id']);
    assert.deepEqual(frame!.columns, ['model_name', 'latency_ms', 'context.trace_id']);
    assert.deepEqual(frame!.index, [[fastId], [slowId]]);
    assert.deepEqual(frame!.rows, [
      ['gpt-3.5', 10, traceId],
      ['gpt-4o', 2000, traceId],
    ]);
    assert.deepEqual(frame!.dtypes, ['object', 'int64', 'object']);
  });

  it('reads the bodies phoenix-client sends (SpanQuery.to_dict, its field normalizations)', async () => {
    // SpanQuery().select("span_id", "name", "llm").where("context.span_id != 'x' and span_kind == 'LLM'")
    // .rename(name="span_name"): the client rewrites context.span_id to span_id in conditions.
    const [frame] = await query({
      queries: [
        {
          select: { 'context.span_id': { key: 'context.span_id' }, name: { key: 'name' }, llm: { key: 'llm' } },
          filter: { condition: "span_id != 'x' and span_kind == 'LLM'" },
          rename: { name: 'span_name' },
          index: { key: 'context.span_id' },
        },
      ],
      start_time: null,
      end_time: null,
      limit: 1000,
      root_spans_only: null,
    });
    assert.deepEqual(frame!.indexNames, ['context.span_id']);
    assert.deepEqual(frame!.columns, ['context.span_id', 'span_name', 'llm']);
    assert.deepEqual(frame!.rows[1], [slowId, 'llm slow', { model_name: 'gpt-4o', token_count: { total: 150 } }]);
    // with_index("trace_id") and no select: Phoenix's default frame ignores the index and rename.
    const [plain] = await query({
      queries: [{ filter: { condition: "name == 'tool'" }, index: { key: 'context.trace_id' }, rename: { name: 'n' } }],
    });
    assert.deepEqual(plain!.indexNames, ['context.span_id']);
    assert.equal(plain!.columns[0], 'name');
    const [byTrace] = await query({ queries: [{ select: { name: { key: 'name' } }, index: { key: 'trace_id' } }], limit: 2 });
    assert.deepEqual(byTrace!.indexNames, ['context.trace_id']);
    assert.deepEqual(byTrace!.index, [[traceId], [traceId]]);
    expectError(
      await post({ queries: [{ filter: { condition: 'cumulative_llm_token_count_total > 100' } }] }),
      422,
      /cumulative token counts/,
    );
  });

  it('types columns so that pandas casts them: numbers with gaps as float64, anything mixed as object', async () => {
    const [frame] = await query({
      queries: [
        {
          select: {
            tokens: { key: 'llm.token_count.total' },
            env: { key: 'metadata.env' },
            events: { key: 'events' },
            start_time: { key: 'start_time' },
          },
        },
      ],
    });
    assert.deepEqual(frame!.dtypes, ['float64', 'object', 'object', 'datetime64[ns, UTC]']);
    assert.deepEqual(
      frame!.rows.map((row) => row.slice(0, 2)),
      [
        [Number.NaN, 'dev'],
        [20, null],
        [150, 'prod'],
        [Number.NaN, null],
      ],
    );
    assert.deepEqual(frame!.rows[3]![2], []);
  });

  it('explodes a list attribute a row per element, as Phoenix does', async () => {
    const retrieval = unique('span-query-docs');
    const retrieverId = newSpanId();
    await sendSpans(url(), retrieval, [
      {
        traceId: newTraceId(),
        spanId: retrieverId,
        name: 'retrieve',
        kind: 'RETRIEVER',
        start: at(0),
        attributes: {
          'input.value': 'q',
          'retrieval.documents.0.document.content': 'first',
          'retrieval.documents.0.document.score': 0.9,
          'retrieval.documents.1.document.content': 'second',
          'retrieval.documents.1.document.id': 'd2',
        },
      },
      { traceId: newTraceId(), name: 'no documents', kind: 'RETRIEVER', start: at(1) },
    ]);
    const params = `project_name=${encodeURIComponent(retrieval)}`;
    // SpanQuery().where("span_kind == 'RETRIEVER'").select("input.value").explode("retrieval.documents")
    const [all] = await query(
      {
        queries: [
          {
            select: { 'input.value': { key: 'input.value' } },
            filter: { condition: "span_kind == 'RETRIEVER'" },
            explode: { key: 'retrieval.documents', primary_index_key: 'context.span_id' },
            index: { key: 'context.span_id' },
          },
        ],
      },
      params,
    );
    assert.deepEqual(all!.indexNames, ['context.span_id', 'document_position']);
    assert.deepEqual(all!.index, [
      [retrieverId, 0],
      [retrieverId, 1],
    ]);
    assert.deepEqual(all!.columns, ['input.value', 'document.content', 'document.score', 'document.id']);
    assert.deepEqual(all!.rows, [
      ['q', 'first', 0.9, null],
      ['q', 'second', Number.NaN, 'd2'],
    ]);
    // explode("retrieval.documents", reference="document.content")
    const [named] = await query(
      {
        queries: [
          { explode: { key: 'retrieval.documents', kwargs: { reference: 'document.content' }, primary_index_key: 'context.span_id' } },
        ],
      },
      params,
    );
    assert.deepEqual(named!.columns, ['reference']);
    assert.deepEqual(named!.rows, [['first'], ['second']]);
    // concat("retrieval.documents", reference="document.content").with_concat_separator(" | ")
    const [joined] = await query(
      {
        queries: [
          {
            select: { name: { key: 'name' } },
            concat: { key: 'retrieval.documents', kwargs: { reference: 'document.content', score: 'document.score' }, separator: ' | ' },
          },
        ],
      },
      params,
    );
    assert.deepEqual(joined!.indexNames, ['context.span_id']);
    assert.deepEqual(joined!.columns, ['name', 'reference', 'score']);
    assert.deepEqual(joined!.rows, [
      ['no documents', null, null],
      ['retrieve', 'first | second', '0.9'],
    ]);
    const [only] = await query(
      { queries: [{ concat: { key: 'retrieval.documents', kwargs: { reference: 'document.content' } } }] },
      params,
    );
    assert.deepEqual(only!.index, [[retrieverId]]);
    assert.deepEqual(only!.rows, [['first\n\nsecond']]);
  });

  it('answers one frame per query, with root spans, time range and limit applied to each', async () => {
    const frames = await query({
      queries: [{ select: { name: { key: 'name' } } }, { select: { name: { key: 'name' } }, filter: { condition: "span_kind == 'TOOL'" } }],
      root_spans_only: true,
    });
    assert.deepEqual(
      frames.map((frame) => frame.index.map(([id]) => id)),
      [[orphanId, rootId], [orphanId]],
    );
    const [strict] = await query({ queries: [{}], root_spans_only: true, orphan_span_as_root_span: false });
    assert.deepEqual(strict!.index, [[rootId]]);
    const [ranged] = await query({ queries: [{}], start_time: nanosToIso(at(100)), end_time: nanosToIso(at(300)) });
    assert.deepEqual(ranged!.index, [[fastId], [slowId]]);
    const [limited] = await query({ queries: [{}], limit: 1 });
    assert.deepEqual(limited!.index, [[orphanId]]);
    const [none] = await query({ queries: [{ filter: { condition: "name == 'nothing'" } }] });
    assert.deepEqual(none!.rows, []);
    assert.deepEqual(none!.indexNames, ['context.span_id']);
  });

  it('finds the project by project_id (GlobalID or name) and answers 404 for an unknown one', async () => {
    const [frame] = await query({ queries: [{}] }, `project_id=${encodeURIComponent(project)}`);
    assert.equal(frame!.rows.length, 4);
    expectError(await post({ queries: [{}] }, 'project_name=no-such-project-anywhere'), 404, /not found/);
  });

  it('answers 422 naming what is not supported', async () => {
    const fails = async (condition: string, detail: RegExp) =>
      expectError(await post({ queries: [{ filter: { condition } }] }), 422, detail);
    await fails("__import__('os')", /CallExpression/);
    await fails("__import__('os').system('ls') == 0", /comparisons must|CallExpression/);
    await fails('name.__class__', /MemberExpression/);
    await fails('llm.model_name', /bare name/);
    await fails("'needle' in input.value", /substring tests on attribute "input.value".*stored compressed/);
    await fails('input.value is None', /None tests/);
    await fails("llm.input_messages[0]['message.role'] == 'user'", /OpenInference list/);
    await fails('cumulative_token_count.total > 100', /cumulative token counts/);
    await fails("annotations['q'].score != 0.5", /annotation test/);
    await fails("annotations['q'].label > 'a'", /annotation test/);
    await fails("annotations['q'] == 1", /annotation test/);
    await fails("annotations['q'].explanation == 'x'", /annotations .* can only be tested/);
    await fails("start_time > '2024-01-01'", /start_time and end_time of the request/);
    await fails("latency_ms == 'x'", /latency_ms is a number/);
    await fails('name == 1', /name is a string/);
    await fails('not latency_ms > 1', /not \(a > b\)/);
    await fails('1 < latency_ms < 3', /comparisons must/);
    await fails("name == 'a' if True else False", /invalid span query condition|ConditionalExpression|unsupported/);
    await fails("name = 'x'", /invalid span query condition|unsupported/);
    await fails("name == 'x' && latency_ms > 1", /invalid span query condition|unsupported/);
    await fails(`${'('.repeat(5000)}name == 'x'${')'.repeat(5000)}`, /longer than 4096|nested/);
    await fails(`${'not '.repeat(1000)}name == 'x'`, /"not" binds/);
    await fails(`${'not ('.repeat(40)}name == 'x'${')'.repeat(40)}`, /nested more than 32/);
    await fails(`${"name == 'x' or (".repeat(100)}name == 'x'${')'.repeat(100)}`, /nested more than 32/);
    await fails(`${Array.from({ length: 200 }, () => "name == 'x'").join(' and not ')}`, /longer than|nested/);
    await fails(`name == '${'x'.repeat(5000)}'`, /longer than 4096/);
    await fails(`metadata.env == '${'x'.repeat(100)}'`, /strings longer than 64/);
    await fails("name in ['a', None]", /only strings, numbers and booleans/);
    expectError(await post({ queries: [{ explode: { key: 'latency_ms' } }] }), 422, /explode reads list attributes/);
    expectError(
      await post({ queries: [{ concat: { key: 'retrieval.documents' }, explode: { key: 'retrieval.documents' } }] }),
      422,
      /explode and concat in one query/,
    );
    expectError(await post({ queries: [{ concat: { key: 'name' } }] }), 422, /concat reads list attributes/);
    expectError(await post({ queries: [{ select: { x: { key: "f('x')" } } }] }), 422, /not a span column or attribute/);
    expectError(await post({ queries: [{ filter: { condition: 5 } }] }), 422, /must be a string/);
    expectError(await post({ queries: [{}], limit: 10_001 }), 422);
    expectError(await post({ queries: [] }), 422);
    expectError(await post({ queries: [{}], start_time: 'yesterday' }), 422, /start_time/);
  });

  it('reads redundant parentheses, however deep, without harm', async () => {
    assert.deepEqual(await where(`${'('.repeat(100)}name == 'root'${')'.repeat(100)}`), [rootId]);
    const deep = await post({ queries: [{ filter: { condition: `${'('.repeat(2000)}name == 'root'${')'.repeat(2000)}` } }] });
    assert.ok(deep.status === 200 || deep.status === 422, `${deep.status}: ${deep.text.slice(0, 200)}`);
  });

  it('reads SQLite in windows, with the same answer, and gives up when time is up', async () => {
    const db = openLoggedKysely(server().database, path.join(server().database.workingDir, 'sightline.db'), () => []);
    try {
      const r = createRepositories(db, server().dialect === 'postgres' ? 'postgres' : 'sqlite');
      const projectId = (await r.projects.findByName(project))!.id;
      const condition = { kind: 'compare', field: { kind: 'column', column: 'span_kind' }, op: '!=', value: 'CHAIN' } as const;
      // One span per window: every window is read, in order.
      const spans = await r.spans.query({ projectId, condition }, 10, 10_000, 1);
      assert.deepEqual(
        spans.map((span) => span.spanId),
        [orphanId, fastId, slowId],
      );
      const two = await r.spans.query({ projectId, roots: 'orphans' }, 10, 10_000, 3);
      assert.deepEqual(
        two.map((span) => span.spanId),
        [orphanId, rootId],
      );
      const limited = await r.spans.query({ projectId }, 2, 10_000, 1);
      assert.equal(limited.length, 2);
      if (server().dialect !== 'postgres')
        await assert.rejects(r.spans.query({ projectId, condition }, 10, -1, 1), (error: { code?: string }) => error.code === '57014');
    } finally {
      await db.destroy();
    }
  });

  it('keeps quotes and SQL in values as data', async () => {
    assert.deepEqual(await where(`name == "x' or '1'='1"`), []);
    assert.deepEqual(await where(`name == 'root' or name == "'; drop table spans; --"`), [rootId]);
  });
});
