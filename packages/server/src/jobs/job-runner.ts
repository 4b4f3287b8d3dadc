/**
 * The one runner of the server's background jobs (docs/architecture.md, "Adding a background
 * job"). A job says what one run does; the runner owns the rest for every job alike:
 * - its schedule: the first run after `firstDelayMs`, then one every `intervalMs`, or again at
 *   once (after yielding) while the job says it is behind, and never again once it says finished;
 * - its lease across replicas (`JobLeases`: a PostgreSQL advisory lock, so one replica runs a job
 *   at a time; on SQLite the process), taken for each run;
 * - backoff after failures: the delay doubles with each failure in a row, up to five minutes;
 * - shutdown: jobs stop in the reverse order of their registration, each run in progress asked
 *   to stop (its signal aborts) and awaited;
 * - its status: last run, next run, lag, last error (GET /v1/system/jobs).
 */

/** What one run tells the runner: run again at once (still behind), wait the interval, or never run again. */
export type JobOutcome = 'more' | 'idle' | 'finished';

export interface Job {
  /** A stable name: the lease key and the name in the status list. */
  name: string;
  /** One sentence for the status list. */
  description: string;
  intervalMs: number;
  /** Delay before the first run (default: the interval). */
  firstDelayMs?: number | undefined;
  /** One run; should return soon after `signal` aborts. */
  run(signal: AbortSignal): Promise<JobOutcome>;
  /** Asks a run in progress to end early at shutdown (cancel a statement, wake a pause); called once, before the run is awaited. */
  stop?(): Promise<void> | void;
}

/** Where the runner takes a job's lease for a run. */
export interface JobLeases {
  withLease<T>(name: string, work: () => Promise<T>): Promise<{ leased: true; value: T } | { leased: false }>;
}

export type JobState = 'scheduled' | 'running' | 'backing-off' | 'finished' | 'stopped';

export interface JobStatus {
  name: string;
  description: string;
  state: JobState;
  intervalMs: number;
  /** Runs that ended (with or without error) in this process; runs skipped for another replica's lease not counted. */
  runs: number;
  lastRunStartedAt: string | null;
  lastRunFinishedAt: string | null;
  /** When the last run that succeeded finished. */
  lastSuccessAt: string | null;
  /** When the next run is due (null while running, finished or stopped). */
  nextRunAt: string | null;
  /**
   * How long past its interval the job is since its last success (0 when on time, and on a replica
   * whose last run found another holding the lease; counted from the start when it never succeeded).
   */
  lagMs: number;
  /** The last run found another replica holding the lease. */
  leasedElsewhere: boolean;
  lastError: string | null;
  lastErrorAt: string | null;
  consecutiveFailures: number;
}

export interface JobRunner {
  /** Every registered job's status, in registration order. */
  status(): JobStatus[];
  /** Runs the job now (or waits for the run in progress and then runs it), outside its schedule; resolves to its status after. */
  runNow(name: string): Promise<JobStatus>;
  /** Stops every job, in the reverse order of registration, and waits for the runs in progress. */
  stop(): Promise<void>;
}

export interface JobRunnerOptions {
  leases: JobLeases;
  onError?: (job: string, error: unknown) => void;
  now?: () => number;
}

/** Longest pause after failures in a row. */
export const MAX_BACKOFF_MS = 5 * 60_000;
/** Pause between runs of a job that is behind, so that the event loop breathes. */
const AGAIN_MS = 10;

