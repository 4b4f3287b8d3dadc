/**
 * The partition compaction job (PostgreSQL; docs/partitioning.md, "Compaction"): every interval,
 * rebuilds the indexes of each day partition that nothing writes any more, oldest first, once.
 * A day's time-keyed indexes fill in start-time order from many traces at once and end about half
 * empty; rebuilt, they take half the room (docs/performance.md). The rebuilds run online
 * (`REINDEX ... CONCURRENTLY`), one replica at a time, and a watermark in `job_state` keeps them
 * from running twice.
 */
import { dayOfMillis } from '../db/partitions.js';
import type { CompactionSession, PartitionCompactionRepository } from '../db/repositories/partition-compaction-repository.js';
import type { Job } from '../jobs/job-runner.js';

export interface PartitionCompactionJobOptions {
  partitions: PartitionCompactionRepository;
  /** Pause between runs (ms); an hour by default. */
  intervalMs?: number;
  /** Pause before the first run (ms); a minute by default, to keep the work off a server's start. */
  firstRunDelayMs?: number;
  /** Now in milliseconds since the epoch (tests move the clock). */
  clock?: () => number;
  /** True for a closed day not worth rebuilding: the retention job is about to drop it. */
  skipDay?: (day: number, nowMs: number) => Promise<boolean>;
  /** Called after each day compacted, with how long it took. */
  onCompacted?: (day: number, ms: number) => void;
}

/** What one run did. */
export interface CompactionRun {
  /** Days compacted, oldest first. */
  days: number[];
  /** True when this run did nothing because another replica was compacting (or the job was stopping). */
  skipped: boolean;
}

export interface PartitionCompactionJob extends Job {
  /** Runs the job now, after any run in progress. */
  runNow(): Promise<CompactionRun>;
  /** Stops the job, interrupting a rebuild in progress (the next run redoes that day). */
  stop(): Promise<void>;
}

const HOUR_MS = 3_600_000;

/** The compaction job, for the job runner (jobs/job-runner.ts); its first run comes after `firstRunDelayMs`. */
export function createPartitionCompactionJob({
  partitions,
  intervalMs = HOUR_MS,
  firstRunDelayMs = 60_000,
  clock = Date.now,
  skipDay,
  onCompacted,
}: PartitionCompactionJobOptions): PartitionCompactionJob {
  let stopped = false;
  let chain: Promise<unknown> = Promise.resolve();
  let active: CompactionSession | null = null;

  const compact = async (session: CompactionSession, days: number[]) => {
    // The writer still puts traces in yesterday's partition (db/partitions.ts): only the days
    // before it are closed. A late span of a closed day still lands; it only costs a little room.
    const nowMs = clock();
    const closed = await session.daysBefore(dayOfMillis(nowMs) - 1);
    const through = await session.compactedThrough();
    for (const day of closed) {
      if (stopped) break;
      if ((through !== null && day <= through) || (await skipDay?.(day, nowMs))) continue;
      const started = performance.now();
      await session.compactDay(day);
      await session.recordCompacted(day);
      days.push(day);
      onCompacted?.(day, performance.now() - started);
    }
  };

  const run = async (): Promise<CompactionRun> => {
    const days: number[] = [];
    if (stopped) return { days, skipped: true };
    const locked = await partitions.withCompactionLock(async (session) => {
      active = session;
      try {
        await compact(session, days);
      } finally {
        active = null;
      }
    });
    return { days, skipped: !locked };
  };

  const runNow = (): Promise<CompactionRun> => {
    const next = chain.then(run, run);
    chain = next.catch(() => {});
    return next;
  };

  const stop = async () => {
    stopped = true;
    const session: CompactionSession | null = active;
    if (session !== null) await partitions.cancel(session.pid).catch(() => {});
    await chain;
  };

  return {
    name: 'partition-compaction',
    description: 'PostgreSQL: rebuilds the indexes of each closed day partition once (docs/partitioning.md).',
    intervalMs,
    firstDelayMs: firstRunDelayMs,
    runNow,
    stop,
    async run() {
      await runNow();
      return 'idle';
    },
  };
}
