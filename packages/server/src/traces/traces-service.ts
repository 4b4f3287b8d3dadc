/** Traces: the keyset-paginated list of a project (optionally with their spans), and one trace with its span tree. */
import { INPUT_VALUE, OUTPUT_VALUE } from '../span-model/conventions/attribute-names.js';
import { parseTextFilters, type TextFilterParams } from '../spans/text-filters.js';
import type { Identifier } from '../shared/identifier.js';
import type { SpanRecord, SpanSummaryRecord, SpansRepository } from '../db/repositories/spans-repository.js';
import type { TraceRecord, TraceSort, TraceStats, TracesRepository } from '../db/repositories/traces-repository.js';
import type { CostTotals, CostsRepository } from '../db/repositories/costs-repository.js';
import { InvalidInputError, NotFoundError } from '@sightline/common';
import { parseAnnotationFilters } from '../spans/annotation-filter.js';
import { decodeCursor, keysetPage, type SortOrder } from '../shared/cursor.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { SessionsRepository } from '../db/repositories/sessions-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import { parseTimeRange } from '../span-model/time.js';

export interface TraceListParams extends TextFilterParams {
  limit: number;
  cursor?: string | undefined;
  sort?: TraceSort | undefined;
  order?: SortOrder | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
  includeSpans?: boolean | undefined;
  /** Only traces of these sessions (ProjectSession ids or session.id texts); unknown ones match nothing. */
  sessions?: Identifier[] | undefined;
  /** `name` or `name:label`, on the trace or any of its spans (docs/annotations.md, "Filters"). */
  annotations?: string[] | undefined;
  /** `name>=0.5` and the like. */
  annotationScores?: string[] | undefined;
  /** Only the traces of this user.id. */
  userId?: string | undefined;
}

/** A trace with the aggregates of its spans and its first root span. */
export interface TraceView extends TraceRecord {
  stats: TraceStats;
  /** Sums over the trace's priced LLM spans; null when none has a known price (docs/costs.md). */
  cost: CostTotals | null;
  rootSpan: SpanSummaryRecord | null;
  /** The root span's input.value and output.value, cut to PREVIEW_CHARS. */
  input: string | null;
  output: string | null;
}

export interface TraceListItem extends TraceView {
  /** Only when asked for (includeSpans): every span's tree columns, in start order. */
  spans?: SpanSummaryRecord[] | undefined;
}

export interface TraceDetail extends TraceView {
  /** The trace's spans in full, in start order: the first MAX_DETAIL_SPANS of them. */
  spans: SpanRecord[];
  /** True when the trace has more spans than `spans` holds (its stats and cost still count them all). */
  spansTruncated: boolean;
  /** The cost of each priced span, by span row id. */
  spanCosts: Map<number, CostTotals>;
}

const summaryOf = (span: SpanRecord): SpanSummaryRecord => ({
  id: span.id,
  traceRowid: span.traceRowid,
  spanId: span.spanId,
  parentId: span.parentId,
  name: span.name,
  spanKind: span.spanKind,
  statusCode: span.statusCode,
  startTime: span.startTime,
  endTime: span.endTime,
});

const EMPTY_STATS: TraceStats = { spanCount: 0, errorCount: 0, tokenCountPrompt: 0, tokenCountCompletion: 0, tokenCountTotal: 0 };

/** A trace's counts from all of its spans, as TracesRepository.stats counts them in SQL. */
function statsOf(traceSpans: readonly SpanRecord[]): TraceStats {
  const stats = { ...EMPTY_STATS, spanCount: traceSpans.length };
  for (const span of traceSpans) {
    if (span.statusCode === 'ERROR') stats.errorCount++;
    stats.tokenCountPrompt += span.tokenCountPrompt ?? 0;
    stats.tokenCountCompletion += span.tokenCountCompletion ?? 0;
    stats.tokenCountTotal += span.tokenCountTotal ?? 0;
  }
  return stats;
}

const HEX_TRACE_ID = /^[0-9a-fA-F]{32}$/;

export type TracesService = ReturnType<typeof createTracesService>;

