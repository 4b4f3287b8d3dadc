/** Spans sent by the real OpenTelemetry exporters are stored exactly, on both databases. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { EXPORTER_KINDS, exportSampleTrace, hrToNanos, makeExporter } from '../helpers/otel.js';
import { storedSpans, storedTrace } from '../helpers/stored.js';

describeEachDialect('OTLP exporters', (server) => {
  for (const kind of EXPORTER_KINDS) {
    it(`stores spans from the ${kind} exporter with exact ids, times, attributes and parent links`, async () => {
      const { url, grpcUrl, server: running } = server();
      const exporter = makeExporter(kind, url, grpcUrl);
      const { spans } = await exportSampleTrace(exporter, { 'service.name': `svc-${kind}` }, kind);
      assert.equal(spans.length, 3);
      const traceId = spans[0]!.spanContext().traceId;
      const stored = await storedSpans(running.database, [traceId]);
      assert.equal(stored.size, 3, 'every span is stored once the exporter got its answer');

      for (const sent of spans) {
        const row = stored.get(sent.spanContext().spanId);
        assert.ok(row, `span ${sent.name} stored`);
        assert.equal(row.trace_id, sent.spanContext().traceId);
        assert.equal(row.parent_id, sent.parentSpanContext?.spanId ?? null);
        assert.equal(row.name, sent.name);
        assert.equal(row.project, `svc-${kind}`);
        assert.equal(row.start_time, hrToNanos(sent.startTime).toString());
        assert.equal(row.end_time, hrToNanos(sent.endTime).toString());
        assert.deepEqual(row.attributes, sent.attributes);
        assert.equal(row.events.length, sent.events.length);
        for (const [i, event] of sent.events.entries()) {
          assert.equal(row.events[i]!.name, event.name);
          assert.deepEqual(row.events[i]!.attributes, event.attributes ?? {});
        }
      }

      const byName = (suffix: string) => [...stored.values()].find((row) => row.name === `${kind} ${suffix}`)!;
      const llm = byName('llm');
      assert.equal(llm.span_kind, 'LLM');
      assert.equal(llm.llm_token_count_prompt, 120);
      assert.equal(llm.llm_token_count_completion, 30);
      assert.equal(llm.llm_token_count_total, 150);
      assert.equal(llm.events[0]!.timestamp, '2025-11-22T00:00:00.323456789Z');
      assert.equal(byName('agent').span_kind, 'CHAIN');
      assert.equal(byName('agent').status_code, 'OK');
      assert.equal(byName('agent').llm_token_count_prompt, null, 'only LLM spans carry token counts');
      const tool = byName('tool');
      assert.equal(tool.span_kind, 'TOOL');
      assert.equal(tool.status_code, 'ERROR');
      assert.equal(tool.status_message, 'tool failed');
      assert.equal(tool.events[0]!.name, 'exception');
      assert.equal(tool.events[0]!.attributes['exception.message'], 'boom');

      const traceRow = await storedTrace(running.database, traceId);
      assert.equal(traceRow?.start_time, '1763769600123456789');
      assert.equal(traceRow?.end_time, '1763769603000000000');
      assert.equal(traceRow?.project, `svc-${kind}`);
    });
  }

  it('routes spans to the x-project-name header project over HTTP and gRPC metadata', async () => {
    const { url, grpcUrl, server: running } = server();
    for (const kind of EXPORTER_KINDS) {
      const exporter = makeExporter(kind, url, grpcUrl, { 'x-project-name': `header-${kind}` });
      const { spans } = await exportSampleTrace(exporter, { 'openinference.project.name': 'from-resource' }, `hdr-${kind}`);
      const stored = await storedSpans(running.database, [spans[0]!.spanContext().traceId]);
      assert.deepEqual([...new Set([...stored.values()].map((row) => row.project))], [`header-${kind}`]);
    }
  });

  it('prefers openinference.project.name over service.name', async () => {
    const { url, grpcUrl, server: running } = server();
    const exporter = makeExporter('http-protobuf', url, grpcUrl);
    const { spans } = await exportSampleTrace(exporter, { 'openinference.project.name': 'oi-project', 'service.name': 'svc' }, 'oi');
    const stored = await storedSpans(running.database, [spans[0]!.spanContext().traceId]);
    assert.deepEqual([...new Set([...stored.values()].map((row) => row.project))], ['oi-project']);
  });
});
