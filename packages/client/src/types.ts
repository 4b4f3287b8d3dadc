/**
 * The API's named shapes, from the components of the server's OpenAPI document
 * (src/generated/api.ts): import these instead of declaring the shapes again.
 */
import type { components } from './generated/api.js';

type Schemas = components['schemas'];

export type User = Schemas['User'];
export type Viewer = Schemas['Viewer'];
export type SystemViewer = Schemas['SystemViewer'];
export type AnonymousViewer = Schemas['AnonymousViewer'];
export type AuthConfig = Schemas['AuthConfig'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type UserApiKey = Schemas['UserApiKey'];
export type BackgroundJob = Schemas['BackgroundJob'];
export type Project = Schemas['Project'];
export type ProjectSummary = Schemas['ProjectSummary'];
export type ProjectTimeseries = Schemas['ProjectTimeseries'];
export type TimeseriesBucket = Schemas['TimeseriesBucket'];
export type Span = Schemas['Span'];
export type SpanDetail = Schemas['SpanDetail'];
export type SpanContext = Schemas['SpanContext'];
export type SpanEvent = Schemas['SpanEvent'];
export type Trace = Schemas['TraceData'];
export type TraceSpan = Schemas['TraceSpanData'];
export type TraceDetail = Schemas['TraceDetail'];
export type SpanAnnotation = Schemas['SpanAnnotation'];
export type SpanAnnotationData = Schemas['SpanAnnotationData'];
export type AnnotationResult = Schemas['AnnotationResult'];
export type TraceAnnotation = Schemas['TraceAnnotation'];
export type SessionAnnotation = Schemas['SessionAnnotation'];
export type AnnotationSummary = Schemas['AnnotationSummary'];
export type CategoricalAnnotationConfig = Schemas['CategoricalAnnotationConfig'];
export type ContinuousAnnotationConfig = Schemas['ContinuousAnnotationConfig'];
export type FreeformAnnotationConfig = Schemas['FreeformAnnotationConfig'];
export type AnnotationConfig = CategoricalAnnotationConfig | ContinuousAnnotationConfig | FreeformAnnotationConfig;
export type AnnotationConfigData =
  | Schemas['CategoricalAnnotationConfigData']
  | Schemas['ContinuousAnnotationConfigData']
  | Schemas['FreeformAnnotationConfigData'];
export type Session = Schemas['SessionData'];
export type SessionTrace = Schemas['SessionTraceData'];
export type ErrorBody = Schemas['ErrorBody'];
export type Dataset = Schemas['Dataset'];
export type DatasetVersion = Schemas['DatasetVersion'];
export type DatasetExample = Schemas['DatasetExample'];
export type Experiment = Schemas['Experiment'];
export type ExperimentRun = Schemas['ExperimentRun'];
export type ExperimentAnnotationSummary = Schemas['ExperimentAnnotationSummary'];
export type ExperimentComparisonRow = Schemas['ExperimentComparisonRow'];
export type ComparedExperimentRun = Schemas['ComparedExperimentRun'];
export type ModelPrice = Schemas['ModelPrice'];
export type RetentionPolicy = Schemas['RetentionPolicy'];
export type RetentionRun = Schemas['RetentionRun'];
export type ValidationIssue = Schemas['ValidationIssue'];
export type StatusCode = Span['status_code'];
export type Role = User['role'];
export type AuthMethod = User['auth_method'];

/** A success envelope: `{"data": …}`. */
export interface Envelope<T> {
  data: T;
}

/** An evaluator stored on the server (docs/evaluators.md); `Evaluator` is the client-side one of runExperiment. */
export type StoredEvaluator = Schemas['Evaluator'];
export type StoredEvaluatorVersion = Schemas['EvaluatorVersion'];
export type EvaluatorDefinition = Schemas['EvaluatorDefinition'];
export type EvaluatorTryResult = Schemas['EvaluatorTryResult'];
export type JudgeTemplate = Schemas['JudgeTemplate'];
/** An online evaluation rule of a project, its figures and its items (docs/online-evaluation.md). */
export type OnlineEvalRule = Schemas['OnlineEvalRule'];
export type AlertRule = Schemas['AlertRule'];
export type AlertEvent = Schemas['AlertEvent'];
export type AlertChannelTestResult = Schemas['AlertChannelTestResult'];
export type WindowMetricValue = Schemas['WindowMetricValue'];
export type OnlineEvalRuleStats = Schemas['OnlineEvalRuleStats'];
export type OnlineEvalItem = Schemas['OnlineEvalItem'];

/** A page of a list: `{"data": […], "next_cursor": …}`. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Annotation queues for human review (docs/annotation-queues.md). */
export type AnnotationQueue = Schemas['AnnotationQueue'];
export type AnnotationQueueDetail = Schemas['AnnotationQueueDetail'];
export type AnnotationQueueItem = Schemas['AnnotationQueueItem'];
export type AnnotationQueueReviewItem = Schemas['AnnotationQueueReviewItem'];
export type AnnotationQueueProgress = Schemas['AnnotationQueueProgress'];
export type AnnotationQueueReviewer = Schemas['AnnotationQueueReviewer'];
export type Dashboard = Schemas['Dashboard'];
export type DashboardWidget = Schemas['DashboardWidget'];
export type DashboardQueryResult = Schemas['DashboardQueryResult'];

/** Scheduled exports of a project into the server's export directory, and their runs (docs/export.md). */
export type ScheduledExport = Schemas['ScheduledExport'];
export type ScheduledExportRun = Schemas['ScheduledExportRun'];
