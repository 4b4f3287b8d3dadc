/** Response shapes of annotations on every target (Phoenix's SpanAnnotation, TraceAnnotation, SessionAnnotation, …): one shape, named by target. */
import type { AnnotationRecord } from '../../db/repositories/annotations-repository.js';
import type { AnnotationSummary } from '../../annotations/annotations-service.js';
import { toGlobalId } from '../shared/global-id.js';

/** The fields every annotation answer shares. */
function common(annotation: AnnotationRecord) {
  return {
    name: annotation.name,
    annotator_kind: annotation.annotatorKind,
    result: { label: annotation.label, score: annotation.score, explanation: annotation.explanation },
    metadata: annotation.metadata,
    identifier: annotation.identifier,
    source: annotation.source,
    user_id: annotation.userId === null ? null : toGlobalId('User', annotation.userId),
    created_at: annotation.createdAt,
    updated_at: annotation.updatedAt,
  };
}

/** Phoenix's SpanAnnotation. */
export function presentSpanAnnotation(annotation: AnnotationRecord) {
  return { id: toGlobalId('SpanAnnotation', annotation.id), span_id: annotation.target, ...common(annotation) };
}

/** Phoenix's TraceAnnotation. */
export function presentTraceAnnotation(annotation: AnnotationRecord) {
  return { id: toGlobalId('TraceAnnotation', annotation.id), trace_id: annotation.target, ...common(annotation) };
}

/** Phoenix's SessionAnnotation; `session_id` is the session.id text. */
export function presentSessionAnnotation(annotation: AnnotationRecord) {
  return { id: toGlobalId('ProjectSessionAnnotation', annotation.id), session_id: annotation.target, ...common(annotation) };
}

/** Phoenix's SpanDocumentAnnotation. */
export function presentDocumentAnnotation(annotation: AnnotationRecord & { documentPosition: number }) {
  return {
    id: toGlobalId('DocumentAnnotation', annotation.id),
    span_id: annotation.target,
    document_position: annotation.documentPosition,
    ...common(annotation),
  };
}

/** One name's summary (a Sightline shape). */
export function presentAnnotationSummary(summary: AnnotationSummary) {
  return {
    name: summary.name,
    count: summary.count,
    span_count: summary.spanCount,
    trace_count: summary.traceCount,
    mean_score: summary.meanScore,
    score_count: summary.scoreCount,
    labels: summary.labels,
  };
}