/** The backoff after `failures` failures in a row: the interval (at least a second), doubled each time, at most five minutes. */
export function backoffMs(intervalMs: number, failures: number): number {
  return Math.min(MAX_BACKOFF_MS, Math.max(1000, Math.min(intervalMs, MAX_BACKOFF_MS)) * 2 ** Math.max(0, failures - 1));
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Starts the jobs, in the order given; call `stop()` before closing what they use. */
export function startJobRunner(jobs: Job[], { leases, onError, now = Date.now }: JobRunnerOptions): JobRunner {
  const names = new Set<string>();
  for (const job of jobs) {
    if (names.has(job.name)) throw new Error(`two background jobs are named ${job.name}`);
    names.add(job.name);
  }
  const startedAt = now();

  const entries = jobs.map((job) => {
    const controller = new AbortController();
    const entry = {
      job,
      controller,
      state: 'scheduled' as JobState,
      timer: null as NodeJS.Timeout | null,
      running: null as Promise<void> | null,
      runs: 0,
      lastRunStartedAt: null as number | null,
      lastRunFinishedAt: null as number | null,
      lastSuccessAt: null as number | null,
      nextRunAt: null as number | null,
      leasedElsewhere: false,
      lastError: null as string | null,
      lastErrorAt: null as number | null,
      consecutiveFailures: 0,
      outcome: 'idle' as JobOutcome,
    };

    const schedule = (delayMs: number) => {
      if (controller.signal.aborted || entry.state === 'finished') return;
      if (entry.timer) clearTimeout(entry.timer);
      entry.nextRunAt = now() + delayMs;
      entry.timer = setTimeout(() => void runOnce().then(reschedule), delayMs);
      entry.timer.unref();
    };

    /** One run under the lease (or the run in progress): records its outcome, its error and the times. */
    const runOnce = (): Promise<void> => {
      entry.running ??= (async () => {
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = null;
        entry.nextRunAt = null;
        entry.state = 'running';
        entry.lastRunStartedAt = now();
        let outcome: JobOutcome = 'idle';
        try {
          const leased = await leases.withLease(job.name, () => job.run(controller.signal));
          entry.leasedElsewhere = !leased.leased;
          if (leased.leased) {
            outcome = leased.value;
            entry.runs++;
            entry.lastSuccessAt = now();
            entry.consecutiveFailures = 0;
          }
          entry.state = outcome === 'finished' ? 'finished' : 'scheduled';
          entry.outcome = outcome;
        } catch (error) {
          entry.runs++;
          if (!controller.signal.aborted) {
            entry.consecutiveFailures++;
            entry.lastError = error instanceof Error ? error.message : String(error);
            entry.lastErrorAt = now();
            entry.state = 'backing-off';
            onError?.(job.name, error);
          }
        } finally {
          entry.lastRunFinishedAt = now();
          if (controller.signal.aborted) entry.state = 'stopped';
          entry.running = null;
        }
      })();
      return entry.running;
    };

    const reschedule = () => {
      if (controller.signal.aborted || entry.state === 'finished') return;
      if (entry.state === 'backing-off') schedule(backoffMs(job.intervalMs, entry.consecutiveFailures));
      else schedule(entry.outcome === 'more' ? AGAIN_MS : job.intervalMs);
    };

    return Object.assign(entry, {
      schedule,
      async runNow() {
        await entry.running;
        await runOnce();
        reschedule();
      },
      async stop() {
        controller.abort();
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = null;
        entry.nextRunAt = null;
        await job.stop?.();
        await entry.running;
        entry.state = 'stopped';
      },
    });
  });

  for (const entry of entries) entry.schedule(entry.job.firstDelayMs ?? entry.job.intervalMs);

  function statusOf(entry: (typeof entries)[number]): JobStatus {
    const since = entry.lastSuccessAt ?? startedAt;
    // A replica whose runs find the lease taken is not behind: another one runs the job.
    const onTime = entry.state === 'finished' || entry.state === 'stopped' || entry.leasedElsewhere;
    const lagMs = onTime ? 0 : Math.max(0, now() - since - entry.job.intervalMs);
    return {
      name: entry.job.name,
      description: entry.job.description,
      state: entry.state,
      intervalMs: entry.job.intervalMs,
      runs: entry.runs,
      lastRunStartedAt: iso(entry.lastRunStartedAt),
      lastRunFinishedAt: iso(entry.lastRunFinishedAt),
      lastSuccessAt: iso(entry.lastSuccessAt),
      nextRunAt: iso(entry.nextRunAt),
      lagMs,
      leasedElsewhere: entry.leasedElsewhere,
      lastError: entry.lastError,
      lastErrorAt: iso(entry.lastErrorAt),
      consecutiveFailures: entry.consecutiveFailures,
    };
  }

  return {
    status: () => entries.map(statusOf),
    async runNow(name) {
      const entry = entries.find((each) => each.job.name === name);
      if (!entry) throw new Error(`no background job is named ${name}`);
      await entry.runNow();
      return statusOf(entry);
    },
    async stop() {
      for (const entry of [...entries].reverse()) await entry.stop();
    },
  };
}
