/**
 * The scheduled-exports job (docs/export.md, "Scheduled exports"): each tick, every enabled export
 * that is due writes the spans (or traces) of its project that arrived since its last run into
 * `<SERVICE_EXPORT_DIR>/<project>/<export>/<UTC time>.<format>`.
 *
 * - What arrived is told by span row id: an export's cursor is the row id it has written up to,
 *   and a run reads the row ids in (cursor, horizon]. Traces are written when their root span
 *   arrives (usually their last span: a root ends last), with the spans stored by then.
 * - The horizon is the newest span row id, read once per run; on PostgreSQL the run then waits
 *   `settleMs`, as a row id handed out before another's may commit after it (the online
 *   evaluation job's reason too); SQLite's one writer commits in row-id order.
 * - The file is written under a temporary name and renamed once complete and synced
 *   (export-files.ts); only then do the run's history row and the moved cursor commit, in one
 *   transaction. A crash in between leaves the file and an unmoved cursor: the next run writes
 *   those rows again, into a new file (at least once, never lost, never half a file).
 * - A run that fails (a full disk, a directory it may not write) records its error and leaves
 *   the cursor; the next run, an interval later, takes the same rows and the new ones.
 * - Rows are read in windows of WINDOW_ROWS row ids, so no statement looks at more than a
 *   window's spans however few match the filter, and the file takes the memory of a page.
 */
import path from 'node:path';
import type { SpansRepository } from '../db/repositories/spans-repository.js';
import type { TracesRepository } from '../db/repositories/traces-repository.js';
import type { ScheduledExportRecord, ScheduledExportsRepository } from '../db/repositories/scheduled-exports-repository.js';
import type { SpanCondition } from '../db/repositories/span-condition-sql.js';
import type { StatementRunner } from '../db/statement-runner.js';
import type { Job, JobOutcome } from '../jobs/job-runner.js';
import { type ExportColumn, type ExportRow, SPAN_COLUMNS, TRACE_COLUMNS } from './export-columns.js';
import { encode } from './export-formats.js';
import { exportFilePath, insideDirectory, removeStaleTemporaries, writeFileAtomically } from './export-files.js';
import { parseExportFilter, PAGE_ROWS, type ExportsService } from './exports-service.js';

export const SCHEDULED_EXPORTS_JOB = 'scheduled-exports';
/** Exports run per tick; more due make the runner come back at once. */
const EXPORTS_PER_TICK = 10;
/** Span row ids one statement looks at. */
const WINDOW_ROWS = PAGE_ROWS;

