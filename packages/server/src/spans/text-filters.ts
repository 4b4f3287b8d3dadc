/** The two text filters the span and trace lists take: a full-text search and a span query condition. */
import type { SearchQuery } from '../db/repositories/search-sql.js';
import type { SpanCondition } from '../db/repositories/span-condition-sql.js';
import { parseSearchQuery } from './search-query.js';
import { parseSpanCondition } from './span-condition.js';

export interface TextFilterParams {
  /** Words to find in the spans' inputs, outputs and messages (docs/search.md). */
  search?: string | undefined;
  /** Phoenix's span condition (docs/api.md, "Span queries"), e.g. `span_kind == 'LLM' and latency_ms > 2000`. */
  filter?: string | undefined;
}

/** Both parsed; blank texts filter nothing; 422 for a condition or search that cannot be read. */
export function parseTextFilters(params: TextFilterParams): { search?: SearchQuery; condition?: SpanCondition } {
  const search = params.search?.trim() ? parseSearchQuery(params.search) : undefined;
  const condition = params.filter?.trim() ? parseSpanCondition(params.filter) : undefined;
  return { ...(search && { search }), ...(condition && { condition }) };
}
