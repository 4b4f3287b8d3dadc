/**
 * Full-text search (docs/search.md) and the `filter` condition on the span and trace lists:
 * words in any language, accents folded, phrases and prefixes, long values (stored compressed)
 * included, one project only, kept up to date when traces are deleted; and both lists' 422s.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { at, collectPages, expectError, getOk, newTraceId, request, sendSpans, type QuerySpan, waitForSearch } from '../helpers/query.js';

const LONG_TAIL = ' and then some more words so that the value is longer than sixty-four characters, stored compressed';

describeEachDialect('full-text search', (server) => {
  const url = () => server().url;
  const project = `search-${Date.now()}`;
  const other = `${project}-other`;
  const traces = {
    refund: newTraceId(),
    cafe: newTraceId(),
    chinese: newTraceId(),
    japanese: newTraceId(),
    russian: newTraceId(),
    hindi: newTraceId(),
    messages: newTraceId(),
  };
  const spanIds = (path: string) =>
    getOk(url(), path).then((body) => (body.data as { context: { span_id: string; trace_id: string } }[]).map((span) => span.context));
  const searchSpans = (words: string, extra = '') =>
    spanIds(`/v1/projects/${project}/spans?search=${encodeURIComponent(words)}${extra}`).then((spans) =>
      spans.map((span) => span.trace_id),
    );
  const searchTraces = (words: string, extra = '') =>
    getOk(url(), `/v1/projects/${project}/traces?search=${encodeURIComponent(words)}${extra}`).then((body) =>
      (body.data as { trace_id: string }[]).map((trace) => trace.trace_id),
    );

  before(async () => {
    const root = (traceId: string, ms: number, input: string, output = 'ok', kind = 'CHAIN'): QuerySpan => ({
      traceId,
      name: 'chat-turn',
      kind,
      start: at(ms),
      duration: 3_000_000n,
      attributes: { 'input.value': input, 'output.value': output },
    });
    await sendSpans(url(), project, [
      root(traces.refund, 1, 'What is your refund policy?', `Refunds take five days${LONG_TAIL}`),
      root(traces.cafe, 2, 'Un café crème, s’il vous plaît'),
      root(traces.chinese, 3, '我想退款，请帮我处理'),
      root(traces.japanese, 4, '注文をキャンセルしたいです'),
      root(traces.russian, 5, 'Где мой возврат денег?'),
      root(traces.hindi, 6, 'मुझे धनवापसी चाहिए'),
      {
        traceId: traces.messages,
        name: 'llm',
        kind: 'LLM',
        start: at(7),
        duration: 9_000_000n,
        attributes: {
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': `Please summarise the quarterly zeppelin report${LONG_TAIL}`,
          'llm.output_messages.0.message.content': 'The zeppelin fleet grew.',
        },
      },
    ]);
    // A child span's words find its trace; the other project's words are not this project's.
    await sendSpans(url(), project, [
      { traceId: traces.refund, name: 'tool', kind: 'TOOL', start: at(8), attributes: { 'output.value': 'ticket opened: marmalade' } },
    ]);
    await sendSpans(url(), other, [root(newTraceId(), 9, 'refund marmalade zeppelin')]);
    // Each request's first span: SQLite's indexer, holding back on a busy machine, indexes later
    // spans first (docs/search.md), so the last span found says nothing of the others.
    await waitForSearch(url(), project, 'policy');
    await waitForSearch(url(), project, 'marmalade');
    await waitForSearch(url(), other, 'marmalade');
  });

  it('finds words in inputs, outputs and messages, long values included', async () => {
    assert.deepEqual(await searchSpans('policy'), [traces.refund]);
    assert.deepEqual(await searchSpans('compressed'), [traces.messages, traces.refund], 'long values, newest first');
    assert.deepEqual(await searchSpans('zeppelin fleet'), [traces.messages], 'the output message');
    assert.deepEqual(await searchSpans('REFUND'), [traces.refund], 'case is ignored');
    assert.deepEqual(await searchSpans('refund unicorn'), [], 'every word must appear');
  });

  it('finds words in any language, with accents folded', async () => {
    assert.deepEqual(await searchSpans('cafe'), [traces.cafe]);
    assert.deepEqual(await searchSpans('CRÈME'), [traces.cafe]);
    assert.deepEqual(await searchSpans('退款'), [traces.chinese], 'Chinese, without spaces between words');
    assert.deepEqual(await searchSpans('キャンセル'), [traces.japanese]);
    assert.deepEqual(await searchSpans('возврат'), [traces.russian]);
    assert.deepEqual(await searchSpans('धनवापसी'), [traces.hindi]);
    assert.deepEqual(await searchSpans('款退'), [], 'characters in another order are another word');
  });

  it('takes quoted phrases and prefixes', async () => {
    assert.deepEqual(await searchSpans('"refund policy"'), [traces.refund]);
    assert.deepEqual(await searchSpans('"policy refund"'), []);
    assert.deepEqual(await searchSpans('refu*'), [traces.refund]);
    assert.deepEqual(await searchSpans('refu'), [], 'without the star, a word is whole');
  });

  it('finds traces by any of their spans, in this project only', async () => {
    assert.deepEqual(await searchTraces('marmalade'), [traces.refund]);
    assert.deepEqual(await searchTraces('zeppelin'), [traces.messages]);
    const otherTraces = await getOk(url(), `/v1/projects/${other}/traces?search=marmalade`);
    assert.equal((otherTraces.data as unknown[]).length, 1);
  });

  it('combines with the other filters, the time range and the condition', async () => {
    assert.deepEqual(await searchSpans('compressed', '&span_kind=LLM'), [traces.messages]);
    assert.deepEqual(
      await searchSpans('compressed', `&end_time=${encodeURIComponent(new Date(Number(at(5) / 1_000_000n)).toISOString())}`),
      [traces.refund],
    );
    assert.deepEqual(await searchSpans('compressed', `&filter=${encodeURIComponent("span_kind == 'CHAIN'")}`), [traces.refund]);
    assert.deepEqual(await searchTraces('compressed', `&filter=${encodeURIComponent("span_kind == 'TOOL'")}`), [traces.refund]);
  });

  it('filters both lists with a span condition', async () => {
    const llm = await spanIds(`/v1/projects/${project}/spans?filter=${encodeURIComponent("span_kind == 'LLM' and latency_ms > 5")}`);
    assert.deepEqual(
      llm.map((span) => span.trace_id),
      [traces.messages],
    );
    const slow = await getOk(
      url(),
      `/v1/projects/${project}/traces?filter=${encodeURIComponent("attributes['output.value'] == 'ticket opened: marmalade'")}`,
    );
    assert.deepEqual(
      (slow.data as { trace_id: string }[]).map((trace) => trace.trace_id),
      [traces.refund],
    );
  });

  it("lists each trace with its root span's input and output, cut to one line's worth", async () => {
    const traceId = newTraceId();
    const input = `Tell me about ${'the sea '.repeat(60)}`;
    await sendSpans(url(), project, [{ traceId, start: at(30), attributes: { 'input.value': input, 'output.value': 'Waves.' } }]);
    await waitForSearch(url(), project, 'waves');
    const body = await getOk(url(), `/v1/projects/${project}/traces?search=sea`);
    const [trace] = body.data as { trace_id: string; input: string; output: string }[];
    assert.equal(trace?.trace_id, traceId);
    assert.equal(trace.input, `${input.slice(0, 300)}…`);
    assert.equal(trace.output, 'Waves.');
  });

  it('saves named views of a project, checked when saved', async () => {
    const save = (name: string, query: string, target = project) =>
      request(url(), 'POST', `/v1/projects/${target}/saved_views`, { name, page: 'traces', query });
    const saved = await save('Refunds', `q=refund&filter=${encodeURIComponent("span_kind == 'CHAIN'")}`);
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    await save('Slow', 'filter=latency_ms+%3E+5');
    const replaced = await save('Refunds', 'q=refund+policy');
    assert.equal((replaced.body.data as { id: string }).id, (saved.body.data as { id: string }).id, 'same name, same view');
    const listed = await getOk(url(), `/v1/projects/${project}/saved_views`);
    assert.deepEqual(
      (listed.data as { name: string; query: string }[]).map((view) => `${view.name}:${view.query}`),
      ['Slow:filter=latency_ms+%3E+5', 'Refunds:q=refund+policy'],
    );
    expectError(await save('Broken', 'filter=latency_ms+%3E'), 422, /view cannot be saved: invalid span query/);
    expectError(await save('   ', 'q=x'), 422, /name must be/);
    const id = encodeURIComponent((saved.body.data as { id: string }).id);
    expectError(await request(url(), 'DELETE', `/v1/projects/${other}/saved_views/${id}`), 404, /not found in this project/);
    assert.equal((await request(url(), 'DELETE', `/v1/projects/${project}/saved_views/${id}`)).status, 204);
    expectError(await request(url(), 'DELETE', `/v1/projects/${project}/saved_views/${id}`), 404);
  });

  it('finds the project of a trace id', async () => {
    const body = await getOk(url(), `/v1/traces/${traces.cafe.toUpperCase()}`);
    const found = body.data as { trace_id: string; project_id: string };
    assert.equal(found.trace_id, traces.cafe);
    const projectBody = await getOk(url(), `/v1/projects/${project}`);
    assert.equal(found.project_id, (projectBody.data as { id: string }).id);
    expectError(await request(url(), 'GET', `/v1/traces/${'0'.repeat(32)}`), 404, /not found/);
  });

  it('names the attribute keys a filter can test', async () => {
    const body = await getOk(url(), `/v1/projects/${project}/span_attribute_keys`);
    const keys = body.data as string[];
    assert.ok(keys.includes('openinference.span.kind'), keys.join());
    assert.deepEqual(keys, [...keys].sort(), 'sorted');
    assert.ok(!keys.includes('llm.input_messages.0.message.content'), 'long lists cannot be tested');
    expectError(await request(url(), 'GET', '/v1/projects/no-such-project-here/span_attribute_keys'), 404);
  });

  it('answers 422 with a sentence for a search or filter it cannot read', async () => {
    expectError(
      await request(url(), 'GET', `/v1/projects/${project}/spans?search=${encodeURIComponent('?!')}`),
      422,
      /no word to look for/,
    );
    expectError(
      await request(url(), 'GET', `/v1/projects/${project}/traces?filter=${encodeURIComponent('latency_ms >')}`),
      422,
      /invalid span query/,
    );
    expectError(await request(url(), 'GET', `/v1/projects/${project}/spans?filter=${encodeURIComponent('latency_ms')}`), 422, /bare name/);
    expectError(await request(url(), 'GET', `/v1/projects/${project}/spans?search=${'a '.repeat(300)}`), 422);
  });

  it('forgets the words of a deleted trace', async () => {
    const traceId = newTraceId();
    await sendSpans(url(), project, [{ traceId, start: at(20), attributes: { 'input.value': 'ephemeral quokka' } }]);
    await waitForSearch(url(), project, 'quokka');
    assert.deepEqual(await searchSpans('quokka'), [traceId]);
    const deleted = await request(url(), 'DELETE', `/v1/traces/${traceId}`);
    assert.equal(deleted.status, 204);
    assert.deepEqual(await searchSpans('quokka'), []);
    assert.deepEqual(await searchTraces('quokka'), []);
  });

  it('pages a search with many matches, also past the ids read at once', async () => {
    // More matches than the 10,000 span ids SQLite reads by id (db/repositories/search-sql.ts).
    const bulk = `${project}-bulk`;
    const traceIds: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const spans: QuerySpan[] = [];
      for (let i = 0; i < 2_020; i++) {
        const traceId = newTraceId();
        traceIds.push(traceId);
        spans.push({ traceId, start: at(100 + batch * 2_020 + i), attributes: { 'input.value': `common word ${batch}-${i}` } });
      }
      await sendSpans(url(), bulk, spans);
    }
    // Each batch's first span: SQLite's indexer, when it holds back on a busy machine, indexes a
    // transaction's spans later, newest first, so the last span found says nothing of the others.
    for (let batch = 0; batch < 5; batch++) await waitForSearch(url(), bulk, `"word ${batch}-0"`, { timeoutMs: 30_000 });
    const first = await getOk(url(), `/v1/projects/${bulk}/spans?search=common&limit=100`);
    const firstTraces = (first.data as { context: { trace_id: string } }[]).map((span) => span.context.trace_id);
    assert.deepEqual(firstTraces, traceIds.slice(-100).reverse(), 'newest first');
    const rare = await collectPages<{ context: { trace_id: string } }>(
      url(),
      `/v1/projects/${bulk}/spans?search=${encodeURIComponent('"word 4-7"')}`,
      5,
    );
    assert.deepEqual(
      rare.items.map((span) => span.context.trace_id),
      [traceIds[4 * 2_020 + 7]],
    );
    const pages = await collectPages<{ trace_id: string }>(
      url(),
      `/v1/projects/${bulk}/traces?search=${encodeURIComponent('common "word 3"')}`,
      1_000,
    );
    assert.equal(pages.items.length, 2_020);
    assert.equal(new Set(pages.items.map((trace) => trace.trace_id)).size, 2_020);
  });
});