export interface TracesServiceDependencies {
  traces: TracesRepository;
  spans: SpansRepository;
  costs: CostsRepository;
  projects: ProjectsService;
  sessions: Pick<SessionsService, 'resolve'>;
  /** The root span's input and output of each trace, for the list's previews. */
  rootIo: SessionsRepository['rootIo'];
  withTransaction: WithTransaction;
}

/** Characters of a root span's input or output a trace list carries: one line of a table, the rest on its page. */
export const PREVIEW_CHARS = 300;

/** An attribute as the list's root I/O reads it: a string as itself, anything else as its JSON. */
const attributeText = (value: unknown): string | null =>
  value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);

const previewOf = (text: string | null) => (text === null ? null : text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);

/** What a transfer did (Phoenix's TransferTracesData). */
export interface TransferResult {
  transferredTraceCount: number;
  destinationProjectId: number;
}

/** Most traces one transfer may name: it runs in one transaction, which must stay short. */
export const MAX_TRANSFER_TRACES = 1000;

/**
 * Most spans a trace's detail carries in full: a trace of 100,000 spans must open without reading
 * them all into memory (docs/api.md, "Traces"); its stats and cost are sums in SQL over every span.
 */
export const MAX_DETAIL_SPANS = 2_000;

/** Most session identifiers one trace list may name. */
const MAX_SESSION_IDENTIFIERS = 100;

