/**
 * Whether the machine's cores are kept busy by work other than the calling thread's: the SQLite
 * search indexer holds its own work back then, so that a saturated ingest keeps its rate and the
 * index catches up once the burst ends (search-indexer-thread.ts, docs/search.md "SQLite"). Read
 * from the kernel's count of every core's idle time (os.cpus()) and, on Linux, of the calling
 * thread's own CPU time (/proc/thread-self/stat); elsewhere the thread's own time counts as
 * other work, which can only make it hold back more.
 *
 * The cores are the machine's: under a container's CPU quota the quota's exhaustion is not seen.
 */
import fs from 'node:fs';
import os from 'node:os';

/**
 * The share of all cores that other work must take for the machine to count as saturated. The
 * share is read while the indexer competes for the cores, which lowers it; 0.7 leaves a margin
 * below what a saturating ingest keeps busy (the ingest benchmark's server and load generator,
 * 1.6-1.8 of 2 cores, docs/performance.md).
 */
export const SATURATED_SHARE = 0.7;
/** How often the counts are read again (ms); in between, the last answer holds. */
export const SAMPLE_MS = 250;

export interface CpuSample {
  at: number;
  idleMs: number;
  totalMs: number;
  ownMs: number;
}

/** The clock ticks of /proc's CPU times: 100 a second on every Linux build Node runs on. */
const TICK_MS = 10;

function ownCpuMs(): number {
  try {
    // Fields 14 and 15 (utime, stime) follow the command name, which is in parentheses and may hold spaces.
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS || 0;
  } catch {
    return 0;
  }
}

/** The machine's counts now: every core's idle and total time, and the calling thread's own CPU time (ms). */
export function readCpuSample(at: number): CpuSample {
  let idleMs = 0;
  let totalMs = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, idle, irq } = cpu.times;
    idleMs += idle;
    totalMs += user + nice + sys + idle + irq;
  }
  return { at, idleMs, totalMs, ownMs: ownCpuMs() };
}

export class CpuSaturation {
  private last: CpuSample | null = null;
  private saturated = false;

  /** `read`: the machine's counts (a test's own); `share`: SATURATED_SHARE unless given. */
  constructor(
    private readonly read: (at: number) => CpuSample = readCpuSample,
    private readonly share = SATURATED_SHARE,
  ) {}

  /** True when, since the last reading, other work kept at least SATURATED_SHARE of all cores busy. */
  check(now = performance.now()): boolean {
    if (this.last !== null && now - this.last.at < SAMPLE_MS) return this.saturated;
    const next = this.read(now);
    if (this.last !== null) {
      const totalMs = next.totalMs - this.last.totalMs;
      const othersMs = totalMs - (next.idleMs - this.last.idleMs) - (next.ownMs - this.last.ownMs);
      if (totalMs > 0) this.saturated = othersMs / totalMs >= this.share;
    }
    this.last = next;
    return this.saturated;
  }
}
