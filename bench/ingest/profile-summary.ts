/**
 * Summarises V8 .cpuprofile files (from `node --cpu-prof`): self time per function, top first.
 * Usage: node --import tsx bench/ingest/profile-summary.ts FILE.cpuprofile [more files] [--top N]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileLine {
  selfMs: number;
  percent: number;
  name: string;
}

/** Self time by function (name + file:line), descending. `idle` and `(program)` included. */
export function summariseProfile(file: string, root = process.cwd()): { totalMs: number; busyMs: number; lines: ProfileLine[] } {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time before sample i; attribute the following delta to sample i.
    const delta = deltas[i + 1] ?? 0;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + Math.max(delta, 0));
  }
  const byName = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const where = frame.url ? ` ${shorten(frame.url, root)}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'}${where}`;
    byName.set(name, (byName.get(name) ?? 0) + us);
    totalUs += us;
    if (frame.functionName === '(idle)') idleUs += us;
  }
  const lines = [...byName.entries()]
    .map(([name, us]) => ({ name, selfMs: us / 1000, percent: (100 * us) / Math.max(totalUs, 1) }))
    .sort((a, b) => b.selfMs - a.selfMs);
  return { totalMs: totalUs / 1000, busyMs: (totalUs - idleUs) / 1000, lines };
}

function shorten(url: string, root: string): string {
  let file = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (file.startsWith(root)) file = path.relative(root, file);
  return file.replace(/^.*node_modules\//, '~/');
}

/** A printable table of the top functions of one profile. */
export function formatProfile(file: string, top = 20, root = process.cwd()): string {
  const { totalMs, busyMs, lines } = summariseProfile(file, root);
  const out = [`${path.basename(file)}: ${(totalMs / 1000).toFixed(1)} s sampled, ${(busyMs / 1000).toFixed(1)} s not idle`];
  for (const line of lines.slice(0, top)) {
    out.push(`  ${line.selfMs.toFixed(0).padStart(7)} ms ${line.percent.toFixed(1).padStart(5)}%  ${line.name}`);
  }
  return out.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const topIndex = args.indexOf('--top');
  const top = topIndex >= 0 ? Number(args.splice(topIndex, 2)[1]) : 25;
  for (const file of args) console.log(`${formatProfile(file, top)}\n`);
}
