/** Opaque ids in responses, Phoenix style: base64("Type:rowid"); decoded here, in the routes, never in services. */
import type { Identifier } from '../../shared/identifier.js';

export type GlobalType =
  | 'Project'
  | 'Trace'
  | 'Span'
  | 'User'
  | 'ApiKey'
  | 'SpanAnnotation'
  | 'TraceAnnotation'
  | 'ProjectSession'
  | 'ProjectSessionAnnotation'
  | 'DocumentAnnotation'
  | 'Prompt'
  | 'PromptVersion'
  | 'PromptVersionTag'
  | 'Dataset'
  | 'DatasetVersion'
  | 'DatasetExample'
  | 'DatasetLabel'
  | 'SavedView'
  | 'DatasetSplit'
  | 'Experiment'
  | 'ExperimentRun'
  | 'ExperimentEvaluation'
  | 'ExperimentTag'
  | 'GenerativeModel'
  | 'Evaluator'
  | 'EvaluatorVersion'
  | 'OnlineEvalRule'
  | 'OnlineEvalItem'
  | 'CategoricalAnnotationConfig'
  | 'ContinuousAnnotationConfig'
  | 'FreeformAnnotationConfig'
  | 'AnnotationQueue'
  | 'AnnotationQueueItem'
  | 'ScheduledExport'
  | 'ScheduledExportRun'
  | 'AlertRule'
  | 'AlertEvent'
  | 'Dashboard'
  // A position in a list that pages by offset (the comparison sorted by score delta), not a row.
  | 'ListPosition';

/** The opaque id of a row. */
export function toGlobalId(type: GlobalType, id: number): string {
  return Buffer.from(`${type}:${id}`).toString('base64');
}

/** The row id inside an opaque id of the given type, or null when it is not one. */
export function fromGlobalId(type: GlobalType, value: string): number | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const match = /^([A-Za-z]+):(\d{1,15})$/.exec(decoded);
  return match && match[1] === type ? Number(match[2]) : null;
}

/** A path parameter as services take it: the text, and the row id when it is a GlobalID of `type`. */
export function identifier(type: GlobalType, value: string): Identifier {
  return { text: value, rowId: fromGlobalId(type, value) };
}
