/**
 * Progress of a runner phase: on a terminal one line redrawn in place (bar, done/total, failures,
 * rate, ETA); elsewhere (CI logs, files) a plain line every few seconds and one at the end.
 */

/** Where the runner writes progress and the summary: process.stderr or anything alike. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

export interface ProgressState {
  label: string;
  done: number;
  total: number;
  failed: number;
  elapsedMs: number;
}

/** "850 ms", "12.3 s", "4m05s", "1h02m". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

/** The figures of a progress line without the bar: "runs 37/100 (37%) failed 2 12.3/s ETA 5.1 s". */
export function formatProgress(state: ProgressState): string {
  const percent = state.total === 0 ? 100 : Math.floor((state.done / state.total) * 100);
  const rate = state.elapsedMs > 0 ? state.done / (state.elapsedMs / 1000) : 0;
  const remaining = state.total - state.done;
  const eta = remaining === 0 ? '0 ms' : rate > 0 ? formatDuration((remaining / rate) * 1000) : '?';
  return `${state.label} ${state.done}/${state.total} (${percent}%) failed ${state.failed} ${rate.toFixed(1)}/s ETA ${eta}`;
}

/** A bar of `width` cells for the terminal line. */
export function formatBar(done: number, total: number, width: number): string {
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

export interface ProgressOptions {
  label: string;
  total: number;
  /** null: no output at all. */
  output: OutputStream | null;
  /** Seconds between plain lines when the output is not a terminal (default 5). */
  intervalMs?: number;
  now?: () => number;
}

export interface Progress {
  /** Counts one finished item. */
  tick(failed: boolean): void;
  /** Draws the final state and ends the line. */
  finish(): void;
  readonly state: ProgressState;
}

/** Starts reporting a phase of `total` items. */
export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  const state: ProgressState = { label: options.label, done: 0, total: options.total, failed: 0, elapsedMs: 0 };
  const output = options.output;
  const tty = output?.isTTY === true;
  // A terminal is redrawn often enough to feel live; a log gets a line now and then.
  const interval = tty ? 100 : (options.intervalMs ?? 5000);
  let lastDraw = Number.NEGATIVE_INFINITY;
  let finished = false;

  const draw = () => {
    if (!output) return;
    state.elapsedMs = now() - started;
    lastDraw = now();
    const figures = formatProgress(state);
    if (tty) {
      const columns = output.columns ?? 80;
      const width = Math.max(10, Math.min(30, columns - figures.length - 2));
      output.write(`\r\x1b[2K${formatBar(state.done, state.total, width)} ${figures}`.slice(0, columns + 5));
    } else {
      output.write(`${figures}\n`);
    }
  };
  // Keeps the ETA moving while tasks are slow; unref'd so it never holds the process open.
  const timer = output ? setInterval(() => draw(), interval) : null;
  timer?.unref?.();
  if (tty) draw();

  return {
    state,
    tick(failed) {
      state.done++;
      if (failed) state.failed++;
      if (tty && now() - lastDraw >= interval) draw();
    },
    finish() {
      if (finished) return;
      finished = true;
      if (timer) clearInterval(timer);
      draw();
      if (tty) output?.write('\n');
    },
  };
}
