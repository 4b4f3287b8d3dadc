import os from 'node:os';
import { parseArgs } from 'node:util';
import { startSqliteServer } from '../ingest/server-process.js';
import { buildServer, log, machine, percentile, ROOT, round } from '../shared.js';

const { values } = parseArgs({
  options: {
    examples: { type: 'string', default: '20000' },
    experiments: { type: 'string', default: '3' },
    requests: { type: 'string', default: '100' },
    'skip-build': { type: 'boolean' },
  },
});
const exampleCount = Number(values.examples);
const experimentCount = Number(values.experiments);
const requests = Number(values.requests);
const TARGET_MS = 300;
/** Writes in flight while loading: enough to keep the server's event loop busy. */
const LOAD_CONCURRENCY = 32;

if (!values['skip-build']) buildServer();
const { server, stop } = await startSqliteServer(ROOT, 'compare');

async function json<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Runs `work` over the items with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** Milliseconds of each of `count` sequential GETs of the route. */
async function time(route: string, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = process.hrtime.bigint();
    const response = await fetch(`${server.url}${route}`);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET ${route} answered ${response.status}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return samples.sort((a, b) => a - b);
}

try {
  let started = Date.now();
  const upload = await json<{ data: { dataset_id: string } }>('POST', '/v1/datasets/upload', {
    action: 'create',
    name: 'bench-compare',
    inputs: Array.from({ length: exampleCount }, (_, index) => ({ question: `What is ${index} + ${index}?` })),
    outputs: Array.from({ length: exampleCount }, (_, index) => ({ answer: String(index * 2) })),
  });
  const datasetId = upload.data.dataset_id;
  const examples = (
    await json<{ data: { examples: { node_id: string }[] } }>('GET', `/v1/datasets/${datasetId}/examples`)
  ).data.examples.map((example) => example.node_id);
  log(`dataset of ${examples.length} examples in ${Date.now() - started} ms`);

  const experimentIds: string[] = [];
  for (let number = 1; number <= experimentCount; number++) {
    started = Date.now();
    const experiment = await json<{ data: { id: string } }>('POST', `/v1/datasets/${datasetId}/experiments`, { name: `model-${number}` });
    experimentIds.push(experiment.data.id);
    await pool(examples, LOAD_CONCURRENCY, async (exampleId) => {
      const start = new Date(Date.UTC(2026, 0, 1)).toISOString();
      const run = await json<{ data: { id: string } }>('POST', `/v1/experiments/${experiment.data.id}/runs`, {
        dataset_example_id: exampleId,
        output: { answer: `${number}-${exampleId}` },
        repetition_number: 1,
        start_time: start,
        end_time: new Date(Date.UTC(2026, 0, 1) + 100 + (exampleId.length % 50)).toISOString(),
      });
      await json('POST', '/v1/experiment_evaluations', {
        experiment_run_id: run.data.id,
        name: 'correct',
        annotator_kind: 'CODE',
        start_time: start,
        end_time: start,
        result: { score: exampleId.length % 2, label: exampleId.length % 2 ? 'yes' : 'no' },
      });
    });
    log(`experiment ${number}: ${examples.length} runs and evaluations in ${Date.now() - started} ms`);
  }

  const query = experimentIds.map((id) => `experiment_id=${encodeURIComponent(id)}`).join('&');
  const compare = `/v1/datasets/${datasetId}/compare?${query}&limit=50`;
  const middle = `${compare}&cursor=${encodeURIComponent(examples[Math.floor(examples.length / 2)]!)}`;
  const list = `/v1/datasets/${datasetId}/experiments`;
  // Warm-up: the first reads pay for cold caches and JIT.
  for (const route of [compare, middle, list, '/healthz']) await time(route, 10);
  const page = await json<{ data: unknown[]; experiments: unknown[] }>('GET', compare);
  if (page.data.length !== 50 || page.experiments.length !== experimentCount) throw new Error('the comparison page is not full');

  const floor = await time('/healthz', requests);
  const scenarios: [string, number[]][] = [
    [`compare first page (${experimentCount} × ${exampleCount})`, await time(compare, requests)],
    ['compare page half way (cursor)', await time(middle, requests)],
    ['experiments list with summaries', await time(list, requests)],
  ];
  const floorP50 = percentile(floor, 0.5);
  const lines = [`floor   GET /healthz p50 ${round(floorP50, 2)} ms, p99 ${round(percentile(floor, 0.99), 2)} ms`];
  for (const [name, samples] of scenarios) {
    const p50 = percentile(samples, 0.5);
    lines.push(
      `${name.padEnd(44)} p50 ${round(p50, 1)} ms  p99 ${round(percentile(samples, 0.99), 1)} ms  ratio ${round(p50 / floorP50, 1)} × floor  ${
        p50 < TARGET_MS ? 'PASS' : 'FAIL'
      } (target p50 < ${TARGET_MS} ms)`,
    );
  }
  lines.push(
    `  ${machine().cpus} × ${machine().cpuModel}, Node ${process.version}, SQLite in a temp dir, ${requests} sequential requests each; load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  console.log(lines.join('\n'));
} finally {
  await stop();
}