export interface ScheduledExportJobOptions {
  exports: ScheduledExportsRepository;
  spans: Pick<SpansRepository, 'findByIds'>;
  traces: Pick<TracesRepository, 'findByIds'>;
  rows: Pick<ExportsService, 'spanRows' | 'traceRows'>;
  runStatements: StatementRunner;
  /** SERVICE_EXPORT_DIR. */
  directory: string;
  /** How long a run waits after reading its horizon (0 on SQLite). */
  settleMs: number;
  intervalMs?: number;
  onError?: (error: unknown, exportId: number) => void;
  now?: () => number;
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

export function createScheduledExportJob(options: ScheduledExportJobOptions): Job {
  const { exports, spans, traces, rows, runStatements, directory, settleMs, onError, now = Date.now } = options;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** The rows of the export's project in (afterId, upToId], a page per window of row ids, in row-id order. */
  async function* arrivedRows(
    definition: ScheduledExportRecord,
    condition: SpanCondition | null,
    afterId: number,
    upToId: number,
    signal: AbortSignal,
  ): AsyncGenerator<ExportRow[]> {
    const rootsOnly = definition.target === 'trace';
    for (let low = afterId; low < upToId && !signal.aborted; low += WINDOW_ROWS) {
      // Requests run between windows: on SQLite every statement runs on the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      const high = Math.min(low + WINDOW_ROWS, upToId);
      const arrived = await exports.arrivedSpans(
        definition.projectId,
        { afterId: low, upToId: high },
        { condition, rootsOnly },
        WINDOW_ROWS,
      );
      if (arrived.length === 0) continue;
      if (!rootsOnly) {
        const byId = new Map((await spans.findByIds(arrived.map((span) => span.id))).map((span) => [span.id, span]));
        yield rows.spanRows(arrived.flatMap((span) => byId.get(span.id) ?? []));
        continue;
      }
      // A trace with two root spans is written once.
      const traceIds = [...new Set(arrived.map((span) => span.traceRowid))];
      const byId = new Map((await traces.findByIds(traceIds)).map((trace) => [trace.id, trace]));
      yield rows.traceRows(traceIds.flatMap((id) => byId.get(id) ?? []));
    }
  }

  /** One run of one export: its file (when anything arrived), its history row and its cursor. */
  const runExport = async (definition: ScheduledExportRecord, signal: AbortSignal): Promise<void> => {
    const startedAt = now();
    const nextRunAt = iso(startedAt + definition.intervalMinutes * 60_000);
    const afterId = Number(definition.cursor);
    const base = { exportId: definition.id, startedAt: iso(startedAt), cursorFrom: definition.cursor };
    try {
      const condition = parseExportFilter(definition.filter) ?? null;
      const upToId = Math.max(afterId, await exports.maxSpanId());
      await pause(settleMs, signal);
      const pages = arrivedRows(definition, condition, afterId, upToId, signal);
      let first = await pages.next();
      while (!first.done && first.value.length === 0) first = await pages.next();
      if (signal.aborted) return;
      let written: { file: string | null; bytes: number | null } = { file: null, bytes: null };
      let count = 0;
      if (!first.done) {
        const firstPage = first.value;
        async function* counted(): AsyncGenerator<ExportRow[]> {
          count += firstPage.length;
          yield firstPage;
          for await (const page of pages) {
            count += page.length;
            yield page;
          }
        }
        const columns: readonly ExportColumn[] = definition.target === 'trace' ? TRACE_COLUMNS : SPAN_COLUMNS;
        const relative = exportFilePath(definition.projectName, definition.name, new Date(startedAt), definition.format);
        const full = insideDirectory(directory, relative);
        await removeStaleTemporaries(path.dirname(full));
        const result = await writeFileAtomically(full, encode(definition.format, { columns, pages: counted() }), signal);
        written = { file: path.relative(directory, result.file), bytes: result.bytes };
      }
      await runStatements(
        exports.finishRunStatements(
          { ...base, finishedAt: iso(now()), rowCount: count, ...written, byteCount: written.bytes, error: null, cursorTo: String(upToId) },
          true,
          nextRunAt,
        ),
      );
    } catch (error) {
      // Stopped at shutdown: nothing is recorded, and the next start runs it again.
      if (signal.aborted) return;
      onError?.(error, definition.id);
      // The error is shown to everyone who may read the project: the directory's place on the server is not.
      const message = (error instanceof Error ? error.message : String(error)).split(directory).join('SERVICE_EXPORT_DIR');
      await runStatements(
        exports.finishRunStatements(
          { ...base, finishedAt: iso(now()), rowCount: 0, file: null, byteCount: null, error: message, cursorTo: definition.cursor },
          false,
          nextRunAt,
        ),
      );
    }
  };

  return {
    name: SCHEDULED_EXPORTS_JOB,
    description: 'Writes the spans and traces that arrived since each scheduled export last ran into SERVICE_EXPORT_DIR (docs/export.md).',
    intervalMs: options.intervalMs ?? 15_000,
    firstDelayMs: 5_000,
    async run(signal): Promise<JobOutcome> {
      const due = await exports.due(iso(now()), EXPORTS_PER_TICK);
      for (const definition of due) {
        if (signal.aborted) break;
        await runExport(definition, signal);
      }
      return due.length === EXPORTS_PER_TICK && !signal.aborted ? 'more' : 'idle';
    },
  };
}
