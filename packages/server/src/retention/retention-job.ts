/**
 * The retention job (docs/retention.md): every interval, for each project with a policy, deletes
 * whole traces oldest first — those that started more than max_days ago and those beyond the
 * newest max_traces — in short transactions (sized to take about `targetBatchMs`), pausing
 * between them several times as long as each took, so the ingest writer (its own connection; on
 * SQLite a separate thread) and the UI never wait long for the database. Then it
 * removes the sessions left without traces and, on a SQLite file in incremental auto-vacuum
 * mode, hands the freed pages back to the file system in small steps. On PostgreSQL a run first
 * drops the day partitions whose every trace is past its project's max_days (docs/partitioning.md):
 * a day's data goes at the cost of a few statements instead of a delete per row.
 */
import { dayOfMillis } from '../db/partitions.js';
import type { RetentionPolicyRecord, TraceBound } from '../db/repositories/retention-repository.js';
import type { Repositories, WithTransaction } from '../db/repositories/index.js';
import { type IngestIdle, waitForIdleIngest } from '../jobs/idle-ingest.js';
import type { Job } from '../jobs/job-runner.js';

const NANOS_PER_DAY = 86_400_000_000_000n;
const MS_PER_DAY = 86_400_000;
const MAX_VACUUM_PAGES = 10_000;
// Floors: every transaction pays a commit (an fsync), so tiny batches would delete almost nothing per commit.
const MIN_BATCH_TRACES = 20;
const MIN_VACUUM_PAGES = 100;

/**
 * Where the deletions run on SQLite: the ingest writer thread, between its commits, so they never
 * contend with ingest for the write lock nor block the main thread (docs/retention.md).
 */
export interface RetentionWriter {
  /** Deletes a batch; `ms` is how long it held the database, without its wait in the writer's queue. */
  deleteTraces(traceRowids: number[]): Promise<{ traces: number; spans: number; sessions: number; ms: number }>;
  /** Resolves to how long the step held the database (ms). */
  incrementalVacuum(pages: number): Promise<number>;
}

export interface RetentionJobOptions {
  /** The repositories outside transactions (reads, run records). */
  repositories: Pick<Repositories, 'retention'>;
  withTransaction: WithTransaction;
  /** SQLite: the writer thread's deletions; without it (PostgreSQL) each batch is a transaction of its own. */
  writer?: RetentionWriter | undefined;
  /** Pause between runs (ms); 60 s by default (SERVICE_RETENTION_INTERVAL_SECONDS). */
  intervalMs?: number;
  /** Most traces deleted per transaction. */
  maxBatchTraces?: number;
  /** How long one transaction should hold the write lock (ms; SERVICE_RETENTION_BATCH_MS): batch sizes adapt to it. */
  targetBatchMs?: number;
  /** Pause after each transaction, as a multiple of the time it took: 1 leaves other writers half the time or more, 3 three quarters. */
  pauseFactor?: number;
  /**
   * Longest pause after each transaction while ingest never falls idle, as a multiple of the time
   * it took (at least `pauseFactor`): 4 still gives the job a fifth of the writer under saturation,
   * so that it keeps up with a database that ingest fills without a break.
   */
  maxPauseFactor?: number;
  /** Shortest pause after each transaction (ms). */
  minPauseMs?: number;
  /** Now in milliseconds since the epoch (tests and benchmarks move the clock). */
  clock?: () => number;
  onError?: (error: unknown) => void;
  /**
   * Resolves when ingest has nothing waiting or being written. After its pause each batch waits for
   * it (until the longest pause is up), so deletions take the writer's idle time first.
   */
  ingestIdle?: IngestIdle;
  /** Called after each deletion batch (the server logs it at debug level, to see the job's pace under load). */
  onBatch?: (batch: RetentionBatch) => void;
}

/** One deletion transaction of the job, as reported to `onBatch`. */
export interface RetentionBatch {
  projectId: number;
  traces: number;
  spans: number;
  /** Time the batch held the database (ms). */
  heldMs: number;
  /** Time from asking for the deletion to its answer (ms): held time plus the wait behind ingest commits. */
  totalMs: number;
  /** Time to select the batch's trace ids (ms). */
  selectMs: number;
  /** Traces the next batch will ask for. */
  nextSize: number;
  /** How long the batch waited, after its pause, for ingest to fall idle (ms; bounded by the longest pause). */
  waitedMs: number;
}

/** What a run deleted in one project. */
export interface ProjectRetentionRun {
  projectId: number;
  deletedTraces: number;
  deletedSpans: number;
  deletedSessions: number;
}

