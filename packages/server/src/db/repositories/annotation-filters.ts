/**
 * SQL of the annotation filters of the span and trace lists (docs/annotations.md, "Filters"):
 * correlated EXISTS probes that the unique keys (name, span_rowid, identifier) and
 * (name, trace_rowid, identifier) serve, so a filter costs one index probe per candidate row.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';

export type ScoreOperator = '>=' | '<=' | '>' | '<' | '=';

/** One annotation condition: a name, and optionally a label or a score comparison. */
export interface AnnotationFilter {
  name: string;
  label?: string | undefined;
  score?: { op: ScoreOperator; value: number } | undefined;
}

const OPERATORS: ReadonlySet<string> = new Set(['>=', '<=', '>', '<', '=']);

/** The condition on the annotation row `alias`. */
function matches(filter: AnnotationFilter, alias: string): RawBuilder<SqlBool> {
  const parts = [sql`${sql.ref(`${alias}.name`)} = ${filter.name}`];
  if (filter.label !== undefined) parts.push(sql`${sql.ref(`${alias}.label`)} = ${filter.label}`);
  if (filter.score) {
    // The operator is spliced in, so only the five known ones may pass.
    if (!OPERATORS.has(filter.score.op)) throw new Error(`unknown score operator ${filter.score.op}`);
    parts.push(sql`${sql.ref(`${alias}.score`)} ${sql.raw(filter.score.op)} ${filter.score.value}`);
  }
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

/** True when the span (its row id column) carries a matching annotation. */
export function spanHasAnnotation(spanRowid: string, filter: AnnotationFilter): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from span_annotations fa where fa.span_rowid = ${sql.ref(spanRowid)} and ${matches(filter, 'fa')})`;
}

/** True when the trace (its row id column) or one of its spans carries a matching annotation. */
export function traceHasAnnotation(traceRowid: string, filter: AnnotationFilter): RawBuilder<SqlBool> {
  const trace = sql.ref(traceRowid);
  return sql<SqlBool>`(exists (select 1 from trace_annotations fta where fta.trace_rowid = ${trace} and ${matches(filter, 'fta')}) or exists (select 1 from spans fs join span_annotations fsa on fsa.span_rowid = fs.id where fs.trace_rowid = ${trace} and ${matches(filter, 'fsa')}))`;
}
