/** The span cases of bench:limits: one huge trace opened, one huge project deleted. */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { MAIN_PROJECT } from '../query/dataset.js';
import { loadCorpus, type Target } from '../query/load.js';
import { log, round } from '../shared.js';
import { type CaseReport, freshTarget, type Options, report, startServer, watch } from './harness.js';

/** An OTLP/JSON export of `count` spans of one trace, children of `rootId` (the first export carries the root). */
function traceExport(traceId: string, rootId: string, first: number, count: number) {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const startNs = BigInt(Date.now() - 60_000) * 1_000_000n;
  const spans = Array.from({ length: count }, (_, index) => {
    const n = first + index;
    const start = startNs + BigInt(n) * 1000n;
    return {
      traceId,
      spanId: n === 0 ? rootId : hex(n + 1, 16),
      parentSpanId: n === 0 ? '' : rootId,
      name: n === 0 ? 'agent run' : 'llm call',
      kind: 1,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (start + 500_000n).toString(),
      attributes: [
        { key: 'openinference.span.kind', value: { stringValue: n === 0 ? 'AGENT' : 'LLM' } },
        { key: 'llm.model_name', value: { stringValue: 'gpt-4o-mini' } },
        { key: 'llm.token_count.prompt', value: { intValue: 120 } },
        { key: 'llm.token_count.completion', value: { intValue: 40 } },
        { key: 'input.value', value: { stringValue: `question ${n}: what does the contract say about renewal pricing?` } },
        { key: 'output.value', value: { stringValue: `answer ${n}: renewal is at list price less the negotiated discount.` } },
      ],
      status: { code: 0 },
    };
  });
  return {
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'limits' } }] }, scopeSpans: [{ spans }] }],
  };
}

/** Spans left in the database, by a connection of the benchmark's own. */
async function countSpans(target: Target): Promise<number> {
  if (target.dialect === 'sqlite') {
    const db = new SQLite(target.file, { readonly: true });
    try {
      return Number((db.prepare('SELECT count(*) AS n FROM spans').get() as { n: number }).n);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return Number((await client.query('SELECT count(*) AS n FROM spans')).rows[0].n);
  } finally {
    await client.end();
  }
}

export async function traceCase(options: Options, workDir: string): Promise<CaseReport> {
  const { target, drop } = await freshTarget(options, workDir, 'trace');
  const { server, key } = await startServer(target, workDir);
  try {
    const traceId = 'a1'.repeat(16);
    const rootId = 'b2'.repeat(8);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    log(`sending a trace of ${options.traceSpans} spans`);
    for (let sent = 0; sent < options.traceSpans; sent += 5000) {
      const count = Math.min(5000, options.traceSpans - sent);
      const response = await fetch(`${server.url}/v1/traces`, {
        method: 'POST',
        headers,
        body: JSON.stringify(traceExport(traceId, rootId, sent, count)),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}`);
    }
    const idle = await watch(server, () => new Promise((resolve) => setTimeout(resolve, 2000)));
    log(`idle server: RSS peak so far ${idle.peakRssMb} MB, /healthz worst ${idle.worstHealthMs} ms`);
    const watched = await watch(server, async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/projects/limits/traces/${traceId}`, { headers });
      const body = await response.text();
      const ms = performance.now() - started;
      let spans = 0;
      try {
        spans = (JSON.parse(body) as { data: { spans: unknown[] } }).data.spans.length;
      } catch {}
      return {
        status: response.status,
        detail: `opened in ${round(ms, 0)} ms, ${round(body.length / 2 ** 20, 1)} MiB, ${spans} spans in full`,
      };
    });
    return report(`a ${options.traceSpans}-span trace opened`, watched);
  } finally {
    await server.stop(30_000);
    await drop();
  }
}

export async function projectCase(options: Options, workDir: string): Promise<CaseReport> {
  const { target, drop } = await freshTarget(options, workDir, 'project');
  log(`loading ${options.projectSpans} spans`);
  const loaded = await loadCorpus(
    target,
    { spans: options.projectSpans, batchSpans: 20_000, days: 7, endMs: Date.now(), bigTraceShare: 1 / 800, seed: 7 },
    log,
  );
  const projectSpans = loaded.stats.byProject[MAIN_PROJECT] ?? 0;
  log(`loaded ${loaded.stats.spans} spans in ${round(loaded.seconds, 0)} s; ${MAIN_PROJECT} holds ${projectSpans}`);
  const { server, key } = await startServer(target, workDir);
  try {
    const before = await countSpans(target);
    const watched = await watch(server, async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/projects/${encodeURIComponent(MAIN_PROJECT)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      });
      await response.arrayBuffer();
      const answeredMs = performance.now() - started;
      const deadline = started + options.projectSeconds * 1000;
      let left = before;
      while (performance.now() < deadline && left > before - projectSpans) {
        await new Promise((resolve) => setTimeout(resolve, 5000));
        left = await countSpans(target);
      }
      const deleted = before - left;
      const seconds = (performance.now() - started) / 1000;
      return {
        status: response.status,
        detail:
          `answered in ${round(answeredMs, 0)} ms; ${deleted} of ${projectSpans} spans deleted in ${round(seconds, 0)} s ` +
          `(${round(deleted / seconds, 0)} spans/s${deleted < projectSpans ? `, stopped at --project-seconds ${options.projectSeconds}` : ''})`,
      };
    });
    return report(`a ${projectSpans}-span project deleted`, watched);
  } finally {
    await server.stop(30_000);
    await drop();
  }
}