export function createTracesService(deps: TracesServiceDependencies) {
  const { traces, spans, costs, projects, sessions, rootIo, withTransaction } = deps;

  const findAnywhere = async (traceIdentifier: Identifier): Promise<TraceRecord | undefined> => {
    const id = traceIdentifier.rowId;
    if (id !== null) return traces.findById(id);
    if (HEX_TRACE_ID.test(traceIdentifier.text)) return traces.findByTraceId(traceIdentifier.text.toLowerCase());
    return undefined;
  };

  /** Stats and first root span of each trace, and optionally all their spans' tree columns. */
  const decorate = async (records: TraceRecord[], includeSpans: boolean): Promise<TraceListItem[]> => {
    const ids = records.map((trace) => trace.id);
    const [stats, summaries, traceCosts, io] = await Promise.all([
      traces.stats(ids),
      spans.summariesOfTraces(ids, { rootsOnly: !includeSpans }),
      costs.traceTotals(ids),
      rootIo(ids),
    ]);
    const byTrace = new Map<number, SpanSummaryRecord[]>();
    for (const summary of summaries) {
      let list = byTrace.get(summary.traceRowid);
      if (!list) {
        list = [];
        byTrace.set(summary.traceRowid, list);
      }
      list.push(summary);
    }
    return records.map((trace) => {
      const traceSpans = byTrace.get(trace.id) ?? [];
      return {
        ...trace,
        stats: stats.get(trace.id) ?? EMPTY_STATS,
        cost: traceCosts.get(trace.id) ?? null,
        rootSpan: traceSpans.find((span) => span.parentId === null) ?? null,
        input: previewOf(io.get(trace.id)?.input ?? null),
        output: previewOf(io.get(trace.id)?.output ?? null),
        ...(includeSpans ? { spans: traceSpans } : {}),
      };
    });
  };

  return {
    /** Traces of the project, newest first by start time (or by latency with sort=latency_ms). */
    async list(projectIdentifier: Identifier, params: TraceListParams): Promise<{ traces: TraceListItem[]; nextCursor: string | null }> {
      const sessionIdentifiers = params.sessions ?? [];
      if (sessionIdentifiers.length > MAX_SESSION_IDENTIFIERS)
        throw new InvalidInputError(
          `too many session_identifier values: ${sessionIdentifiers.length} (at most ${MAX_SESSION_IDENTIFIERS})`,
        );
      const sort = params.sort ?? 'start_time';
      const order = params.order ?? 'desc';
      const kind = `traces.${sort}.${order}`;
      const from = decodeCursor(kind, params.cursor);
      const range = parseTimeRange(params);
      const annotations = parseAnnotationFilters(params.annotations, params.annotationScores);
      const textFilters = parseTextFilters(params);
      const project = await projects.resolve(projectIdentifier);
      let sessionRowids: number[] | undefined;
      if (sessionIdentifiers.length > 0) {
        sessionRowids = [];
        for (const sessionIdentifier of sessionIdentifiers) {
          try {
            sessionRowids.push((await sessions.resolve(sessionIdentifier, project.id)).id);
          } catch (error) {
            // As Phoenix: a session of no trace of this project filters to nothing rather than failing.
            if (!(error instanceof NotFoundError)) throw error;
          }
        }
        if (sessionRowids.length === 0) return { traces: [], nextCursor: null };
      }
      const rows = await traces.list({
        projectId: project.id,
        sessionRowids,
        annotations,
        ...textFilters,
        userId: params.userId?.trim() || undefined,
        startTime: range.start,
        endTime: range.end,
        sort,
        order,
        from,
        limit: params.limit + 1,
      });
      const page = keysetPage(kind, rows, params.limit, (trace) => ({
        key: sort === 'latency_ms' ? BigInt(trace.endTime) - BigInt(trace.startTime) : BigInt(trace.startTime),
        id: trace.id,
      }));
      return { traces: await decorate(page.rows, params.includeSpans ?? false), nextCursor: page.nextCursor };
    },

    /**
     * Moves traces (Trace GlobalIDs or OpenTelemetry trace ids, all of one project) with their spans,
     * annotations and costs to the destination project, in one transaction, as Phoenix's
     * transferTraces. A trace in a session joins the destination's session of the same session.id
     * (created when absent, its window widened); a source session left without traces is deleted
     * with its annotations. 422 for no or too many identifiers and for traces of several projects;
     * 404 naming the traces or the project that do not exist.
     */
    async transfer(traceIdentifiers: Identifier[], destination: Identifier): Promise<TransferResult> {
      if (traceIdentifiers.length === 0) throw new InvalidInputError('trace_identifiers must name at least one trace');
      if (traceIdentifiers.length > MAX_TRANSFER_TRACES)
        throw new InvalidInputError(
          `too many trace_identifiers: ${traceIdentifiers.length} (at most ${MAX_TRANSFER_TRACES} per request; send several requests)`,
        );
      const byHex = [
        ...new Set(
          traceIdentifiers
            .filter((each) => each.rowId === null && HEX_TRACE_ID.test(each.text.trim()))
            .map((each) => each.text.trim().toLowerCase()),
        ),
      ];
      const rowidOfHex = await traces.rowidsByTraceId(byHex);
      const wanted = new Map<number, string>();
      const missing: string[] = [];
      for (const each of traceIdentifiers) {
        const rowid = each.rowId ?? rowidOfHex.get(each.text.trim().toLowerCase());
        if (rowid === undefined) missing.push(each.text);
        else if (!wanted.has(rowid)) wanted.set(rowid, each.text);
      }
      const places = await traces.placesByIds([...wanted.keys()]);
      for (const [rowid, text] of wanted) if (!places.has(rowid)) missing.push(text);
      const sources = new Set([...places.values()].map((place) => place.projectId));
      // A deleted project's traces wait for the retention job: they are gone for every reader, so here too.
      for (const source of sources)
        if (!(await projects.isLive(source)))
          for (const [rowid, place] of places) if (place.projectId === source) missing.push(wanted.get(rowid)!);
      if (missing.length > 0) {
        const shown = [...new Set(missing)].slice(0, 10).map((text) => JSON.stringify(text.slice(0, 100)));
        throw new NotFoundError(`traces not found: ${shown.join(', ')}${missing.length > 10 ? `, and ${missing.length - 10} more` : ''}`);
      }
      if (sources.size > 1)
        throw new InvalidInputError(`the traces belong to ${sources.size} projects; transfer the traces of one project at a time`);
      const target = await projects.resolve(destination);
      const rowids = [...places.keys()];
      await withTransaction(async (trx) => {
        await trx.traces.moveToProject(rowids, target.id);
        // Sessions are per project: each source session's moved traces join the destination's session of its session.id.
        const bySession = new Map<number, number[]>();
        for (const [rowid, place] of places) {
          if (place.sessionRowid === null) continue;
          bySession.set(place.sessionRowid, [...(bySession.get(place.sessionRowid) ?? []), rowid]);
        }
        for (const [sessionRowid, moved] of bySession) {
          const source = await trx.sessions.findById(sessionRowid);
          if (!source) continue;
          // The moved traces' window (BigInt: Math.min and Math.max take numbers only).
          let start = BigInt(places.get(moved[0]!)!.startTime);
          let end = BigInt(places.get(moved[0]!)!.endTime);
          for (const rowid of moved) {
            const place = places.get(rowid)!;
            if (BigInt(place.startTime) < start) start = BigInt(place.startTime);
            if (BigInt(place.endTime) > end) end = BigInt(place.endTime);
          }
          const joined = await trx.sessions.upsertWindow(target.id, source.sessionId, start.toString(), end.toString());
          await trx.sessions.linkTraces(moved, joined);
        }
        await trx.sessions.deleteEmpty([...bySession.keys()]);
      });
      return { transferredTraceCount: rowids.length, destinationProjectId: target.id };
    },

    /** Deletes a trace by Trace GlobalID or OpenTelemetry trace id, with its spans and their annotations; 404 otherwise. */
    async delete(traceIdentifier: Identifier): Promise<void> {
      const trace = await findAnywhere(traceIdentifier);
      if (!trace || !(await traces.deleteById(trace.id)))
        throw new NotFoundError(`trace ${JSON.stringify(traceIdentifier.text)} not found`);
    },

    /** The trace of any live project with this Trace GlobalID or OpenTelemetry trace id (Ctrl+K's lookup); 404 otherwise. */
    async locate(traceIdentifier: Identifier): Promise<TraceRecord> {
      const trace = await findAnywhere(traceIdentifier);
      if (!trace || !(await projects.isLive(trace.projectId)))
        throw new NotFoundError(`trace ${JSON.stringify(traceIdentifier.text)} not found`);
      return trace;
    },

    /** One trace of the project by Trace GlobalID or OpenTelemetry trace id, with all its spans; 404 otherwise. */
    async get(projectIdentifier: Identifier, traceIdentifier: Identifier): Promise<TraceDetail> {
      // The project and the trace are looked up side by side, and so are the spans and their costs:
      // two round trips on PostgreSQL's critical path instead of five (docs/performance.md,
      // "PostgreSQL at 10M spans").
      const [project, found] = await Promise.all([projects.resolve(projectIdentifier), findAnywhere(traceIdentifier)]);
      const trace = found?.projectId === project.id ? found : undefined;
      if (!trace)
        throw new NotFoundError(`trace ${JSON.stringify(traceIdentifier.text)} not found in project ${JSON.stringify(project.name)}`);
      const [read, traceCosts, costsOfTrace] = await Promise.all([
        spans.listOfTrace(trace.id, MAX_DETAIL_SPANS + 1),
        costs.traceTotals([trace.id]),
        costs.spanCostsOfTrace(trace.id, MAX_DETAIL_SPANS),
      ]);
      const traceSpans = read.slice(0, MAX_DETAIL_SPANS);
      // Counted from the spans read when they are all of them: one statement fewer (docs/performance.md,
      // "PostgreSQL at 10M spans"); a longer trace is counted in SQL.
      const stats = read.length > MAX_DETAIL_SPANS ? ((await traces.stats([trace.id])).get(trace.id) ?? EMPTY_STATS) : statsOf(traceSpans);
      // A trace with more priced spans than the page shows has its page's costs read by span id.
      const spanCosts = costsOfTrace ?? (await costs.spanCosts(traceSpans.map((span) => span.id)));
      const root = traceSpans.find((span) => span.parentId === null);
      return {
        ...trace,
        stats,
        cost: traceCosts.get(trace.id) ?? null,
        rootSpan: root ? summaryOf(root) : null,
        input: previewOf(attributeText(root?.attributes[INPUT_VALUE])),
        output: previewOf(attributeText(root?.attributes[OUTPUT_VALUE])),
        spans: traceSpans,
        spansTruncated: read.length > MAX_DETAIL_SPANS,
        spanCosts,
      };
    },
  };
}
