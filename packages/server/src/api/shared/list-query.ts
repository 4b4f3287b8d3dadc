/** The query parameters the span and trace lists share, as their services take them (camelCase). */
import type { SortOrder } from '../../shared/cursor.js';
import { DEFAULT_LIMIT } from './pagination.js';

/** Paging, order and the start-time window. */
export function listWindow(query: {
  limit?: number | undefined;
  cursor?: string | undefined;
  order?: SortOrder | undefined;
  start_time?: string | undefined;
  end_time?: string | undefined;
}) {
  return {
    limit: query.limit ?? DEFAULT_LIMIT,
    cursor: query.cursor,
    order: query.order,
    startTime: query.start_time,
    endTime: query.end_time,
  };
}

/** The annotation filters (docs/annotations.md, "Filters"). */
export function annotationFilters(query: { annotation?: string[] | undefined; annotation_score?: string[] | undefined }) {
  return { annotations: query.annotation, annotationScores: query.annotation_score };
}
