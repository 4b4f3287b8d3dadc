/** Table types for Kysely. Span and trace times are nanoseconds since the epoch (BIGINT). */
import type { ColumnType, Generated } from 'kysely';

/** A BIGINT read back as text (exact) and written as bigint or text. */
export type Nanos = ColumnType<string, bigint | string, bigint | string>;
/** ISO 8601 UTC text, e.g. 2026-11-22T10:00:00.000Z. */
export type Timestamp = string;

export interface ProjectsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when the project is deleted; the retention job then deletes its traces, then the row (0024). */
  deleted_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface TracesTable {
  id: Generated<number>;
  project_id: number;
  trace_id: string;
  start_time: Nanos;
  end_time: Nanos;
  /** The session of the trace (docs/sessions.md); null for traces without a `session.id`. */
  project_session_rowid: ColumnType<number | null, number | null | undefined, number | null>;
  /** The key of the `user.id` its spans carry, `*` for several (span-model/trace-users.ts); null for none. */
  user_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One per `session.id` and project, upserted by the ingest writers (docs/sessions.md). */
export interface ProjectSessionsTable {
  id: Generated<number>;
  project_id: number;
  session_id: string;
  start_time: Nanos;
  end_time: Nanos;
}

export interface SpansTable {
  id: Generated<number>;
  trace_rowid: number;
  project_id: number;
  span_id: string;
  parent_id: string | null;
  name: string;
  span_kind: string;
  start_time: Nanos;
  end_time: Nanos;
  status_code: string;
  status_message: string;
  /** The short attributes (span-model/long-attributes.ts). */
  attributes: string;
  /** The long attribute values, compressed (span-model/long-attributes.ts); null when none, and in rows written before 0019. */
  long_attributes: Buffer | null;
  events: string;
  llm_token_count_prompt: number | null;
  llm_token_count_completion: number | null;
  llm_token_count_total: number | null;
}

/** PostgreSQL only (migration 0048): a span's indexed search words, partitioned by day like `spans`. */
export interface SpanSearchVectorsTable {
  span_rowid: number;
  trace_rowid: number;
  project_id: number;
  /** A tsvector. */
  search_vector: string;
}

/**
 * PostgreSQL only (migration 0049): the spans one ingest transaction stored, until the
 * search-vectors job indexes their words; two arrays in step.
 */
export interface SpanSearchPendingTable {
  id: Generated<number>;
  span_count: number;
  trace_rowids: number[];
  span_rowids: number[];
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  username: string;
  role: 'admin' | 'member';
  auth_method: 'LOCAL' | 'OAUTH2';
  password_hash: string | null;
  password_salt: string | null;
  /** 0 or 1 in both dialects. */
  password_needs_reset: number;
  oauth2_idp: string | null;
  oauth2_sub: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  kind: 'system' | 'user';
  user_id: number | null;
  created_by: number | null;
  name: string;
  description: string | null;
  key_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface AuthTokensTable {
  jti: string;
  session_id: string;
  kind: 'access' | 'refresh';
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface LoginFailuresTable {
  email: string;
  failures: number;
  window_started_at: Timestamp;
  locked_until: Timestamp | null;
}

/** Requests of one client to one rate-limited route in the current window (docs/auth.md). */
export interface RateLimitsTable {
  bucket: string;
  hits: number;
  /** Milliseconds since the epoch. */
  window_started_at: ColumnType<number, number, number>;
}

export interface SpanAnnotationsTable {
  id: Generated<number>;
  span_rowid: number;
  /** The span's trace (migration 0022): PostgreSQL's foreign key to the partitioned spans needs it. */
  trace_rowid: number;
  name: string;
  label: string | null;
  score: number | null;
  explanation: string | null;
  /** JSON object: text in SQLite, jsonb in PostgreSQL (read back as a string or an object). */
  metadata: string;
  annotator_kind: 'LLM' | 'CODE' | 'HUMAN';
  identifier: string;
  source: 'API' | 'APP';
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The columns every annotation table shares (docs/annotations.md). */
export interface AnnotationColumns {
  id: Generated<number>;
  name: string;
  label: string | null;
  score: number | null;
  explanation: string | null;
  /** JSON object: text in SQLite, jsonb in PostgreSQL (read back as a string or an object). */
  metadata: string;
  annotator_kind: 'LLM' | 'CODE' | 'HUMAN';
  identifier: string;
  source: 'API' | 'APP';
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TraceAnnotationsTable extends AnnotationColumns {
  trace_rowid: number;
}

export interface SessionAnnotationsTable extends AnnotationColumns {
  project_session_rowid: number;
}

export interface DocumentAnnotationsTable extends AnnotationColumns {
  span_rowid: number;
  /** The span's trace (migration 0022), as in span_annotations. */
  trace_rowid: number;
  document_position: number;
}

/** A named annotation schema (docs/annotations.md, "Configs"); `config` is JSON text in SQLite, jsonb in PostgreSQL. */
export interface AnnotationConfigsTable {
  id: Generated<number>;
  name: string;
  type: 'CATEGORICAL' | 'CONTINUOUS' | 'FREEFORM';
  config: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Which configs a project offers. */
export interface ProjectAnnotationConfigsTable {
  project_id: number;
  annotation_config_id: number;
}

export interface PasswordResetTokensTable {
  token_hash: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** JSON documents in the prompt tables are text in both dialects (docs/prompts.md). */
export interface PromptsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  metadata: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PromptVersionsTable {
  id: Generated<number>;
  prompt_id: number;
  description: string | null;
  template_type: string;
  template_format: string;
  template: string;
  invocation_parameters: string;
  model_provider: string;
  model_name: string;
  tools: string | null;
  response_format: string | null;
  user_id: number | null;
  created_at: Timestamp;
}

export interface PromptVersionTagsTable {
  id: Generated<number>;
  prompt_id: number;
  name: string;
  description: string | null;
  version_id: number;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Datasets versioned by revisions (docs/datasets.md); JSON documents are text in both dialects. */
export interface DatasetsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  metadata: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when the dataset was deleted: readers skip it; the dataset-deletions job removes its rows. */
  deleted_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
}

export interface DatasetVersionsTable {
  id: Generated<number>;
  dataset_id: number;
  description: string | null;
  metadata: string;
  created_at: Timestamp;
  /** Null while the upload writing the version runs: readers see completed versions only. */
  completed_at: Timestamp | null;
  /** When the upload last wrote a batch (a pending version idle for long was abandoned). */
  last_write_at: Timestamp | null;
  /** Examples the version holds, set when it is completed (0 while pending). */
  example_count: ColumnType<number | string, number | undefined, number>;
}

export interface DatasetExamplesTable {
  id: Generated<number>;
  dataset_id: number;
  external_id: string | null;
  source_span_id: string | null;
  created_at: Timestamp;
}

export interface DatasetExampleRevisionsTable {
  id: Generated<number>;
  example_id: number;
  version_id: number;
  kind: 'CREATE' | 'PATCH' | 'DELETE';
  input: string;
  output: string;
  metadata: string;
  created_at: Timestamp;
}

/** A label any dataset may carry (migration 0028); the name is unique server-wide. */
export interface DatasetLabelsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  /** Lower-case `#rrggbb`. */
  color: string;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DatasetsDatasetLabelsTable {
  dataset_id: number;
  dataset_label_id: number;
}

/** A named set of examples (migration 0028); the name is unique server-wide, as in Phoenix. */
export interface DatasetSplitsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  color: string;
  /** JSON object. */
  metadata: string;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DatasetSplitsDatasetExamplesTable {
  dataset_split_id: number;
  dataset_example_id: number;
}

/** Experiments over a dataset version (docs/experiments.md). */
export interface ExperimentsTable {
  id: Generated<number>;
  dataset_id: number;
  dataset_version_id: number;
  name: string;
  description: string | null;
  metadata: string;
  repetitions: number;
  project_name: string;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when the experiment was deleted: readers skip it; the dataset-deletions job removes its rows. */
  deleted_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
}

/** An evaluator stored on the server (migration 0032, docs/evaluators.md); its definition is in its versions. */
export interface EvaluatorsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  /** LLM or CODE: the annotator kind of its evaluations. */
  kind: string;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One version of an evaluator: its definition (JSON text), numbered from 1. */
export interface EvaluatorVersionsTable {
  id: Generated<number>;
  evaluator_id: number;
  version: number;
  definition: string;
  user_id: number | null;
  created_at: Timestamp;
}

/** An evaluator attached to a dataset: it evaluates the runs of the dataset's experiments. */
export interface DatasetEvaluatorsTable {
  id: Generated<number>;
  dataset_id: number;
  evaluator_id: number;
  user_id: number | null;
  created_at: Timestamp;
}

/** An online evaluation rule of a project (migration 0034, docs/online-evaluation.md). */
export interface OnlineEvalRulesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  /** span, trace or session. */
  target: string;
  /** A span condition (Phoenix's SpanQuery syntax); empty for every span (or root span). */
  filter: string;
  sampling_rate: number;
  session_idle_minutes: number | null;
  rate_limit_per_minute: number | null;
  daily_cost_limit_usd: number | null;
  /** 0 or 1. */
  enabled: number;
  cursor: string;
  backfill_cursor: string | null;
  backfill_until: string | null;
  /** Where what it evaluated goes for review (migration 0036); null for nowhere. */
  queue_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Only items an evaluator scored below this go to the queue; null for every item. */
  queue_score_below: ColumnType<number | null, number | null | undefined, number | null>;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The evaluators a rule runs. */
export interface OnlineEvalRuleEvaluatorsTable {
  rule_id: number;
  evaluator_id: number;
}

/** One item a rule sampled, per evaluator: pending, done, failed or skipped (the ledger of docs/online-evaluation.md). */
export interface OnlineEvalItemsTable {
  id: Generated<number>;
  rule_id: number;
  evaluator_id: number;
  target_kind: string;
  target_rowid: number;
  target_key: string;
  span_rowid: number | null;
  status: string;
  attempts: number;
  next_attempt_at: Timestamp;
  error: string | null;
  evaluator_version: number | null;
  cost_usd: number | null;
  created_at: Timestamp;
  finished_at: Timestamp | null;
}

/** An alert rule of a project (migration 0039, docs/alerts.md). */
export interface AlertRulesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  /** A window metric (metrics/window-metrics.ts). */
  metric: string;
  annotation_name: string | null;
  annotation_label: string | null;
  /** A span condition; empty for every span. */
  filter: string;
  comparator: string;
  threshold: number;
  window_seconds: number;
  /** JSON array of channels. */
  channels: string;
  /** 0 or 1. */
  enabled: number;
  muted_until: string | null;
  /** ok or firing. */
  state: string;
  last_value: number | null;
  last_checked_at: string | null;
  last_delivery_at: string | null;
  last_delivery_error: string | null;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One firing of an alert rule, resolved in place. */
export interface AlertEventsTable {
  id: Generated<number>;
  rule_id: number;
  fired_at: Timestamp;
  fired_value: number;
  resolved_at: Timestamp | null;
  resolved_value: number | null;
  /** 0 or 1: the rule was muted when it fired. */
  muted: number;
}

/** A name pointing at one experiment of a dataset (migration 0029); unique per dataset. */
/** A project's named search, filter and list options (migration 0040). */
export interface SavedViewsTable {
  id: Generated<number>;
  project_id: number;
  user_id: number | null;
  name: string;
  /** The list it applies to: traces, spans or sessions. */
  page: string;
  /** The list's query string (q, filter, sort…), as the UI's address holds it. */
  query: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ExperimentTagsTable {
  id: Generated<number>;
  experiment_id: number;
  dataset_id: number;
  user_id: number | null;
  name: string;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ExperimentExamplesTable {
  experiment_id: number;
  example_id: number;
}

export interface ExperimentRunsTable {
  id: Generated<number>;
  experiment_id: number;
  example_id: number;
  repetition_number: number;
  output: string;
  start_time: string;
  end_time: string;
  trace_id: string | null;
  error: string | null;
  created_at: Timestamp;
}

export interface ExperimentRunAnnotationsTable {
  id: Generated<number>;
  run_id: number;
  name: string;
  annotator_kind: string;
  label: string | null;
  score: number | null;
  explanation: string | null;
  metadata: string;
  trace_id: string | null;
  error: string | null;
  start_time: string;
  end_time: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A model's prices per million tokens, matched against `llm.model_name` (docs/costs.md). */
export interface GenerativeModelsTable {
  id: Generated<number>;
  name: string;
  provider: string | null;
  name_pattern: string;
  is_built_in: number;
  input_per_million: number;
  output_per_million: number;
  cache_read_per_million: number | null;
  cache_write_per_million: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * Per project, minute and dimension value: the spans' count, errors, latency and tokens
 * (migration 0044, docs/dashboards.md); h00 … h63 are the latency histogram's buckets
 * (db/latency-histogram.ts).
 */
export type SpanRollupsTable = {
  project_id: number;
  minute: number;
  /** '' for every span of the minute, else span_kind, name, model, status or root (root spans, migration 0046). */
  dimension: string;
  value: string;
  span_count: number;
  error_count: number;
  latency_sum: number;
  token_count_prompt: number;
  token_count_completion: number;
  token_count_total: number;
  /** USD, added by the cost job once it has priced the minute's spans (migration 0046). */
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
} & Record<`h${string}`, number>;

/** A saved dashboard (migration 0044): of a project, or global when project_id is null. */
export interface DashboardsTable {
  id: Generated<number>;
  project_id: number | null;
  name: string;
  /** JSON array of widgets (dashboards/dashboard-widgets.ts). */
  widgets: string;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The cost of one LLM span, computed once by the cost job. */
export interface SpanCostsTable {
  span_rowid: number;
  trace_rowid: number;
  project_id: number;
  model_id: number | null;
  start_time: Nanos;
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
}

/** Small durable state of background jobs (a watermark, a last run). */
export interface JobStateTable {
  name: string;
  value: string;
}

/** A stored provider key or setting, encrypted (docs/playground.md). */
export interface SecretsTable {
  key: string;
  /** base64 of AES-256-GCM ciphertext followed by its 16-byte tag. */
  ciphertext: string;
  /** base64 of the 12-byte nonce. */
  nonce: string;
  updated_at: Timestamp;
}

/** A scheduled export of a project (migration 0043, docs/export.md). */
export interface ScheduledExportsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  /** span or trace. */
  target: string;
  /** A span condition (Phoenix's SpanQuery syntax); empty for every span or trace. */
  filter: string;
  /** csv, jsonl or parquet. */
  format: string;
  interval_minutes: number;
  /** 0 or 1. */
  enabled: number;
  /** The span row id the export has written up to. */
  cursor: string;
  next_run_at: Timestamp;
  user_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One run of a scheduled export: what it wrote, or why it failed. */
export interface ScheduledExportRunsTable {
  id: Generated<number>;
  export_id: number;
  started_at: Timestamp;
  finished_at: Timestamp;
  /** BIGINT: read back as a number (SQLite) or decimal text (PostgreSQL). */
  row_count: ColumnType<number | string, number, number>;
  /** Relative to SERVICE_EXPORT_DIR; null when nothing was written. */
  file: string | null;
  byte_count: ColumnType<number | string | null, number | null, number | null>;
  error: string | null;
  cursor_from: string;
  cursor_to: string;
}

/** A project's retention policy and what the retention job last did to the project (docs/retention.md). */
export interface RetentionPoliciesTable {
  id: Generated<number>;
  project_id: number;
  max_days: number | null;
  max_traces: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_run_at: Timestamp | null;
  /** BIGINT counters: read back as a number (SQLite) or decimal text (PostgreSQL). */
  last_deleted_traces: ColumnType<number | string, number | undefined, number>;
  last_deleted_spans: ColumnType<number | string, number | undefined, number>;
  total_deleted_traces: ColumnType<number | string, number | undefined, number>;
  total_deleted_spans: ColumnType<number | string, number | undefined, number>;
}

/** PostgreSQL only (migration 0022): trace ids, unique across the day partitions of traces (docs/partitioning.md). */
export interface TraceIdsTable {
  trace_id: string;
  trace_rowid: number;
}

/** OTLP log records waiting for their span (0031, docs/ingest.md "Logs"). */
export interface SpanLogEventsTable {
  id: Generated<number>;
  trace_id: string;
  span_id: string;
  name: string;
  time: Nanos;
  attributes: string;
  received_at: string;
}

/** An annotation queue for human review (migration 0035, docs/annotation-queues.md). */
export interface AnnotationQueuesTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  instructions: string | null;
  created_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The annotation configs a queue's reviewers fill in, in `position` order. */
export interface AnnotationQueueConfigsTable {
  queue_id: number;
  annotation_config_id: number;
  position: number;
}

/** Who may review a queue's items (admins may always). */
export interface AnnotationQueueReviewersTable {
  queue_id: number;
  user_id: number;
}

/** One span, trace or session to review; `target_rowid` is its row id in spans, traces or project_sessions. */
export interface AnnotationQueueItemsTable {
  id: Generated<number>;
  queue_id: number;
  kind: 'span' | 'trace' | 'session';
  target_rowid: number;
  /** A span item's trace, a trace item's own row id; null for sessions. */
  trace_rowid: number | null;
  project_id: number;
  source: 'manual' | 'rule' | 'experiment';
  status: ColumnType<'pending' | 'done' | 'skipped', 'pending' | 'done' | 'skipped' | undefined, 'pending' | 'done' | 'skipped'>;
  locked_by: number | null;
  locked_until: Timestamp | null;
  completed_by: number | null;
  completed_at: Timestamp | null;
  note: string | null;
  created_at: Timestamp;
}

export interface DB {
  projects: ProjectsTable;
  traces: TracesTable;
  trace_ids: TraceIdsTable;
  project_sessions: ProjectSessionsTable;
  spans: SpansTable;
  span_log_events: SpanLogEventsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  auth_tokens: AuthTokensTable;
  login_failures: LoginFailuresTable;
  rate_limits: RateLimitsTable;
  span_annotations: SpanAnnotationsTable;
  trace_annotations: TraceAnnotationsTable;
  session_annotations: SessionAnnotationsTable;
  document_annotations: DocumentAnnotationsTable;
  annotation_configs: AnnotationConfigsTable;
  project_annotation_configs: ProjectAnnotationConfigsTable;
  password_reset_tokens: PasswordResetTokensTable;
  prompts: PromptsTable;
  prompt_versions: PromptVersionsTable;
  prompt_version_tags: PromptVersionTagsTable;
  datasets: DatasetsTable;
  dataset_versions: DatasetVersionsTable;
  dataset_examples: DatasetExamplesTable;
  dataset_example_revisions: DatasetExampleRevisionsTable;
  dataset_labels: DatasetLabelsTable;
  saved_views: SavedViewsTable;
  datasets_dataset_labels: DatasetsDatasetLabelsTable;
  dataset_splits: DatasetSplitsTable;
  dataset_splits_dataset_examples: DatasetSplitsDatasetExamplesTable;
  experiments: ExperimentsTable;
  experiment_examples: ExperimentExamplesTable;
  experiment_tags: ExperimentTagsTable;
  evaluators: EvaluatorsTable;
  evaluator_versions: EvaluatorVersionsTable;
  dataset_evaluators: DatasetEvaluatorsTable;
  online_eval_rules: OnlineEvalRulesTable;
  online_eval_rule_evaluators: OnlineEvalRuleEvaluatorsTable;
  online_eval_items: OnlineEvalItemsTable;
  alert_rules: AlertRulesTable;
  alert_events: AlertEventsTable;
  annotation_queues: AnnotationQueuesTable;
  annotation_queue_configs: AnnotationQueueConfigsTable;
  annotation_queue_reviewers: AnnotationQueueReviewersTable;
  annotation_queue_items: AnnotationQueueItemsTable;
  experiment_runs: ExperimentRunsTable;
  experiment_run_annotations: ExperimentRunAnnotationsTable;
  generative_models: GenerativeModelsTable;
  span_costs: SpanCostsTable;
  span_rollups: SpanRollupsTable;
  span_search_vectors: SpanSearchVectorsTable;
  span_search_pending: SpanSearchPendingTable;
  dashboards: DashboardsTable;
  job_state: JobStateTable;
  secrets: SecretsTable;
  retention_policies: RetentionPoliciesTable;
  scheduled_exports: ScheduledExportsTable;
  scheduled_export_runs: ScheduledExportRunsTable;
}