/** What one run did. */
export interface RetentionRun {
  startedAt: string;
  finishedAt: string;
  deletedTraces: number;
  deletedSpans: number;
  deletedSessions: number;
  /** SQLite pages returned to the file system (0 when the file is not in incremental auto-vacuum mode, and on PostgreSQL). */
  vacuumedPages: number;
  projects: ProjectRetentionRun[];
}

export interface RetentionJob extends Job {
  /** Runs the job now, after any run in progress; resolves to what it deleted. */
  runNow(): Promise<RetentionRun>;
  /** What the last run of this process deleted (null before the first). */
  lastRun(): RetentionRun | null;
  /** Stops the run in progress at its next batch and waits for it. */
  stop(): Promise<void>;
}

/** What a run's partition drops removed so far: traces and spans by project, and sessions left empty. */
interface DroppedDays {
  byProject: Map<number, { traces: number; spans: number }>;
  sessions: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A bound after every trace: a deleted project loses all of them (docs/api.md, "Deleting projects"). */
const EVERY_TRACE: TraceBound = { startTime: 9_223_372_036_854_775_807n, id: Number.MAX_SAFE_INTEGER };

/** The later of two bounds in (start time, row id) order; traces before it are deleted. */
function later(a: TraceBound | null, b: TraceBound | null): TraceBound | null {
  if (!a || !b) return a ?? b;
  if (a.startTime !== b.startTime) return a.startTime > b.startTime ? a : b;
  return a.id >= b.id ? a : b;
}

/**
 * True when a day partition is out of retention as a whole: every project with traces in it
 * (`projectIds`) has a max_days policy under which the day has ended (an empty day too). The job
 * drops such a day on PostgreSQL; the compaction leaves it alone.
 */
export function dayOutOfRetention(projectIds: number[], policies: RetentionPolicyRecord[], day: number, nowMs: number): boolean {
  const dayEndMs = (day + 1) * MS_PER_DAY;
  return projectIds.every((projectId) => {
    const maxDays = policies.find((policy) => policy.projectId === projectId)?.maxDays;
    return maxDays !== undefined && maxDays !== null && dayEndMs <= nowMs - maxDays * MS_PER_DAY;
  });
}

/** The retention job, for the job runner (jobs/job-runner.ts). */
export function createRetentionJob({
  repositories,
  withTransaction,
  writer,
  intervalMs = 60_000,
  maxBatchTraces = 1000,
  targetBatchMs = 50,
  pauseFactor = 1,
  maxPauseFactor = 4,
  minPauseMs = 5,
  clock = Date.now,
  onError,
  onBatch,
  ingestIdle,
}: RetentionJobOptions): RetentionJob {
  const { retention } = repositories;
  let chain: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let lastReport: RetentionRun | null = null;
  // Adapted to targetBatchMs as the job goes; kept between runs.
  let batchTraces = Math.min(100, maxBatchTraces);
  let vacuumPages = 100;
  // Smoothed cost of one item (a trace, a vacuumed page) in ms, per kind of work: one slow commit
  // (an fsync stall) must not collapse the next batch, nor one quick one double it.
  const costPerItem: Record<'traces' | 'pages', number | null> = { traces: null, pages: null };
  const longestPauseFactor = Math.max(pauseFactor, maxPauseFactor);
  // How long the next piece of work may wait for ingest to fall idle (ms); follows from the last one.
  let idleWaitLimitMs = targetBatchMs * (longestPauseFactor - pauseFactor);

  /**
   * Runs `work` on `size` items once ingest is idle, or once the longest pause since the last
   * work is up, whichever comes first; then pauses `pauseFactor` times as long as it held the
   * database. So the job takes the writer's idle time up to its duty, and under ingest that never
   * pauses still gets `1 / (1 + maxPauseFactor)` of the writer: a backlog of old data must not
   * grow for ever because ingest is busy (docs/retention.md). Time the work spent in the writer
   * thread's queue behind an ingest commit was ingest's, so it counts toward both pauses; and when
   * those commits are long (a saturated writer on a large database), batches grow to keep the
   * share. Returns the result, how long it waited for ingest, and the size that should take about
   * `targetBatchMs` (or that longer time) next. `heldMs` reads the time the work itself reports
   * (the writer thread's, without its queue wait).
   */
  const paced = async <T>(
    kind: 'traces' | 'pages',
    size: number,
    limits: { min: number; max: number },
    work: (size: number) => Promise<T>,
    heldMs?: (result: T) => number,
  ): Promise<{ result: T; next: number; waitedMs: number }> => {
    const waitedMs = await waitForIdleIngest(ingestIdle, idleWaitLimitMs);
    const started = performance.now();
    const result = await work(size);
    const answeredMs = performance.now() - started;
    const held = heldMs?.(result);
    const took = Math.max(0.1, held === undefined || Number.isNaN(held) ? answeredMs : held);
    const queuedMs = Math.max(0, answeredMs - took);
    const previous = costPerItem[kind];
    const cost = previous === null ? took / size : 0.7 * previous + 0.3 * (took / size);
    costPerItem[kind] = cost;
    const pauseMs = Math.max(minPauseMs, took * pauseFactor - queuedMs);
    idleWaitLimitMs = Math.max(0, took * longestPauseFactor - queuedMs - pauseMs);
    await sleep(pauseMs);
    const targetMs = Math.max(targetBatchMs, queuedMs / longestPauseFactor);
    const next = Math.round(Math.min(size * 2, Math.max(size / 2, targetMs / cost)));
    return { result, next: Math.min(limits.max, Math.max(limits.min, next)), waitedMs };
  };

  /** The bound before which the policy deletes every trace, or null when it deletes none. */
  const boundOf = async (policy: RetentionPolicyRecord): Promise<TraceBound | null> => {
    const byAge =
      policy.maxDays === null ? null : { startTime: BigInt(clock()) * 1_000_000n - BigInt(policy.maxDays) * NANOS_PER_DAY, id: 0 };
    const byCount = policy.maxTraces === null ? null : ((await retention.nthNewestTrace(policy.projectId, policy.maxTraces)) ?? null);
    return later(byAge, byCount);
  };

  const applyPolicy = async (policy: RetentionPolicyRecord): Promise<ProjectRetentionRun> => {
    const bound = await boundOf(policy);
    const run = await deleteBefore(policy.projectId, bound);
    // The minutes' rollups before the bound go too (docs/dashboards.md): a dashboard counts what is kept.
    if (bound && !stopped) await retention.deleteRollupsBefore(policy.projectId, Number(bound.startTime / 60_000_000_000n));
    return run;
  };

  /** Deletes the project's traces before `bound` (all of them for EVERY_TRACE) in paced batches. */
  const deleteBefore = async (projectId: number, bound: TraceBound | null): Promise<ProjectRetentionRun> => {
    const run: ProjectRetentionRun = { projectId, deletedTraces: 0, deletedSpans: 0, deletedSessions: 0 };
    // Traces arriving meanwhile start after the bound (or are as old as the ones deleted), so the loop ends.
    while (bound && !stopped) {
      const selectStarted = performance.now();
      const ids = await retention.oldestTracesBefore(projectId, bound, batchTraces);
      const selectMs = performance.now() - selectStarted;
      if (ids.length === 0) break;
      let totalMs = 0;
      const {
        result: deleted,
        next,
        waitedMs,
      } = await paced(
        'traces',
        ids.length,
        { min: Math.min(MIN_BATCH_TRACES, maxBatchTraces), max: maxBatchTraces },
        async () => {
          const started = performance.now();
          const result = writer
            ? await writer.deleteTraces(ids)
            : await withTransaction(async (trx) => {
                const deletion = await trx.retention.deleteTraces(ids);
                const sessions = await trx.retention.deleteSessionsWithoutTraces(deletion.sessionRowids);
                return { traces: deletion.traces, spans: deletion.spans, sessions, ms: Number.NaN };
              });
          totalMs = performance.now() - started;
          return result;
        },
        (result) => result.ms ?? Number.NaN,
      );
      onBatch?.({
        projectId,
        traces: deleted.traces,
        spans: deleted.spans,
        heldMs: Number.isNaN(deleted.ms) ? totalMs : deleted.ms,
        totalMs,
        selectMs,
        nextSize: next,
        waitedMs,
      });
      run.deletedTraces += deleted.traces;
      run.deletedSpans += deleted.spans;
      run.deletedSessions += deleted.sessions;
      if (ids.length < batchTraces) break;
      batchTraces = next;
    }
    return run;
  };

  /**
   * PostgreSQL: drops each day partition, older than the writer's window, that holds only traces
   * of projects whose max_days puts the whole day out of retention; an empty one goes too. Adds
   * what went, by project, and the sessions left without traces to `dropped` as each day goes, so
   * that a failure on a later day keeps the count of the earlier ones.
   */
  const dropExpiredDays = async (policies: RetentionPolicyRecord[], dropped: DroppedDays): Promise<void> => {
    const nowMs = clock();
    // The writer still puts new traces in yesterday's partition (db/partitions.ts).
    for (const day of await retention.dayPartitionsBefore(dayOfMillis(nowMs) - 1)) {
      if (stopped) break;
      if (!dayOutOfRetention(await retention.projectsOfDay(day), policies, day, nowMs)) continue;
      const removed = await withTransaction(async (trx) => {
        // A day the compaction is rebuilding goes in a later run (its rows meanwhile below, row by row).
        if (!(await trx.retention.tryLockDayPartitions(day))) return null;
        const deleted = await trx.retention.dropDayPartition(day);
        return { ...deleted, sessions: await trx.retention.deleteSessionsWithoutTraces(deleted.sessionRowids) };
      });
      if (removed === null) continue;
      for (const [projectId, counts] of removed.byProject) {
        const total = dropped.byProject.get(projectId) ?? { traces: 0, spans: 0 };
        dropped.byProject.set(projectId, { traces: total.traces + counts.traces, spans: total.spans + counts.spans });
      }
      dropped.sessions += removed.sessions;
    }
  };

  /** Returns freed SQLite pages to the file system in short steps (PostgreSQL's autovacuum does this itself). */
  const vacuum = async (): Promise<number> => {
    if (!(await retention.incrementalVacuumEnabled())) return 0;
    let vacuumed = 0;
    for (let free = await retention.freePages(); free > 0 && !stopped; ) {
      const step = Math.min(free, vacuumPages);
      vacuumPages = (
        await paced(
          'pages',
          step,
          { min: MIN_VACUUM_PAGES, max: MAX_VACUUM_PAGES },
          async (pages) => {
            if (writer) return writer.incrementalVacuum(pages);
            await retention.incrementalVacuum(pages);
            return Number.NaN;
          },
          (ms) => ms,
        )
      ).next;
      vacuumed += step;
      const left = await retention.freePages();
      // Ingest may free pages too; never loop on a list that does not shrink.
      if (left >= free) break;
      free = left;
    }
    return vacuumed;
  };

  const run = async (): Promise<RetentionRun> => {
    const startedAt = new Date(clock()).toISOString();
    const projects: ProjectRetentionRun[] = [];
    const policies = await retention.listActivePolicies();
    const days: DroppedDays = { byProject: new Map(), sessions: 0 };
    try {
      if (policies.length > 0) await dropExpiredDays(policies, days);
    } catch (error) {
      // A partition that could not be dropped (a lock not granted in time) is tried again next run; rows still go below.
      onError?.(error);
    }
    for (const policy of policies) {
      if (stopped) break;
      try {
        const result = await applyPolicy(policy);
        const dropped = days.byProject.get(policy.projectId);
        if (dropped) {
          result.deletedTraces += dropped.traces;
          result.deletedSpans += dropped.spans;
        }
        projects.push(result);
        await retention.recordRun(policy.projectId, {
          at: new Date(clock()).toISOString(),
          traces: result.deletedTraces,
          spans: result.deletedSpans,
        });
      } catch (error) {
        // One project's failure (a deadlock with ingest, the database away) must not stop the others; the next run retries.
        onError?.(error);
      }
    }
    // Deleted projects: every trace in the same paced batches, then the row (docs/api.md, "Deleting projects").
    for (const projectId of await retention.deletedProjects()) {
      if (stopped) break;
      try {
        projects.push(await deleteBefore(projectId, EVERY_TRACE));
        if (!stopped) await retention.purgeProject(projectId);
      } catch (error) {
        onError?.(error);
      }
    }
    const deletedAny = projects.some((project) => project.deletedTraces > 0);
    const vacuumedPages = deletedAny ? await vacuum() : 0;
    const report: RetentionRun = {
      startedAt,
      finishedAt: new Date(clock()).toISOString(),
      deletedTraces: projects.reduce((sum, project) => sum + project.deletedTraces, 0),
      deletedSpans: projects.reduce((sum, project) => sum + project.deletedSpans, 0),
      deletedSessions: days.sessions + projects.reduce((sum, project) => sum + project.deletedSessions, 0),
      vacuumedPages,
      projects,
    };
    await retention.writeLastRun(
      JSON.stringify({
        started_at: report.startedAt,
        finished_at: report.finishedAt,
        deleted_traces: report.deletedTraces,
        deleted_spans: report.deletedSpans,
      }),
    );
    lastReport = report;
    return report;
  };

  const runNow = (): Promise<RetentionRun> => {
    const next = chain.then(run, run);
    chain = next.catch(() => {});
    return next;
  };

  const stop = async () => {
    stopped = true;
    await chain;
  };

  return {
    name: 'retention',
    description: "Deletes the traces past each project's retention policy, in short batches (docs/retention.md).",
    intervalMs,
    runNow,
    lastRun: () => lastReport,
    stop,
    async run() {
      await runNow();
      return 'idle';
    },
  };
}
