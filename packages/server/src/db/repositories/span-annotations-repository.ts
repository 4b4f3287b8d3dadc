/** SQL for span annotations: upsert on (name, span, identifier) and keyset lists by span or identifier. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { allSpanRowidsBySpanId } from '../span-ids.js';
import { parseJsonColumn, sqlDialect } from '../sql-dialect.js';

export type AnnotatorKind = 'LLM' | 'CODE' | 'HUMAN';

export interface SpanAnnotationInput {
  spanRowid: number;
  name: string;
  annotatorKind: AnnotatorKind;
  label: string | null;
  score: number | null;
  explanation: string | null;
  metadata: Record<string, unknown>;
  identifier: string;
  source: 'API' | 'APP';
  userId: number | null;
}

export interface SpanAnnotationRecord {
  id: number;
  spanId: string;
  name: string;
  annotatorKind: AnnotatorKind;
  label: string | null;
  score: number | null;
  explanation: string | null;
  metadata: Record<string, unknown>;
  identifier: string;
  source: 'API' | 'APP';
  userId: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface SpanAnnotationListQuery {
  projectId: number;
  spanIds?: string[] | undefined;
  identifiers?: string[] | undefined;
  includeNames?: string[] | undefined;
  excludeNames?: string[] | undefined;
  /** Start at this annotation id (inclusive), newest first. */
  fromId?: number | undefined;
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
}

export type SpanAnnotationsRepository = ReturnType<typeof createSpanAnnotationsRepository>;

/** Span annotations repository over a Kysely connection (or transaction). */
export function createSpanAnnotationsRepository(db: Kysely<DB>, dialect: Dialect) {
  const sqlFor = sqlDialect(dialect);
  return {
    /** Inserts the annotation, or updates the one with the same (name, span, identifier); returns its id. */
    async upsert(input: SpanAnnotationInput, now: string): Promise<number> {
      const values = {
        label: input.label,
        score: input.score,
        explanation: input.explanation,
        metadata: sqlFor.json(input.metadata),
        annotator_kind: input.annotatorKind,
        source: input.source,
        user_id: input.userId,
        updated_at: now,
      };
      const row = await db
        .insertInto('span_annotations')
        .values((eb) => ({
          ...values,
          span_rowid: input.spanRowid,
          trace_rowid: eb.selectFrom('spans').select('spans.trace_rowid').where('spans.id', '=', input.spanRowid),
          name: input.name,
          identifier: input.identifier,
          created_at: now,
        }))
        .onConflict((oc) => oc.columns(['name', 'span_rowid', 'identifier']).doUpdateSet(values))
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** Annotations of spans in the project, newest first. */
    async list(query: SpanAnnotationListQuery): Promise<SpanAnnotationRecord[]> {
      let select = db
        .selectFrom('span_annotations')
        .innerJoin('spans', 'spans.id', 'span_annotations.span_rowid')
        .selectAll('span_annotations')
        .select('spans.span_id')
        .where('spans.project_id', '=', query.projectId);
      if (query.spanIds?.length) {
        const rowids = await allSpanRowidsBySpanId(db, query.spanIds);
        if (rowids.length === 0) return [];
        select = select.where('span_annotations.span_rowid', 'in', rowids);
      }
      if (query.identifiers?.length) select = select.where('span_annotations.identifier', 'in', query.identifiers);
      if (query.includeNames?.length) select = select.where('span_annotations.name', 'in', query.includeNames);
      if (query.excludeNames?.length) select = select.where('span_annotations.name', 'not in', query.excludeNames);
      if (query.fromId !== undefined) select = select.where('span_annotations.id', '<=', query.fromId);
      const rows = await select.orderBy('span_annotations.id', 'desc').limit(query.limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        spanId: row.span_id,
        name: row.name,
        annotatorKind: row.annotator_kind,
        label: row.label,
        score: row.score === null ? null : Number(row.score),
        explanation: row.explanation,
        metadata: parseJsonColumn<Record<string, unknown>>(row.metadata, {}),
        identifier: row.identifier,
        source: row.source,
        userId: row.user_id === null ? null : Number(row.user_id),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
    },
  };
}
