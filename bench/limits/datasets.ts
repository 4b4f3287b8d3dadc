/**
 * The dataset cases of bench:limits (the attack run of the issue "No request takes the server
 * down", at its sizes):
 * - upload: a JSON upload of `--upload-examples` empty examples (20M: 57 MiB, the body that once
 *   took the heap to 5 GB), answered while /healthz is polled;
 * - dataset: a dataset of `--dataset-examples` examples (2.8M) written straight into the
 *   database, then listed, read whole through /examples, downloaded as CSV and JSONL, and
 *   deleted (until its rows are gone), each step watched on its own.
 */
import http from 'node:http';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { toGlobalId } from '../../packages/server/src/api/shared/global-id.js';
import { createPgPool, openSqlite } from '../../packages/server/src/db/database.js';
import { seedDataset } from '../../packages/server/test/helpers/big-datasets.js';
import type { Target } from '../query/load.js';
import { log, round } from '../shared.js';
import { type CaseReport, freshTarget, type Options, report, startServer, watch } from './harness.js';

/** A connection of the benchmark's own to the server's database. */
function openTarget(target: Target): Kysely<unknown> {
  return new Kysely<unknown>({
    dialect:
      target.dialect === 'sqlite'
        ? new SqliteDialect({ database: openSqlite(target.file) })
        : new PostgresDialect({ pool: createPgPool(target.url, 1) }),
  });
}

/**
 * POSTs `body` and waits for the whole answer however long the server takes (fetch gives up on
 * headers after 300 s, and a 20M-example upload may take longer to store).
 */
function postLong(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Reads an answer to its end, counting its bytes without keeping them. */
async function drain(response: Response): Promise<number> {
  let bytes = 0;
  if (response.body) for await (const chunk of response.body) bytes += (chunk as Uint8Array).byteLength;
  return bytes;
}

const mib = (bytes: number) => round(bytes / 2 ** 20, 1);

export async function uploadCase(options: Options, workDir: string): Promise<CaseReport> {
  const { target, drop } = await freshTarget(options, workDir, 'upload');
  const { server, key } = await startServer(target, workDir);
  try {
    const count = options.uploadExamples;
    const body = `{"action":"create","name":"limits-upload","inputs":[${'{},'.repeat(count - 1)}{}]}`;
    log(`uploading a JSON body of ${count} empty examples (${mib(body.length)} MiB)`);
    const watched = await watch(server, async () => {
      const started = performance.now();
      const answer = await postLong(
        `${server.url}/v1/datasets/upload?sync=true`,
        { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body,
      );
      const seconds = (performance.now() - started) / 1000;
      let created = '?';
      try {
        created = String((JSON.parse(answer.text) as { data: { num_created_examples: number } }).data.num_created_examples);
      } catch {}
      return {
        status: answer.status,
        detail: `answered in ${round(seconds, 1)} s, ${created} examples created${answer.status >= 400 ? `: ${answer.text.slice(0, 200)}` : ''}`,
      };
    });
    return report(`a JSON upload of ${count} examples (${mib(body.length)} MiB)`, watched);
  } finally {
    await server.stop(60_000);
    await drop();
  }
}

export async function datasetCase(options: Options, workDir: string): Promise<CaseReport[]> {
  const { target, drop } = await freshTarget(options, workDir, 'dataset');
  const { server, key } = await startServer(target, workDir);
  const db = openTarget(target);
  const headers = { authorization: `Bearer ${key}` };
  const count = options.datasetExamples;
  try {
    log(`writing a dataset of ${count} examples into the database`);
    const seeding = performance.now();
    const { datasetId } = await seedDataset(db, 'limits-dataset', count);
    log(`written in ${round((performance.now() - seeding) / 1000, 0)} s`);
    const id = toGlobalId('Dataset', datasetId);
    const reports: CaseReport[] = [];

    const read = async (name: string, path: string) => {
      const watched = await watch(server, async () => {
        const started = performance.now();
        const response = await fetch(`${server.url}${path}`, { headers });
        const bytes = await drain(response);
        return { status: response.status, detail: `answered in ${round((performance.now() - started) / 1000, 1)} s, ${mib(bytes)} MiB` };
      });
      reports.push(report(name, watched));
    };
    await read('datasets listed', '/v1/datasets');
    await read(`a ${count}-example dataset read whole (/examples)`, `/v1/datasets/${id}/examples`);
    await read(`a ${count}-example dataset downloaded as CSV`, `/v1/datasets/${id}/csv`);
    await read(`a ${count}-example dataset downloaded as JSONL`, `/v1/datasets/${id}/jsonl`);

    const remaining = async () =>
      Number(
        (await sql<{ n: number | string }>`select count(*) as n from dataset_examples where dataset_id = ${datasetId}`.execute(db)).rows[0]!
          .n,
      );
    const deleted = await watch(server, async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/datasets/${id}`, { method: 'DELETE', headers });
      await response.arrayBuffer();
      const answeredMs = performance.now() - started;
      const listed = await fetch(`${server.url}/v1/datasets/${id}`, { headers });
      await listed.arrayBuffer();
      let left = await remaining();
      while (left > 0 && performance.now() - started < options.projectSeconds * 1000) {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        left = await remaining();
      }
      const seconds = (performance.now() - started) / 1000;
      return {
        status: response.status,
        detail:
          `answered in ${round(answeredMs, 0)} ms (then GET answered ${listed.status}); ` +
          `${count - left} of ${count} examples gone in ${round(seconds, 0)} s${left > 0 ? ', stopped at --project-seconds' : ''}`,
      };
    });
    reports.push(report(`a ${count}-example dataset deleted`, deleted));
    return reports;
  } finally {
    await db.destroy();
    await server.stop(60_000);
    await drop();
  }
}
