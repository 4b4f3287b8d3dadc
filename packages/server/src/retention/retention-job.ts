/**
 * The retention job (docs/retention.md): every interval, for each project with a policy, deletes
 * whole traces oldest first — those that started more than max_days ago and those beyond the
 * newest max_traces — in small transactions, pausing between them so the ingest writer (its own
 * connection; on SQLite a separate thread) and the UI never wait long for the database. Then it
 * removes the sessions left without traces and, on a SQLite file in incremental auto-vacuum
 * mode, hands the freed pages back to the file system in small steps.
 */
import type { RetentionPolicyRecord, TraceBound } from '../db/repositories/retention-repository.js';
import type { Repositories, WithTransaction } from '../db/repositories/index.js';

const NANOS_PER_DAY = 86_400_000_000_000n;

export interface RetentionJobOptions {
  /** The repositories outside transactions (reads, run records). */
  repositories: Pick<Repositories, 'retention'>;
  withTransaction: WithTransaction;
  /** Pause between runs (ms); 60 s by default (SERVICE_RETENTION_INTERVAL_SECONDS). */
  intervalMs?: number;
  /** Traces deleted per transaction: bounds how long one transaction holds the write lock. */
  batchTraces?: number;
  /** Free pages returned to the file system per step of SQLite's incremental vacuum. */
  vacuumPages?: number;
  /** Shortest pause after each transaction (ms); the pause is at least as long as the transaction took. */
  minPauseMs?: number;
  /** Now in milliseconds since the epoch (tests and benchmarks move the clock). */
  clock?: () => number;
  onError?: (error: unknown) => void;
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

export interface RetentionJob {
  /** Runs the job now, after any run in progress; resolves to what it deleted. */
  runNow(): Promise<RetentionRun>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The later of two bounds in (start time, row id) order; traces before it are deleted. */
function later(a: TraceBound | null, b: TraceBound | null): TraceBound | null {
  if (!a || !b) return a ?? b;
  if (a.startTime !== b.startTime) return a.startTime > b.startTime ? a : b;
  return a.id >= b.id ? a : b;
}

/** Starts the job; call `stop()` before closing the database. */
export function startRetentionJob({
  repositories,
  withTransaction,
  intervalMs = 60_000,
  batchTraces = 1000,
  vacuumPages = 1000,
  minPauseMs = 5,
  clock = Date.now,
  onError,
}: RetentionJobOptions): RetentionJob {
  const { retention } = repositories;
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<unknown> = Promise.resolve();
  let stopped = false;

  /** Runs `work`, then yields for at least as long as it took, so other writers get the database half the time or more. */
  const paced = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    await sleep(Math.max(minPauseMs, performance.now() - started));
    return result;
  };

  /** The bound before which the policy deletes every trace, or null when it deletes none. */
  const boundOf = async (policy: RetentionPolicyRecord): Promise<TraceBound | null> => {
    const byAge =
      policy.maxDays === null ? null : { startTime: BigInt(clock()) * 1_000_000n - BigInt(policy.maxDays) * NANOS_PER_DAY, id: 0 };
    const byCount = policy.maxTraces === null ? null : ((await retention.nthNewestTrace(policy.projectId, policy.maxTraces)) ?? null);
    return later(byAge, byCount);
  };

  const applyPolicy = async (policy: RetentionPolicyRecord): Promise<ProjectRetentionRun> => {
    const run: ProjectRetentionRun = { projectId: policy.projectId, deletedTraces: 0, deletedSpans: 0, deletedSessions: 0 };
    const bound = await boundOf(policy);
    // Traces arriving meanwhile start after the bound (or are as old as the ones deleted), so the loop ends.
    while (bound && !stopped) {
      const ids = await retention.oldestTracesBefore(policy.projectId, bound, batchTraces);
      if (ids.length === 0) break;
      const deleted = await paced(() =>
        withTransaction(async (trx) => {
          const result = await trx.retention.deleteTraces(ids);
          const sessions = await trx.retention.deleteSessionsWithoutTraces(result.sessionRowids);
          return { ...result, sessions };
        }),
      );
      run.deletedTraces += deleted.traces;
      run.deletedSpans += deleted.spans;
      run.deletedSessions += deleted.sessions;
      if (ids.length < batchTraces) break;
    }
    return run;
  };

  /** Returns freed SQLite pages to the file system in short steps (PostgreSQL's autovacuum does this itself). */
  const vacuum = async (): Promise<number> => {
    if (!(await retention.incrementalVacuumEnabled())) return 0;
    let vacuumed = 0;
    for (let free = await retention.freePages(); free > 0 && !stopped; ) {
      const step = Math.min(free, vacuumPages);
      await paced(() => retention.incrementalVacuum(step));
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
    for (const policy of await retention.listActivePolicies()) {
      if (stopped) break;
      try {
        const result = await applyPolicy(policy);
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
    const deletedAny = projects.some((project) => project.deletedTraces > 0);
    const vacuumedPages = deletedAny ? await vacuum() : 0;
    const report: RetentionRun = {
      startedAt,
      finishedAt: new Date(clock()).toISOString(),
      deletedTraces: projects.reduce((sum, project) => sum + project.deletedTraces, 0),
      deletedSpans: projects.reduce((sum, project) => sum + project.deletedSpans, 0),
      deletedSessions: projects.reduce((sum, project) => sum + project.deletedSessions, 0),
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
    return report;
  };

  const runNow = (): Promise<RetentionRun> => {
    const next = chain.then(run, run);
    chain = next.catch(() => {});
    return next;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        await runNow();
      } catch (error) {
        onError?.(error);
      }
      schedule();
    }, intervalMs);
    timer.unref();
  };
  schedule();

  return {
    runNow,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await chain;
    },
  };
}
