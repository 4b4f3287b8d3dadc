import os from 'node:os';
import { parseArgs } from 'node:util';
import { runExperiment } from '../../packages/client/src/index.js';
import { runPool } from '../../packages/client/src/experiments/pool.js';
import { startSqliteServer } from '../ingest/server-process.js';
import { buildServer, log, machine, ROOT, round } from '../shared.js';
import { BENCH_SECRET, systemKey } from '../ingest/system-key.js';

const { values } = parseArgs({
  options: {
    examples: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '20' },
    'skip-build': { type: 'boolean' },
  },
});
const examples = Number(values.examples);
const concurrency = Number(values.concurrency);

interface Example {
  node_id: string;
  input: { a: number };
  output: { a: number };
}

if (!values['skip-build']) buildServer();
const { server, stop } = await startSqliteServer(ROOT, 'experiments', {
  SERVICE_ENABLE_AUTH: 'true',
  SERVICE_SECRET: BENCH_SECRET,
  SERVICE_DISABLE_RATE_LIMIT: 'true',
});
try {
  const key = await systemKey(server.url);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status !== 200) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const upload = async (name: string, count: number) =>
    (
      await call<{ data: { dataset_id: string } }>('POST', '/v1/datasets/upload', {
        action: 'create',
        name,
        inputs: Array.from({ length: count }, (_, a) => ({ a })),
        outputs: Array.from({ length: count }, (_, a) => ({ a })),
      })
    ).data.dataset_id;

  /** The floor: the runner's per-run HTTP calls with plain fetch, no tracing, no runner. */
  const floor = async (datasetId: string): Promise<number> => {
    const started = performance.now();
    const rows = (await call<{ data: { examples: Example[] } }>('GET', `/v1/datasets/${datasetId}/examples`)).data.examples;
    const experiment = (await call<{ data: { id: string } }>('POST', `/v1/datasets/${datasetId}/experiments`, {})).data;
    await runPool(rows, concurrency, async (example) => {
      const start = new Date().toISOString();
      const run = await call<{ data: { id: string } }>('POST', `/v1/experiments/${experiment.id}/runs`, {
        dataset_example_id: example.node_id,
        output: example.input,
        repetition_number: 1,
        start_time: start,
        end_time: new Date().toISOString(),
      });
      const score = JSON.stringify(example.input) === JSON.stringify(example.output) ? 1 : 0;
      await call('POST', '/v1/experiment_evaluations', {
        experiment_run_id: run.data.id,
        name: 'exact',
        annotator_kind: 'CODE',
        start_time: start,
        end_time: new Date().toISOString(),
        result: { score },
      });
    });
    await call('GET', `/v1/experiments/${experiment.id}`);
    return performance.now() - started;
  };

  const runner = async (datasetId: string, tracing: boolean): Promise<number> => {
    const started = performance.now();
    const result = await runExperiment({
      baseUrl: server.url,
      apiKey: key,
      dataset: { datasetId },
      concurrency,
      tracing,
      output: false,
      task: (example) => example.input,
      evaluators: [
        {
          name: 'exact',
          kind: 'CODE',
          evaluate: ({ output, expected }) => (JSON.stringify(output) === JSON.stringify(expected) ? 1 : 0),
        },
      ],
    });
    const elapsed = performance.now() - started;
    if (result.summary.runs.ok !== result.runs.length || result.evaluations.length !== result.runs.length) {
      throw new Error(`runner recorded ${result.summary.runs.ok} runs and ${result.evaluations.length} evaluations`);
    }
    return elapsed;
  };

  log(`datasets of ${examples} examples, concurrency ${concurrency}`);
  const [warmup, floorSet, tracedSet, untracedSet] = await Promise.all(
    ['warm-up', 'floor', 'runner', 'runner-untraced'].map((name) => upload(name, name === 'warm-up' ? 200 : examples)),
  );
  await floor(warmup!);
  await runner(warmup!, true);
  log('floor');
  const floorMs = await floor(floorSet!);
  log('runner (tracing on)');
  const tracedMs = await runner(tracedSet!, true);
  log('runner (tracing off)');
  const untracedMs = await runner(untracedSet!, false);

  const perRun = (ms: number) => ms / examples;
  const line = (label: string, ms: number) =>
    `${label} ${round(ms / 1000, 2)} s, ${round(perRun(ms), 2)} ms per run; overhead ${round(perRun(ms) - perRun(floorMs), 2)} ms per run; ratio floor/runner ${round(floorMs / ms, 2)}`;
  console.log(
    [
      `floor                 ${round(floorMs / 1000, 2)} s, ${round(perRun(floorMs), 2)} ms per run (POST run + POST evaluation per example with plain fetch, concurrency ${concurrency})`,
      line('runner, tracing on   ', tracedMs),
      line('runner, tracing off  ', untracedMs),
      `  ${examples} examples, no-op task, one CODE evaluator, auth on (system key), SQLite; target overhead < 5 ms per run`,
      `  ${machine().cpus} × ${machine().cpuModel}, Node ${process.version}; load average ${os.loadavg()[0]!.toFixed(2)}`,
    ].join('\n'),
  );
} finally {
  await stop();
}
