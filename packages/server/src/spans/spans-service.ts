/** Spans: the filtered, keyset-paginated list of a project, and one span by id. */
import type { Identifier } from '../shared/identifier.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { SpanRecord, SpansRepository } from '../db/repositories/spans-repository.js';
import { NotFoundError } from '@sightline/common';
import { parseAnnotationFilters } from './annotation-filter.js';
import { parseAttributeFilter } from './attribute-filter.js';
import { decodeCursor, keysetPage, type SortOrder } from '../shared/cursor.js';
import type { ProjectsService } from '../projects/projects-service.js';
import { parseTimeRange } from '../span-model/time.js';
import { parseTextFilters, type TextFilterParams } from './text-filters.js';

export interface SpanListParams extends TextFilterParams {
  limit: number;
  cursor?: string | undefined;
  order?: SortOrder | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
  traceIds?: string[] | undefined;
  spanIds?: string[] | undefined;
  /** `null` (the literal string) selects root spans. */
  parentId?: string | undefined;
  names?: string[] | undefined;
  spanKinds?: string[] | undefined;
  statusCodes?: string[] | undefined;
  /** `key:value` attribute filters. */
  attributes?: string[] | undefined;
  /** `name` or `name:label` (docs/annotations.md, "Filters"). */
  annotations?: string[] | undefined;
  /** `name>=0.5` and the like. */
  annotationScores?: string[] | undefined;
}

export interface SpanPage {
  spans: SpanRecord[];
  nextCursor: string | null;
}

/** Newest spans whose keys are read, and most keys answered: enough for completion, cheap on every keystroke. */
const ATTRIBUTE_KEY_SAMPLE = 2_000;
const MAX_ATTRIBUTE_KEYS = 500;

const HEX_SPAN_ID = /^[0-9a-fA-F]{16}$/;

const lower = (values: string[] | undefined) => values?.map((value) => value.trim().toLowerCase());

export type SpansService = ReturnType<typeof createSpansService>;

export interface SpansServiceDependencies {
  spans: SpansRepository;
  projects: ProjectsService;
  withTransaction: WithTransaction;
}

export function createSpansService({ spans, projects, withTransaction }: SpansServiceDependencies) {
  /** One span by Span GlobalID or OpenTelemetry span id (16 hex digits); 404 otherwise. */
  const get = async (spanIdentifier: Identifier): Promise<SpanRecord> => {
    const id = spanIdentifier.rowId;
    let span: SpanRecord | undefined;
    if (id !== null) span = await spans.findById(id);
    else if (HEX_SPAN_ID.test(spanIdentifier.text)) span = await spans.findBySpanId(spanIdentifier.text.toLowerCase());
    // A deleted project's spans stay until the retention job reaches them; readers never see them.
    if (!span || !(await projects.isLive(span.projectId))) throw new NotFoundError(`span ${JSON.stringify(spanIdentifier.text)} not found`);
    return span;
  };

  return {
    /** Spans of the project matching every filter, newest first (start_time, then id) unless `order=asc`. */
    async list(projectIdentifier: Identifier, params: SpanListParams): Promise<SpanPage> {
      const order = params.order ?? 'desc';
      const kind = `spans.start_time.${order}`;
      const from = decodeCursor(kind, params.cursor);
      const range = parseTimeRange(params);
      const attributes = (params.attributes ?? []).map(parseAttributeFilter);
      const annotations = parseAnnotationFilters(params.annotations, params.annotationScores);
      const textFilters = parseTextFilters(params);
      const parentId = params.parentId === undefined ? undefined : params.parentId === 'null' ? null : params.parentId.trim().toLowerCase();
      const project = await projects.resolve(projectIdentifier);
      const rows = await spans.list(
        {
          projectId: project.id,
          traceIds: lower(params.traceIds),
          spanIds: lower(params.spanIds),
          parentId,
          names: params.names,
          spanKinds: params.spanKinds,
          statusCodes: params.statusCodes,
          startTime: range.start,
          endTime: range.end,
          attributes,
          annotations,
          ...textFilters,
        },
        { limit: params.limit + 1, order, from },
      );
      const page = keysetPage(kind, rows, params.limit, (span) => ({ key: BigInt(span.startTime), id: span.id }));
      return { spans: page.rows, nextCursor: page.nextCursor };
    },

    get,

    /** Attribute keys seen in the project's newest spans, for completion in the filter editor. */
    async attributeKeys(projectIdentifier: Identifier): Promise<string[]> {
      const project = await projects.resolve(projectIdentifier);
      return spans.recentAttributeKeys(project.id, ATTRIBUTE_KEY_SAMPLE, MAX_ATTRIBUTE_KEYS);
    },

    /**
     * Deletes one span by Span GlobalID or OpenTelemetry span id, as Phoenix does: its children
     * stay (as orphans) and a trace left without spans goes too. 404 when there is no such span.
     */
    async delete(spanIdentifier: Identifier): Promise<void> {
      const span = await get(spanIdentifier);
      await withTransaction(async (trx) => {
        const deleted = await trx.spans.deleteById(span.id);
        if (!deleted) throw new NotFoundError(`span ${JSON.stringify(spanIdentifier.text)} not found`);
        if (!(await trx.spans.anyInTrace(deleted.traceRowid))) await trx.traces.deleteById(deleted.traceRowid);
      });
    },
  };
}
