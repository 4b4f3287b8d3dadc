#!/usr/bin/env node
// Runs every test file in one `node --test` process tree, so one summary counts them all.
// Tests need PostgreSQL: SIGHTLINE_TEST_DATABASE_URL names an admin connection; without it
// a throwaway cluster is started from the Debian postgresql binaries and removed afterwards.
// The browser tests need Debian's chromium: when it is missing and this runs as root with
// apt-get, it is installed first (as CI does), so `npm ci && npm test` needs nothing by hand.
// `--unit` runs only the tests under */test/unit/ (no database, no browser).
// The suites run compiled, from the mirror scripts/compiled-tests.mjs builds first (about two
// seconds), not through tsx: `node --import tsx --test FILE` still runs one file from its sources.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildCompiledTests, compiledTestPath } from './compiled-tests.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const unitOnly = process.argv.includes('--unit');
const args = process.argv.slice(2).filter((arg) => arg !== '--unit');
const files =
  args.length > 0
    ? args.map((arg) => path.relative(root, path.resolve(arg)))
    : findTests(root).filter((file) => !unitOnly || file.split(path.sep).includes('unit'));

function findTests(_dir) {
  const found = [];
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.test\.(ts|mjs)$/.test(entry.name)) found.push(path.relative(root, full));
    }
  };
  for (const top of ['packages', 'e2e']) if (fs.existsSync(path.join(root, top))) walk(path.join(root, top));
  return found.sort();
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function postgresBin() {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return null;
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], 'bin') : null;
}

async function startThrowawayPostgres() {
  const bin = postgresBin();
  if (!bin) return null;
  const isRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-pg-'));
  const asUser = (cmd, cmdArgs) => (isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...cmdArgs]] : [cmd, cmdArgs]);
  if (isRoot) spawnSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  const [initCmd, initArgs] = asUser(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const [ctlCmd, ctlArgs] = asUser(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start']);
  const start = spawnSync(ctlCmd, ctlArgs, { encoding: 'utf8' });
  if (start.status !== 0) throw new Error(`pg_ctl start failed: ${start.stderr}${start.stdout}`);
  const stop = () => {
    const [stopCmd, stopArgs] = asUser(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    spawnSync(stopCmd, stopArgs);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, stop };
}

/** Installs Debian's chromium when a browser test will run and it is missing (root with apt-get only). */
function ensureChromium() {
  const chromium = process.env.SIGHTLINE_CHROMIUM ?? '/usr/bin/chromium';
  if (!files.some((file) => file.startsWith(`e2e${path.sep}ui`)) || fs.existsSync(chromium)) return;
  const canInstall = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (!canInstall || process.env.SIGHTLINE_CHROMIUM) {
    console.log(
      `# Chromium not found at ${chromium}: install Debian's chromium package (apt-get install -y chromium); the browser tests will fail`,
    );
    return;
  }
  console.log("# Chromium not found: installing Debian's chromium package (apt-get install -y chromium)");
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env: aptEnv });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: aptEnv });
  if (install.status !== 0) console.log('# installing chromium failed; the browser tests will fail');
}

let cleanup = () => {};
const env = { ...process.env };
ensureChromium();
if (!env.SIGHTLINE_TEST_DATABASE_URL && !unitOnly) {
  const pg = await startThrowawayPostgres();
  if (pg) {
    env.SIGHTLINE_TEST_DATABASE_URL = pg.url;
    cleanup = pg.stop;
    console.log(`# started a throwaway PostgreSQL at ${pg.url}`);
  } else {
    console.log('# PostgreSQL not found: install the postgresql package or set SIGHTLINE_TEST_DATABASE_URL; PostgreSQL tests will fail');
  }
}

await buildCompiledTests(root);
const compiled = files.map(compiledTestPath);
const child = spawn(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-timeout=300000', ...compiled], {
  cwd: root,
  env,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  cleanup();
  process.exit(code ?? (signal ? 1 : 0));
});
