/**
 * Builds the Dockerfile and runs the image (docs/deployment.md, "Containers"): the server
 * answers its health check as the unprivileged node user, takes traces from real OTLP
 * exporters over HTTP and gRPC, keeps them on its /data volume across a stop (which drains
 * and exits 0) and a new container, and runs on PostgreSQL when SERVICE_SQL_DATABASE_URL
 * names one. Needs podman or docker with an engine, so it is not part of `npm test`:
 * `npm run test:container` (SIGHTLINE_TEST_DATABASE_URL for the PostgreSQL case, as for `npm test`).
 *
 * Without a registry, `node:20-bookworm-slim` is built locally by
 * scripts/container/stand-in-node-image.sh from Debian's archive and this machine's Node.js.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { exportSampleTrace, makeExporter } from '../../packages/server/test/helpers/otel.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const engine = process.env.CONTAINER_ENGINE ?? 'podman';
const image = `localhost/sightline-check:${process.pid}`;
const base = 'docker.io/library/node:20-bookworm-slim';
const suffix = randomUUID().slice(0, 8);
const volume = `sightline-check-${suffix}`;
const containers: string[] = [];
/** Extra `run`/`build` options this machine's engine needs (found in `before`). */
let engineOptions: string[] = [];

async function engineRun(args: string[], timeoutMs = 120_000) {
  return run(engine, args, { cwd: root, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function startContainer(name: string, args: string[]): Promise<void> {
  containers.push(name);
  await engineRun(['run', '-d', '--name', name, ...engineOptions, ...args, image]);
}

async function healthy(name: string): Promise<void> {
  await waitFor(`${name} to pass its health check`, async () => {
    await engineRun(['healthcheck', 'run', name], 20_000);
    return true;
  });
}

async function spanNames(httpBase: string, project: string): Promise<string[]> {
  const response = await fetch(`${httpBase}/v1/projects/${project}/spans?limit=100`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as { data: { name: string }[] };
  return body.data.map((span) => span.name).sort();
}

describe(`the container image (${engine})`, { concurrency: false, timeout: 1_800_000 }, () => {
  before(async () => {
    // Engines inside some sandboxes cannot raise rlimits or use crun on hybrid cgroups; runc
    // with the machine's own limits works there. Try the plain engine first.
    const probe = async (options: string[]) =>
      engineRun(['run', '--rm', ...options, base, 'true']).then(
        () => true,
        () => false,
      );
    const haveBase = await engineRun(['image', 'exists', base]).then(
      () => true,
      () => false,
    );
    if (!haveBase) {
      const pulled = await engineRun(['pull', base], 600_000).then(
        () => true,
        () => false,
      );
      if (!pulled) await run(path.join(root, 'scripts/container/stand-in-node-image.sh'), [base], { timeout: 900_000 });
    }
    if (!(await probe([]))) {
      const sandboxed = ['--runtime', 'runc', '--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];
      assert.ok(await probe(sandboxed), `${engine} cannot run a container here`);
      engineOptions = sandboxed;
    }
    const format = engine === 'podman' ? ['--format', 'docker'] : [];
    await engineRun(['build', ...format, ...engineOptions, '--network', 'host', '-t', image, '.'], 1_200_000);
  });

  after(async () => {
    for (const name of containers) await engineRun(['rm', '-f', '-t', '0', name]).catch(() => undefined);
    await engineRun(['volume', 'rm', '-f', volume]).catch(() => undefined);
    await engineRun(['rmi', '-f', image]).catch(() => undefined);
  });

  it('serves as the node user, keeps traces on its volume and drains on stop', async () => {
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const ports = ['-p', `127.0.0.1:${httpPort}:6006`, '-p', `127.0.0.1:${grpcPort}:4317`, '-v', `${volume}:/data`];
    const first = `sightline-check-a-${suffix}`;
    await startContainer(first, ports);
    await healthy(first);
    const httpBase = `http://127.0.0.1:${httpPort}`;

    await exportSampleTrace(makeExporter('http-protobuf', httpBase, ''), { 'service.name': 'container' }, 'http');
    await exportSampleTrace(makeExporter('grpc', '', `http://127.0.0.1:${grpcPort}`), { 'service.name': 'container' }, 'grpc');
    const expected = ['grpc agent', 'grpc llm', 'grpc tool', 'http agent', 'http llm', 'http tool'];
    assert.deepEqual(await spanNames(httpBase, 'container'), expected);

    const { stdout: uid } = await engineRun(['exec', first, 'id', '-u']);
    assert.equal(uid.trim(), '1000', 'runs as node, not root');
    await assert.rejects(engineRun(['exec', first, 'touch', '/app/written']), 'the code is read-only for the server');
    const { stdout: files } = await engineRun(['exec', first, 'ls', '/data']);
    assert.match(files, /sightline\.db/);

    await engineRun(['stop', '-t', '15', first], 30_000);
    const { stdout: exitCode } = await engineRun(['inspect', '--format', '{{.State.ExitCode}}', first]);
    assert.equal(exitCode.trim(), '0', 'SIGTERM drains and exits cleanly');

    const second = `sightline-check-b-${suffix}`;
    await startContainer(second, ports);
    await healthy(second);
    assert.deepEqual(await spanNames(httpBase, 'container'), expected, 'the spans outlive the container');
  });

  it('runs on PostgreSQL named by SERVICE_SQL_DATABASE_URL', async (t) => {
    const adminUrl = process.env.SIGHTLINE_TEST_DATABASE_URL;
    assert.ok(adminUrl, 'SIGHTLINE_TEST_DATABASE_URL names a PostgreSQL server for this check');
    const database = `sightline_container_${suffix}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    t.after(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    });
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const name = `sightline-check-pg-${suffix}`;
    // The host's network, so the server reaches the PostgreSQL on this machine's loopback.
    await startContainer(name, [
      '--network',
      'host',
      '-e',
      'SERVICE_HOST=127.0.0.1',
      '-e',
      `SERVICE_PORT=${httpPort}`,
      '-e',
      `SERVICE_GRPC_PORT=${grpcPort}`,
      '-e',
      `SERVICE_SQL_DATABASE_URL=${url.href}`,
    ]);
    await healthy(name);
    const httpBase = `http://127.0.0.1:${httpPort}`;
    assert.equal((await fetch(`${httpBase}/readyz`)).status, 200);
    await exportSampleTrace(makeExporter('http-protobuf', httpBase, ''), { 'service.name': 'on-postgres' }, 'pg');
    assert.deepEqual(await spanNames(httpBase, 'on-postgres'), ['pg agent', 'pg llm', 'pg tool']);
    const check = new pg.Client({ connectionString: url.href });
    await check.connect();
    const { rows } = await check.query('SELECT count(*)::int AS n FROM spans');
    await check.end();
    assert.equal(rows[0].n, 3, 'the spans are rows in the PostgreSQL database');
  });
});
