import os from 'node:os';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse';
import { startSqliteServer } from '../ingest/server-process.js';
import { buildServer, log, machine, ROOT, round } from '../shared.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    'field-bytes': { type: 'string', default: '0' },
    'skip-build': { type: 'boolean' },
  },
});
const rows = Number(values.rows);
const fieldBytes = Number(values['field-bytes']);

/** The benchmark's CSV: a question, an answer and a topic per row, plus an optional long field (stored as input too). */
function csvOf(count: number): string {
  const long = fieldBytes > 0 ? 'x'.repeat(fieldBytes) : '';
  const lines = ['question,answer,topic,context'];
  for (let index = 0; index < count; index++) {
    lines.push(
      `"What is the capital of country number ${index}, briefly?","The capital of country ${index} is City${index}.",topic${index % 10},${long}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Parses the CSV as the server does, without HTTP or storage; returns the seconds it took. */
async function floorSeconds(csv: string): Promise<number> {
  const started = process.hrtime.bigint();
  let count = 0;
  for await (const _record of Readable.from([csv]).pipe(parse({ columns: true, bom: true }))) count++;
  if (count !== rows) throw new Error(`floor parsed ${count} rows, expected ${rows}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

if (!values['skip-build']) buildServer();
const csv = csvOf(rows);
const csvMiB = round(Buffer.byteLength(csv) / 1024 / 1024);
log(`CSV of ${rows} rows, ${csvMiB} MiB; load average ${os.loadavg()[0]!.toFixed(2)}`);
const { server, stop } = await startSqliteServer(ROOT, 'datasets');
try {
  const idle = server.sample();
  const form = new FormData();
  for (const [key, value] of [
    ['name', 'bench'],
    ['action', 'create'],
    ['input_keys[]', fieldBytes > 0 ? 'question,context' : 'question'],
    ['output_keys[]', 'answer'],
    ['metadata_keys[]', 'topic'],
  ]) {
    form.append(key!, value!);
  }
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
  const sampler = setInterval(() => server.sample(), 50);
  const started = process.hrtime.bigint();
  const response = await fetch(`${server.url}/v1/datasets/upload`, { method: 'POST', body: form });
  const body = (await response.json()) as { data?: { num_created_examples: number }; detail?: string };
  const uploadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  const status = server.sample();
  if (response.status !== 200 || body.data?.num_created_examples !== rows) {
    throw new Error(`upload answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  const stored = (await (await fetch(`${server.url}/v1/datasets/bench`)).json()) as { data?: { example_count: number } };
  if (stored.data?.example_count !== rows) throw new Error(`the dataset holds ${stored.data?.example_count} examples, expected ${rows}`);
  const floor = await floorSeconds(csv);
  const peakMb = round((status?.hwmKb ?? server.maxRssKb) / 1024);
  console.log(
    [
      `upload  ${rows} rows (${csvMiB} MiB) in ${round(uploadSeconds, 2)} s (${Math.round(rows / uploadSeconds)} rows/s)  server peak RSS ${peakMb} MB (idle ${round((idle?.rssKb ?? 0) / 1024)} MB)`,
      `floor   ${round(floor, 2)} s (the same CSV parsed with csv-parse in one thread, no HTTP, no database)`,
      `ratio   ${round(floor / uploadSeconds, 2)}  (targets: upload < 10 s, peak RSS < 300 MB)`,
      `  ${machine().cpus} × ${machine().cpuModel}, Node ${process.version}, SQLite in a temp dir; load average ${os.loadavg()[0]!.toFixed(2)}`,
    ].join('\n'),
  );
} finally {
  await stop();
}
