/** Helpers every benchmark runner uses: logging, rounding, percentiles, build, machine and source description. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { redactUrl as redact } from '../packages/common/src/postgres.js';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Progress lines go to stderr so stdout stays the result. */
export const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** `--server-env SERVICE_NAME=value` pairs (repeatable) as the server's extra environment. */
export function parseServerEnv(pairs: string[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0 || !pair.startsWith('SERVICE_')) throw new Error(`--server-env: expected SERVICE_NAME=value, got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/** A number rounded to `digits` decimals. */
export const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * Copies a database file for a benchmark to start from without leaving the copy in the page cache.
 * A plain copy leaves it there in large folios (Linux 6.x, ext4 and others), and every later 4 KiB
 * write into one dirties and writes back the whole folio: on a copied 1M-span database a WAL
 * checkpoint wrote 102 KB per span instead of 8 (docs/performance.md, "Retention"), which no
 * server that wrote its own file would see. `dd oflag=direct` writes around the cache; where it
 * is refused (a file system without O_DIRECT), the plain copy is used and said so.
 */
export function copyDatabaseFile(from: string, to: string): void {
  const result = spawnSync('dd', [`if=${from}`, `of=${to}`, 'bs=4M', 'oflag=direct', 'status=none'], { encoding: 'utf8' });
  if (result.status === 0) return;
  log(`dd oflag=direct failed (${(result.stderr || result.error?.message || '').trim()}); copying through the page cache`);
  fs.copyFileSync(from, to);
}

/** Builds the command line (and the server and monitor it references) so the benchmark runs the code as shipped. */
export function buildServer(): void {
  log('building packages/cli (tsc -b)');
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-b', 'packages/cli'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`tsc -b packages/cli failed:\n${result.stdout}${result.stderr}`);
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kernel: string;
}

/** What the figures were measured on. */
export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
  };
}

/** The commit benchmarked, and whether the server's sources had uncommitted changes. */
export function sourceState(): { commit: string | null; uncommittedServerFiles: number | null } {
  const git = (args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8', timeout: 10_000 });
  const head = git(['rev-parse', '--short', 'HEAD']);
  const status = git(['status', '--porcelain', '--', 'packages/server/src']);
  return {
    commit: head.status === 0 ? head.stdout.trim() : null,
    uncommittedServerFiles: status.status === 0 ? status.stdout.split('\n').filter((line) => line.trim() !== '').length : null,
  };
}
