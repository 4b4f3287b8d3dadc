/**
 * bench:limits (docs/performance.md, "Limits"): the requests that could take a server down, at
 * full size, each while /healthz is polled every 50 ms, on a built server with authentication on.
 *
 *   npm run build && npm run bench:limits [-- --postgres URL] [--cases trace,project,upload,dataset]
 *       [--trace-spans 100000] [--project-spans 10000000] [--project-seconds 600]
 *       [--upload-examples 20000000] [--dataset-examples 2800000]
 *
 * Cases:
 * - trace: a trace of `--trace-spans` spans, sent through OTLP, then opened
 *   (GET /v1/projects/{p}/traces/{t});
 * - project: a project of `--project-spans` spans, loaded into the database before the server
 *   starts, then deleted (DELETE /v1/projects/{p}); the case lasts until the retention job has
 *   deleted every span, or `--project-seconds`;
 * - upload, dataset: see datasets.ts (a 20M-example JSON upload; a 2.8M-example dataset listed,
 *   read, downloaded and deleted).
 *
 * Target (the issue "No request takes the server down"): during every case the server's peak RSS
 * stays under 512 MB, the worst /healthz answer under 250 ms, nothing answers 500, and the process
 * never exits. The figures are absolute: the floor of each is what an idle server shows (its RSS
 * and /healthz latency are printed first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { log, ROOT } from '../shared.js';
import { type CaseReport, parseOptions, TARGET_HEALTH_MS, TARGET_RSS_MB } from './harness.js';
import { datasetCase, uploadCase } from './datasets.js';
import { projectCase, traceCase } from './spans.js';

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!fs.existsSync(path.join(ROOT, 'packages/server/dist/index.js'))) throw new Error('build first: npm run build');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-limits-'));
  const dialect = options.postgres ? 'postgres' : 'sqlite';
  log(
    `bench:limits on ${dialect}, cases ${options.cases.join(', ')}; target peak RSS < ${TARGET_RSS_MB} MB, /healthz < ${TARGET_HEALTH_MS} ms`,
  );
  const reports: CaseReport[] = [];
  try {
    if (options.cases.includes('trace')) reports.push(await traceCase(options, workDir));
    if (options.cases.includes('project')) reports.push(await projectCase(options, workDir));
    if (options.cases.includes('upload')) reports.push(await uploadCase(options, workDir));
    if (options.cases.includes('dataset')) reports.push(...(await datasetCase(options, workDir)));
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  const resultsDir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `limits-${dialect}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ dialect, options, reports }, null, 2));
  console.log(
    `\n${reports.map((each) => `${each.met ? 'MET    ' : 'NOT MET'} ${each.name}: peak RSS ${each.peakRssMb} MB, /healthz worst ${each.worstHealthMs} ms, ${each.detail}`).join('\n')}`,
  );
  console.log(`result written to ${path.relative(ROOT, file)}`);
  if (reports.some((each) => !each.met)) process.exitCode = 1;
}

await main();
