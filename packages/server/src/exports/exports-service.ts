/**
 * Exports of a project's spans or traces (docs/export.md): every row that matches a filter,
 * oldest first, read in keyset pages and handed on a page at a time, so that an export of any
 * size takes the memory of a page. Everything the request says is checked before the first row
 * is read: a bad filter, time or format is a 422 before any byte of the file.
 *
 * A span query condition can test attributes no index serves; the pages of such an export are
 * read within windows of WINDOW_ROWS spans (or traces) of the project's time index, so that no
 * statement looks at more than a window's rows however few of them match (on SQLite a statement
 * holds the event loop until it ends).
 */
import { InvalidInputError } from '@sightline/common';
import type { CostsRepository } from '../db/repositories/costs-repository.js';
import type { SpanCondition } from '../db/repositories/span-condition-sql.js';
import type { SessionsRepository } from '../db/repositories/sessions-repository.js';
import type { SpanFilters, SpanRecord, SpanSummaryRecord, SpansRepository } from '../db/repositories/spans-repository.js';
import type { TraceListQuery, TraceRecord, TracesRepository } from '../db/repositories/traces-repository.js';
import type { ExportFormat, ExportTarget } from '../db/repositories/scheduled-exports-repository.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { KeysetPosition } from '../shared/cursor.js';
import type { Identifier } from '../shared/identifier.js';
import { parseAnnotationFilters } from '../spans/annotation-filter.js';
import { parseAttributeFilter } from '../spans/attribute-filter.js';
import { parseSpanCondition } from '../spans/span-condition.js';
import { parseTimeRange } from '../span-model/time.js';
import { parseTextFilters, type TextFilterParams } from '../spans/text-filters.js';
import { type ExportRow, SPAN_COLUMNS, spanRow, TRACE_COLUMNS, traceRow } from './export-columns.js';
import { FORMATS, type ExportRows } from './export-formats.js';
import { downloadName } from './export-files.js';

/** Rows read per page. */
export const PAGE_ROWS = 1000;
/** Rows of the project's time index one statement of a filtered export looks at. */
export const WINDOW_ROWS = 5000;

/** What a download asks for: the filters of the span list (or of the trace list, for traces). */
export interface ExportRequest extends TextFilterParams {
  format: ExportFormat;
  startTime?: string | undefined;
  endTime?: string | undefined;
  /** `name` or `name:label`, on the span (or on the trace or one of its spans). */
  annotations?: string[] | undefined;
  annotationScores?: string[] | undefined;
  names?: string[] | undefined;
  spanKinds?: string[] | undefined;
  statusCodes?: string[] | undefined;
  /** `key:value` attribute filters. */
  attributes?: string[] | undefined;
  /** `null` (the literal string) selects root spans. */
  parentId?: string | undefined;
  /** Traces only: the traces of this user.id. */
  userId?: string | undefined;
}

export interface ExportDownload extends ExportRows {
  format: ExportFormat;
  fileName: string;
}

export type ExportsService = ReturnType<typeof createExportsService>;

export interface ExportsServiceDependencies {
  spans: SpansRepository;
  traces: TracesRepository;
  costs: CostsRepository;
  /** The root span's input and output of each trace, as the trace list reads them (in full here). */
  rootIo: SessionsRepository['rootIo'];
  projects: Pick<ProjectsService, 'resolve'>;
  now?: () => number;
}

/** A span condition; 422 naming the filter when it is not one. */
export function parseExportFilter(filter: string | undefined): SpanCondition | undefined {
  const text = filter?.trim() ?? '';
  if (text === '') return undefined;
  try {
    return parseSpanCondition(text);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new InvalidInputError(`filter: ${error.message}`);
    throw error;
  }
}

/**
 * Keyset pages of a list in (start time, id) order, `read` asked for `pageRows + 1` rows from a
 * position (inclusive): each page a statement, each within a window of the list when `window` is
 * given (the position of the window's last row, or undefined when the list ends before it).
 */
export async function* keysetPages<T extends { id: number; startTime: string }>(
  read: (from: KeysetPosition | undefined, through: KeysetPosition | undefined) => Promise<T[]>,
  window: ((from: KeysetPosition | undefined) => Promise<KeysetPosition | undefined>) | undefined,
  pageRows = PAGE_ROWS,
): AsyncGenerator<T[]> {
  let from: KeysetPosition | undefined;
  for (;;) {
    // Other requests run between pages: on SQLite every statement runs on the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    const through = window ? await window(from) : undefined;
    const rows = await read(from, through);
    if (rows.length > pageRows) {
      yield rows.slice(0, pageRows);
      const next = rows[pageRows]!;
      from = { key: BigInt(next.startTime), id: next.id };
      continue;
    }
    if (rows.length > 0) yield rows;
    // The window's last row was read: the next one starts right after it.
    if (!through) return;
    from = { key: through.key, id: through.id + 1 };
  }
}

