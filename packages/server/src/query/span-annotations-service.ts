/** Span annotations: upsert a batch (all or nothing), list those of a project's spans. */
import type { Identifier } from './identifier.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { AnnotatorKind, SpanAnnotationRecord, SpanAnnotationsRepository } from '../db/repositories/span-annotations-repository.js';
import type { SpansRepository } from '../db/repositories/spans-repository.js';
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type { ProjectsService } from './projects-service.js';
import type { AnnotationConfigsRepository } from '../db/repositories/annotation-configs-repository.js';
import { checkAgainstConfig } from './annotation-configs-service.js';

export interface SpanAnnotationData {
  span_id: string;
  name: string;
  annotator_kind: AnnotatorKind;
  result?:
    | { label?: string | null | undefined; score?: number | null | undefined; explanation?: string | null | undefined }
    | null
    | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  identifier?: string | undefined;
  /** Where the annotation was made: `APP` for the web UI, `API` (the default) otherwise. */
  source?: 'API' | 'APP' | undefined;
}

export interface SpanAnnotationListParams {
  limit: number;
  fromId?: number | undefined;
  span_ids?: string[] | undefined;
  identifier?: string[] | undefined;
  include_annotation_names?: string[] | undefined;
  exclude_annotation_names?: string[] | undefined;
}

/** Most span ids or identifiers one list request may name (as Phoenix). */
export const MAX_FILTER_VALUES = 1000;
/** The name Phoenix reserves for notes (POST /v1/span_notes). */
const RESERVED_NAME = 'note';

export type SpanAnnotationsService = ReturnType<typeof createSpanAnnotationsService>;

export interface SpanAnnotationsServiceDependencies {
  annotations: SpanAnnotationsRepository;
  spans: SpansRepository;
  withTransaction: WithTransaction;
  projects: ProjectsService;
  /** Writes are checked against the annotation config of the same name (docs/annotations.md, "Configs"). */
  configs: Pick<AnnotationConfigsRepository, 'findByNames'>;
  now?: () => string;
}

export function createSpanAnnotationsService(deps: SpanAnnotationsServiceDependencies) {
  const { annotations, spans, withTransaction, projects, configs, now = () => new Date().toISOString() } = deps;

  return {
    /**
     * Creates or updates (same name, span and identifier) each annotation, in one transaction;
     * returns their ids in request order. 404 when a span does not exist, 422 for the reserved name.
     */
    async annotate(items: SpanAnnotationData[], userId: number | null): Promise<number[]> {
      if (items.length === 0) return [];
      const normalized = items.map((item, index) => {
        const name = item.name.trim();
        if (name === '') throw new InvalidInputError(`data[${index}].name must not be blank`);
        if (name === RESERVED_NAME) throw new InvalidInputError(`data[${index}].name: the name "note" is reserved for span notes`);
        return { ...item, name, spanId: item.span_id.trim().toLowerCase() };
      });
      const byName = await configs.findByNames([...new Set(normalized.map((item) => item.name))]);
      const results = normalized.map((item, index) =>
        checkAgainstConfig(
          { name: item.name, label: item.result?.label ?? null, score: item.result?.score ?? null },
          byName.get(item.name),
          `data[${index}].result`,
        ),
      );
      const wanted = [...new Set(normalized.map((item) => item.spanId))];
      const rowids = await spans.rowidsBySpanId(wanted);
      const missing = wanted.filter((spanId) => !rowids.has(spanId));
      if (missing.length > 0) {
        const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, and ${missing.length - 10} more` : '');
        throw new NotFoundError(`spans not found: ${shown}`);
      }
      const timestamp = now();
      return withTransaction(async (trx) => {
        const repository = trx.spanAnnotations;
        const ids: number[] = [];
        for (const [index, item] of normalized.entries()) {
          ids.push(
            await repository.upsert(
              {
                spanRowid: rowids.get(item.spanId)!,
                name: item.name,
                annotatorKind: item.annotator_kind,
                label: results[index]!.label,
                score: results[index]!.score,
                explanation: item.result?.explanation ?? null,
                metadata: item.metadata ?? {},
                identifier: item.identifier ?? '',
                source: item.source ?? 'API',
                userId,
              },
              timestamp,
            ),
          );
        }
        return ids;
      });
    },

    /**
     * Annotations of the project's spans, newest first, filtered by span ids and/or identifiers
     * (at least one is required, as in Phoenix). 404 when only span ids are given and none of
     * them is a span of the project. Fetches limit + 1 rows.
     */
    async list(projectIdentifier: Identifier, params: SpanAnnotationListParams): Promise<SpanAnnotationRecord[]> {
      const spanIds = [...new Set((params.span_ids ?? []).map((id) => id.trim().toLowerCase()).filter((id) => id !== ''))];
      const identifiers = [...new Set(params.identifier ?? [])];
      if (spanIds.length > MAX_FILTER_VALUES)
        throw new InvalidInputError(`too many span_ids: ${spanIds.length} (at most ${MAX_FILTER_VALUES})`);
      if (identifiers.length > MAX_FILTER_VALUES)
        throw new InvalidInputError(`too many identifiers: ${identifiers.length} (at most ${MAX_FILTER_VALUES})`);
      if (spanIds.length === 0 && identifiers.length === 0)
        throw new InvalidInputError('at least one of span_ids or identifier is required');
      const project = await projects.resolve(projectIdentifier);
      const rows = await annotations.list({
        projectId: project.id,
        spanIds,
        identifiers,
        includeNames: params.include_annotation_names,
        excludeNames: params.exclude_annotation_names,
        fromId: params.fromId,
        limit: params.limit + 1,
      });
      if (rows.length === 0 && spanIds.length > 0 && identifiers.length === 0 && !(await spans.anyInProject(project.id, spanIds))) {
        throw new NotFoundError('none of the span_ids is a span of this project');
      }
      return rows;
    },
  };
}