export function createExportsService({ spans, traces, costs, rootIo, projects, now = Date.now }: ExportsServiceDependencies) {
  /** Rows of spans in the order given, with their costs. */
  const spanRows = async (records: SpanRecord[]): Promise<ExportRow[]> => {
    const spanCosts = await costs.spanCosts(records.map((span) => span.id));
    return records.map((span) => spanRow(span, spanCosts.get(span.id)));
  };

  /** Rows of traces in the order given: their stats, costs, first root span with its input and output, session and user. */
  const traceRows = async (records: TraceRecord[]): Promise<ExportRow[]> => {
    const ids = records.map((trace) => trace.id);
    const [stats, traceCosts, roots, io, details] = await Promise.all([
      traces.stats(ids),
      costs.traceTotals(ids),
      spans.summariesOfTraces(ids, { rootsOnly: true }),
      rootIo(ids),
      traces.exportDetails(ids),
    ]);
    const rootOf = new Map<number, SpanSummaryRecord>();
    for (const root of roots) if (!rootOf.has(root.traceRowid)) rootOf.set(root.traceRowid, root);
    return records.map((trace) =>
      traceRow(trace, {
        stats: stats.get(trace.id),
        cost: traceCosts.get(trace.id),
        root: rootOf.get(trace.id),
        io: io.get(trace.id),
        details: details.get(trace.id),
      }),
    );
  };

  const checkFormat = (format: ExportFormat) => {
    if (!FORMATS.includes(format)) throw new InvalidInputError(`format must be one of ${FORMATS.join(', ')}`);
  };

  const fileName = (projectName: string, target: ExportTarget, format: ExportFormat) =>
    downloadName(projectName, target, new Date(now()), format);

  return {
    spanRows,
    traceRows,

    /** Every span of the project that matches, oldest first (start time, then id). */
    async spans(projectIdentifier: Identifier, request: ExportRequest): Promise<ExportDownload> {
      checkFormat(request.format);
      const { search, condition } = parseTextFilters(request);
      const range = parseTimeRange(request);
      const attributes = (request.attributes ?? []).map(parseAttributeFilter);
      const annotations = parseAnnotationFilters(request.annotations, request.annotationScores);
      const parentId =
        request.parentId === undefined ? undefined : request.parentId === 'null' ? null : request.parentId.trim().toLowerCase();
      const project = await projects.resolve(projectIdentifier);
      const filters: SpanFilters = {
        projectId: project.id,
        parentId,
        names: request.names,
        spanKinds: request.spanKinds,
        statusCodes: request.statusCodes,
        startTime: range.start,
        endTime: range.end,
        attributes,
        annotations,
        search,
        condition,
      };
      async function* pages() {
        const window = condition ? (from: KeysetPosition | undefined) => spans.windowEnd(filters, from, WINDOW_ROWS) : undefined;
        const read = (from: KeysetPosition | undefined, through: KeysetPosition | undefined) =>
          spans.list({ ...filters, through }, { limit: PAGE_ROWS + 1, order: 'asc', from });
        for await (const page of keysetPages(read, window)) yield await spanRows(page);
      }
      return { format: request.format, fileName: fileName(project.name, 'span', request.format), columns: SPAN_COLUMNS, pages: pages() };
    },

    /** Every trace of the project that matches (the filter tests its spans), oldest first (start time, then id). */
    async traces(projectIdentifier: Identifier, request: ExportRequest): Promise<ExportDownload> {
      checkFormat(request.format);
      const { search, condition } = parseTextFilters(request);
      const range = parseTimeRange(request);
      const annotations = parseAnnotationFilters(request.annotations, request.annotationScores);
      const project = await projects.resolve(projectIdentifier);
      const query: Omit<TraceListQuery, 'from' | 'limit'> = {
        projectId: project.id,
        startTime: range.start,
        endTime: range.end,
        annotations,
        search,
        condition,
        userId: request.userId?.trim() || undefined,
        sort: 'start_time',
        order: 'asc',
      };
      async function* pages() {
        const window = condition ? (from: KeysetPosition | undefined) => traces.windowEnd(query, from, WINDOW_ROWS) : undefined;
        const read = (from: KeysetPosition | undefined, through: KeysetPosition | undefined) =>
          traces.list({ ...query, through, from, limit: PAGE_ROWS + 1 });
        for await (const page of keysetPages(read, window)) yield await traceRows(page);
      }
      return {
        format: request.format,
        fileName: fileName(project.name, 'trace', request.format),
        columns: TRACE_COLUMNS,
        pages: pages(),
      };
    },
  };
}
