/**
 * Who may call each route: the one permission table of the server. Every registered route
 * must have a row here (start-up fails otherwise), and the auth plugin enforces the row on
 * every request. Finer rules that depend on the target (own key or someone else's, own user
 * record or another's) are noted in `rule`, written as named functions in policies.ts, and
 * enforced by the service named there.
 */

/**
 * - `public`: no credential needed.
 * - `any`: any valid credential: a user's session or user API key, or a system API key.
 * - `user`: a user (session or user API key); a system key is refused.
 * - `admin`: an admin user (session or user API key); members and system keys are refused.
 * - `data-admin`: an admin user or a system key; members are refused (the admin-only deletions of
 *   project data: the contract's §5.1, as docs/api.md, "Permissions", records it).
 */
export type Access = 'public' | 'any' | 'user' | 'admin' | 'data-admin';

export interface RouteRule {
  access: Access;
  /** Only with a browser session or access token: an API key cannot do this (e.g. mint keys). */
  sessionOnly?: boolean;
  /** Answers 403 "authentication is not enabled" when auth is off. */
  authOnly?: boolean;
  /** Allowed while the user's password must be changed (everything else answers 403). */
  duringPasswordReset?: boolean;
  /** The spec rule(s) this row implements, for readers and the permission tests. */
  rule?: string;
}

/** Key of the table: method and route pattern without the root path, e.g. `GET /v1/users/:id`. */
export type RouteKey = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD'} /${string}`;

export const PERMISSIONS: Readonly<Record<RouteKey, RouteRule>> = {
  // System
  'GET /healthz': { access: 'public' },
  'GET /readyz': { access: 'public', rule: 'readiness probe: says only whether the database answers' },
  'GET /arize_phoenix_version': { access: 'any' },
  'GET /openapi.json': { access: 'public', rule: 'the API description holds no data' },
  // API docs page (swagger-ui) and its assets
  'GET /docs': { access: 'public' },
  'GET /docs/': { access: 'public' },
  'GET /docs/static/index.html': { access: 'public' },
  'GET /docs/static/swagger-initializer.js': { access: 'public' },
  'GET /docs/json': { access: 'public' },
  'GET /docs/yaml': { access: 'public' },
  'GET /docs/static/*': { access: 'public' },

  // Trace ingest (OTLP/HTTP); gRPC applies the same rule in its own server.
  'POST /v1/traces': { access: 'any', rule: 'trace submission needs an API key when auth is on' },
  'POST /v1/logs': { access: 'any', rule: 'trace submission needs an API key when auth is on' },

  // Authentication
  'GET /auth/config': { access: 'public' },
  'POST /auth/login': { access: 'public', authOnly: true },
  'POST /auth/ldap/login': { access: 'public', authOnly: true, rule: 'LDAP login (docs/ldap.md)' },
  'POST /auth/logout': { access: 'public', authOnly: true },
  'GET /auth/logout': { access: 'public', authOnly: true },
  'POST /auth/refresh': { access: 'public', authOnly: true },
  'POST /auth/password-reset-email': { access: 'public', authOnly: true, rule: 'password recovery (local users only)' },
  'POST /auth/password-reset': { access: 'public', authOnly: true, rule: 'password recovery (local users only)' },
  'GET /oauth2/:idp/login': { access: 'public', authOnly: true, rule: 'OAuth2 / OpenID Connect login' },
  'POST /oauth2/:idp/login': { access: 'public', authOnly: true, rule: 'OAuth2 / OpenID Connect login (form post)' },
  'GET /oauth2/:idp/tokens': { access: 'public', authOnly: true, rule: 'OAuth2 redirect URI' },

  // The current user
  'GET /v1/user': { access: 'any', duringPasswordReset: true },
  'PATCH /v1/user': {
    access: 'user',
    authOnly: true,
    duringPasswordReset: true,
    rule: 'Change Own Password; Change Own Username (users-service: only the password while a reset is pending)',
  },

  // Users (admin)
  'GET /v1/users': { access: 'admin', authOnly: true, rule: 'List All Users' },
  'POST /v1/users': { access: 'admin', authOnly: true, rule: 'Create User' },
  'GET /v1/users/:user_id': { access: 'user', authOnly: true, rule: "Fetch Other User's Info: admin, or the user itself (users-service)" },
  'PATCH /v1/users/:user_id': { access: 'admin', authOnly: true, rule: "Change Other's Password; Change Other's Username; role changes" },
  'DELETE /v1/users/:user_id': { access: 'admin', authOnly: true, rule: 'Delete User' },

  // User API keys
  'GET /v1/user/api_keys': { access: 'user', authOnly: true, rule: 'own user keys' },
  'POST /v1/user/api_keys': { access: 'user', authOnly: true, sessionOnly: true, rule: 'Create Own User API Keys' },
  'DELETE /v1/user/api_keys/:api_key_id': {
    access: 'user',
    authOnly: true,
    rule: "Delete Own User API Keys; Delete Other's User API Keys: admin only (api-keys-service)",
  },
  'GET /v1/users/api_keys': { access: 'admin', authOnly: true, rule: 'List All User API Keys' },

  // System API keys
  'GET /v1/system/jobs': { access: 'data-admin', rule: "background jobs' status: admins and system keys (operators' monitoring)" },
  'GET /v1/system/api_keys': { access: 'admin', authOnly: true, rule: 'List All System API Keys' },
  'POST /v1/system/api_keys': { access: 'admin', authOnly: true, sessionOnly: true, rule: 'Create System API Keys' },
  'DELETE /v1/system/api_keys/:api_key_id': { access: 'admin', authOnly: true, rule: 'Delete System API Keys' },

  // Projects, spans, traces, annotations: project data, readable and writable with any valid credential (system keys too).
  'GET /v1/projects': { access: 'any', rule: 'project data' },
  'POST /v1/projects': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier': { access: 'any', rule: 'project data' },
  'PUT /v1/projects/:project_identifier': { access: 'any', rule: 'project data' },
  'DELETE /v1/projects/:project_identifier': {
    access: 'data-admin',
    rule: 'deleting project data: admins and system keys (docs/api.md); the default project cannot be deleted (projects-service)',
  },
  'GET /v1/projects/:project_identifier/summary': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier/timeseries': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier/spans': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier/spans/otlpv1': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier/saved_views': { access: 'any', rule: 'project data' },
  'POST /v1/projects/:project_identifier/saved_views': { access: 'any', rule: 'project data (a named search of the project)' },
  'DELETE /v1/projects/:project_identifier/saved_views/:view_id': { access: 'any', rule: 'project data (a named search of the project)' },
  'POST /mcp': { access: 'any', rule: "the MCP server: each tool's API call is checked against its own route's row, as the caller" },
  'GET /mcp': { access: 'any', rule: 'the MCP server (stateless: 405)' },
  'DELETE /mcp': { access: 'any', rule: 'the MCP server (stateless: 405)' },
  'GET /v1/traces/:trace_identifier': { access: 'any', rule: 'project data (which project holds a trace)' },
  'GET /v1/projects/:project_identifier/span_attribute_keys': { access: 'any', rule: 'project data (the filter editor completes them)' },
  'POST /v1/projects/:project_identifier/spans': { access: 'any', rule: 'project data (span submission, like trace ingest)' },
  'GET /v1/spans/:span_identifier': { access: 'any', rule: 'project data' },
  'POST /v1/spans': { access: 'any', rule: "project data (a read: Phoenix's span query)" },
  'GET /v1/projects/:project_identifier/traces': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier/traces/:trace_identifier': { access: 'any', rule: 'project data' },
  'POST /v1/span_annotations': { access: 'any', rule: 'project data (annotations record the calling user, if any)' },
  'GET /v1/projects/:project_identifier/span_annotations': { access: 'any', rule: 'project data' },
  // Annotations and notes of every target (docs/annotations.md): project data, members included.
  'POST /v1/trace_annotations': { access: 'any', rule: 'project data (annotations record the calling user, if any)' },
  'POST /v1/session_annotations': { access: 'any', rule: 'project data (annotations record the calling user, if any)' },
  'POST /v1/document_annotations': { access: 'any', rule: 'project data (annotations record the calling user, if any)' },
  'POST /v1/span_notes': { access: 'any', rule: 'project data (notes record the calling user, if any)' },
  'POST /v1/trace_notes': { access: 'any', rule: 'project data (notes record the calling user, if any)' },
  'POST /v1/session_notes': { access: 'any', rule: 'project data (notes record the calling user, if any)' },
  'GET /v1/projects/:project_identifier/trace_annotations': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier/session_annotations': { access: 'any', rule: 'project data' },
  // Bulk deletes of annotations (API.md §5.1: members delete annotations too); as Phoenix, a member's delete
  // reaches only the annotations they wrote (annotations-service deleteMatching, through memberUserId).
  'DELETE /v1/projects/:project_identifier/span_annotations': { access: 'any', rule: 'annotations: a member deletes only their own' },
  'DELETE /v1/projects/:project_identifier/trace_annotations': { access: 'any', rule: 'annotations: a member deletes only their own' },
  'DELETE /v1/projects/:project_identifier/session_annotations': { access: 'any', rule: 'annotations: a member deletes only their own' },
  'GET /v1/spans/:span_identifier/document_annotations': { access: 'any', rule: 'project data' },
  // Annotation configs (docs/annotations.md, "Configs"): the schemas annotations are checked against; project data, members included.
  'GET /v1/annotation_configs': { access: 'any', rule: 'project data' },
  'POST /v1/annotation_configs': { access: 'any', rule: 'project data (annotation configs)' },
  'GET /v1/annotation_configs/:config_identifier': { access: 'any', rule: 'project data' },
  'PUT /v1/annotation_configs/:config_identifier': { access: 'any', rule: 'project data (annotation configs)' },
  'DELETE /v1/annotation_configs/:config_identifier': { access: 'any', rule: 'project data (annotation configs)' },
  'GET /v1/projects/:project_identifier/annotation_configs': { access: 'any', rule: 'project data' },
  'PUT /v1/projects/:project_identifier/annotation_configs': { access: 'any', rule: 'project data (annotation configs)' },
  'PUT /v1/projects/:project_identifier/annotation_configs/:config_identifier': {
    access: 'any',
    rule: 'project data (annotation configs)',
  },
  'DELETE /v1/projects/:project_identifier/annotation_configs/:config_identifier': {
    access: 'any',
    rule: 'project data (annotation configs)',
  },
  'GET /v1/projects/:project_identifier/annotation_summaries': { access: 'any', rule: 'project data' },
  'DELETE /v1/spans/:span_identifier': { access: 'data-admin', rule: 'deleting spans: admins and system keys (docs/api.md)' },
  'DELETE /v1/traces/:trace_identifier': { access: 'data-admin', rule: 'deleting traces: admins and system keys (docs/api.md)' },
  // Moving traces deletes none (a session left empty goes, its annotations with it): project data, as Phoenix lets members do it.
  'POST /v1/traces/transfer': { access: 'any', rule: 'project data (moves traces between projects)' },

  // Sessions (docs/sessions.md): project data; deleting them is admin-only like other deletions of traces.
  'GET /v1/projects/:project_identifier/sessions': { access: 'any', rule: 'project data' },
  'GET /v1/sessions/:session_identifier': { access: 'any', rule: 'project data' },
  'DELETE /v1/sessions/:session_identifier': {
    access: 'data-admin',
    rule: 'deleting sessions (and their traces): admins and system keys (docs/api.md)',
  },
  'POST /v1/sessions/delete': { access: 'data-admin', rule: 'deleting sessions (and their traces): admins and system keys (docs/api.md)' },

  // Datasets (docs/datasets.md): evaluation data, for admins, members and system keys alike.
  'POST /v1/datasets/upload': { access: 'any', rule: 'evaluation data' },
  'GET /v1/datasets': { access: 'any', rule: 'evaluation data' },
  'GET /v1/datasets/:id': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/datasets/:id': { access: 'any', rule: 'evaluation data (members delete datasets too: docs/datasets.md)' },
  'GET /v1/datasets/:id/versions': { access: 'any', rule: 'evaluation data' },
  'GET /v1/datasets/:id/examples': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/datasets/:id/examples/:example_id': {
    access: 'any',
    rule: 'evaluation data (members delete examples as they delete datasets; older versions keep them)',
  },
  'GET /v1/datasets/:id/jsonl': { access: 'any', rule: 'evaluation data' },
  'GET /v1/datasets/:id/csv': { access: 'any', rule: 'evaluation data' },
  'GET /v1/datasets/:id/jsonl/openai_ft': { access: 'any', rule: 'evaluation data' },
  'GET /v1/datasets/:id/jsonl/openai_evals': { access: 'any', rule: 'evaluation data' },
  // Dataset labels (docs/datasets.md, "Labels"): evaluation data; members create, change and delete them too (API.md §5.1).
  'GET /v1/dataset_labels': { access: 'any', rule: 'evaluation data' },
  'POST /v1/dataset_labels': { access: 'any', rule: 'evaluation data (the label records the calling user, if any)' },
  'GET /v1/dataset_labels/:label_id': { access: 'any', rule: 'evaluation data' },
  'PATCH /v1/dataset_labels/:label_id': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/dataset_labels/:label_id': { access: 'any', rule: 'evaluation data (members delete labels as they delete datasets)' },
  'GET /v1/datasets/:dataset_identifier/labels': { access: 'any', rule: 'evaluation data' },
  'PUT /v1/datasets/:dataset_identifier/labels': { access: 'any', rule: 'evaluation data' },
  'PUT /v1/datasets/:dataset_identifier/labels/:label_id': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/datasets/:dataset_identifier/labels/:label_id': { access: 'any', rule: 'evaluation data' },
  // Dataset splits (docs/datasets.md, "Splits"): evaluation data; members create, change and delete them too (API.md §5.1).
  'POST /v1/datasets/:dataset_identifier/splits': { access: 'any', rule: 'evaluation data (the split records the calling user, if any)' },
  'PATCH /v1/datasets/:dataset_identifier/splits/:split_id': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/datasets/:dataset_identifier/splits/:split_id': {
    access: 'any',
    rule: 'evaluation data (members delete splits as they delete datasets)',
  },

  // Experiments (docs/experiments.md): evaluation data, for admins, members and system keys alike.
  'POST /v1/datasets/:dataset_id/experiments': { access: 'any', rule: 'evaluation data (the experiment records the calling user, if any)' },
  'GET /v1/datasets/:dataset_id/experiments': { access: 'any', rule: 'evaluation data' },
  'GET /v1/experiments/:experiment_id': { access: 'any', rule: 'evaluation data' },
  'PATCH /v1/experiments/:experiment_id': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/experiments/:experiment_id': { access: 'any', rule: 'evaluation data' },
  'GET /v1/experiments/:experiment_id/tags': { access: 'any', rule: 'evaluation data' },
  'POST /v1/experiments/:experiment_id/tags': { access: 'any', rule: 'evaluation data (the tag records the calling user, if any)' },
  'DELETE /v1/experiments/:experiment_id/tags/:tag_identifier': { access: 'any', rule: 'evaluation data' },
  'POST /v1/experiments/:experiment_id/runs': { access: 'any', rule: 'evaluation data' },
  'GET /v1/experiments/:experiment_id/runs': { access: 'any', rule: 'evaluation data' },
  'GET /v1/experiments/:experiment_id/incomplete-runs': { access: 'any', rule: 'evaluation data' },
  'GET /v1/experiments/:experiment_id/incomplete-evaluations': { access: 'any', rule: 'evaluation data' },
  'POST /v1/experiment_evaluations': { access: 'any', rule: 'evaluation data' },
  'GET /v1/experiments/:experiment_id/json': { access: 'any', rule: 'evaluation data' },
  'GET /v1/experiments/:experiment_id/csv': { access: 'any', rule: 'evaluation data' },
  'GET /v1/datasets/:dataset_id/compare': { access: 'any', rule: 'evaluation data' },

  // Model prices (docs/costs.md): everyone reads them; admins set the overrides (server configuration).
  'GET /v1/model_prices': { access: 'any', rule: 'prices behind the cost figures' },
  'POST /v1/model_prices': { access: 'admin', rule: 'price overrides are server configuration' },
  'PATCH /v1/model_prices/:model_id': { access: 'admin', rule: 'price overrides are server configuration' },
  'DELETE /v1/model_prices/:model_id': { access: 'admin', rule: 'price overrides are server configuration' },

  // Evaluators (docs/evaluators.md): evaluation data, like datasets; trying a judge spends provider credits as a playground run does.
  'GET /v1/evaluators': { access: 'any', rule: 'evaluation data' },
  'POST /v1/evaluators': { access: 'any', rule: 'evaluation data (the version records the calling user, if any)' },
  'POST /v1/evaluators/try': { access: 'any', rule: 'runs a definition on an item, stores nothing; a judge calls a configured provider' },
  'GET /v1/evaluators/:evaluator_id': { access: 'any', rule: 'evaluation data' },
  'PATCH /v1/evaluators/:evaluator_id': { access: 'any', rule: 'evaluation data (a new definition is a new version; the old ones stay)' },
  'DELETE /v1/evaluators/:evaluator_id': { access: 'any', rule: 'evaluation data (the evaluations it made stay)' },
  'GET /v1/evaluators/:evaluator_id/versions': { access: 'any', rule: 'evaluation data' },
  'POST /v1/evaluators/:evaluator_id/try': { access: 'any', rule: 'as POST /v1/evaluators/try' },
  'GET /v1/evaluator_templates': { access: 'any', rule: 'built-in judge templates' },
  // Online evaluation rules (docs/online-evaluation.md): evaluation data of a project, like its annotations; a rule spends judge
  // credits as the playground does, so it is for callers who may run the playground and evaluators.
  'GET /v1/projects/:project_identifier/online_eval_rules': { access: 'any', rule: 'evaluation data' },
  'POST /v1/projects/:project_identifier/online_eval_rules': {
    access: 'any',
    rule: 'evaluation data; its judges call configured providers',
  },
  'GET /v1/online_eval_rules/:rule_id': { access: 'any', rule: 'evaluation data' },
  'PATCH /v1/online_eval_rules/:rule_id': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/online_eval_rules/:rule_id': { access: 'any', rule: 'evaluation data (the annotations it made stay)' },
  'POST /v1/online_eval_rules/:rule_id/backfill': { access: 'any', rule: 'evaluation data; its judges call configured providers' },
  'GET /v1/online_eval_rules/:rule_id/stats': { access: 'any', rule: 'evaluation data' },
  'GET /v1/online_eval_rules/:rule_id/items': { access: 'any', rule: 'evaluation data' },
  'POST /v1/online_eval_rules/:rule_id/retry_failed': { access: 'any', rule: 'evaluation data; its judges call configured providers' },
  // Alert rules (docs/alerts.md): project data like its online rules; they call out only to hosts and SMTP the operator configured.
  'GET /v1/projects/:project_identifier/alert_rules': { access: 'any', rule: 'project data' },
  'POST /v1/projects/:project_identifier/alert_rules': { access: 'any', rule: 'project data; channels limited to operator-allowed hosts' },
  'GET /v1/projects/:project_identifier/window_metric': { access: 'any', rule: 'project data' },
  // Dashboards (docs/dashboards.md)
  'POST /v1/dashboards/query': { access: 'any', rule: 'project data (aggregates of the projects named)' },
  'GET /v1/dashboards': { access: 'any', rule: 'project data' },
  'POST /v1/dashboards': { access: 'any', rule: 'project data (a dashboard of a project, or of every project)' },
  'GET /v1/dashboards/:dashboard_id': { access: 'any', rule: 'project data' },
  'PUT /v1/dashboards/:dashboard_id': { access: 'any', rule: 'project data' },
  'DELETE /v1/dashboards/:dashboard_id': { access: 'any', rule: 'project data' },
  'GET /v1/projects/:project_identifier/default_dashboard': { access: 'any', rule: 'project data' },
  'PUT /v1/projects/:project_identifier/default_dashboard': { access: 'any', rule: 'project data' },
  'GET /v1/alert_rules/:rule_id': { access: 'any', rule: 'project data' },
  'PATCH /v1/alert_rules/:rule_id': { access: 'any', rule: 'project data; channels limited to operator-allowed hosts' },
  'DELETE /v1/alert_rules/:rule_id': { access: 'any', rule: 'project data' },
  'GET /v1/alert_rules/:rule_id/history': { access: 'any', rule: 'project data' },
  'POST /v1/alert_rules/:rule_id/test': { access: 'any', rule: "project data; calls the rule's configured channels" },
  'GET /v1/datasets/:dataset_id/evaluators': { access: 'any', rule: 'evaluation data' },
  'PUT /v1/datasets/:dataset_id/evaluators/:evaluator_id': { access: 'any', rule: 'evaluation data (the job then evaluates new runs)' },
  'DELETE /v1/datasets/:dataset_id/evaluators/:evaluator_id': { access: 'any', rule: 'evaluation data' },
  // Annotation queues (docs/annotation-queues.md): admins and members create and fill them (evaluation data, system keys too);
  // reviewing needs a user, and annotation-queues-service lets only the queue's reviewers and admins (policies.ts mayReviewQueue).
  'GET /v1/annotation_queues': { access: 'any', rule: 'evaluation data' },
  'POST /v1/annotation_queues': { access: 'any', rule: 'evaluation data (the queue records the calling user, if any)' },
  'GET /v1/annotation_queues/:queue_id': { access: 'any', rule: 'evaluation data' },
  'PATCH /v1/annotation_queues/:queue_id': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/annotation_queues/:queue_id': { access: 'any', rule: 'evaluation data (the annotations written stay)' },
  'GET /v1/annotation_queues/:queue_id/reviewers': { access: 'any', rule: 'evaluation data' },
  'PUT /v1/annotation_queues/:queue_id/reviewers': { access: 'any', rule: 'evaluation data: who may review the queue' },
  'GET /v1/annotation_queues/:queue_id/annotation_configs': { access: 'any', rule: 'evaluation data' },
  'PUT /v1/annotation_queues/:queue_id/annotation_configs': { access: 'any', rule: 'evaluation data' },
  'GET /v1/annotation_queues/:queue_id/items': { access: 'any', rule: 'evaluation data' },
  'POST /v1/annotation_queues/:queue_id/items': { access: 'any', rule: 'evaluation data: adds spans, traces, sessions to review' },
  'DELETE /v1/annotation_queues/:queue_id/items': { access: 'any', rule: 'evaluation data (the annotations written stay)' },
  'GET /v1/annotation_queues/:queue_id/items/:item_id': { access: 'any', rule: 'evaluation data' },
  'GET /v1/annotation_queues/:queue_id/progress': { access: 'any', rule: 'evaluation data' },
  'GET /v1/annotation_queues/:queue_id/export': { access: 'any', rule: 'evaluation data (streamed download)' },
  'POST /v1/annotation_queues/:queue_id/next': { access: 'user', rule: "reviewing: the queue's reviewers and admins (mayReviewQueue)" },
  'GET /v1/annotation_queues/:queue_id/previous': { access: 'user', rule: "reviewing: the queue's reviewers and admins (mayReviewQueue)" },
  'POST /v1/annotation_queues/:queue_id/items/:item_id/submit': {
    access: 'user',
    rule: "reviewing: the queue's reviewers and admins (mayReviewQueue); writes HUMAN annotations by the caller",
  },
  'POST /v1/annotation_queues/:queue_id/items/:item_id/skip': {
    access: 'user',
    rule: "reviewing: the queue's reviewers and admins (mayReviewQueue)",
  },
  'POST /v1/annotation_queues/:queue_id/items/:item_id/release': {
    access: 'user',
    rule: 'reviewing: the holder of the lock or an admin (mayReviewQueue)',
  },
  // Exports (docs/export.md): a download is a read of project data, for everyone who may list spans and traces. Scheduled exports
  // write files into the operator's directory (SERVICE_EXPORT_DIR) on the server: everyone sees them, admins set and run them.
  'GET /v1/projects/:project_identifier/spans/export': { access: 'any', rule: 'project data (streamed download)' },
  'GET /v1/projects/:project_identifier/traces/export': { access: 'any', rule: 'project data (streamed download)' },
  'GET /v1/scheduled_exports/status': { access: 'any', rule: 'whether the server has an export directory' },
  'GET /v1/projects/:project_identifier/scheduled_exports': { access: 'any', rule: 'project data' },
  'POST /v1/projects/:project_identifier/scheduled_exports': {
    access: 'admin',
    rule: "scheduled exports write files on the server's disk: admins (as retention policies)",
  },
  'GET /v1/scheduled_exports/:export_id': { access: 'any', rule: 'project data' },
  'PATCH /v1/scheduled_exports/:export_id': { access: 'admin', rule: "scheduled exports write files on the server's disk: admins" },
  'DELETE /v1/scheduled_exports/:export_id': { access: 'admin', rule: "scheduled exports write files on the server's disk: admins" },
  'GET /v1/scheduled_exports/:export_id/runs': { access: 'any', rule: 'project data' },
  'POST /v1/scheduled_exports/:export_id/run': { access: 'admin', rule: "scheduled exports write files on the server's disk: admins" },
  // Playground (docs/playground.md): anyone may run a prompt; provider keys are the admins'.
  'POST /v1/chat/completions': { access: 'any', rule: 'playground runs, traced to the playground project' },
  'PUT /v1/secrets': { access: 'admin', rule: 'provider keys are server configuration' },
  'GET /v1/secrets': { access: 'admin', rule: 'provider keys are server configuration (names only)' },
  // Retention (docs/retention.md): everyone sees a project's policy; setting one, or running the job, deletes data: admins only.
  'GET /v1/projects/:project_identifier/retention': { access: 'any', rule: 'project data' },
  'PUT /v1/projects/:project_identifier/retention': { access: 'admin', rule: 'setting retention policies: admins (API.md §5.1)' },
  'POST /v1/retention/run': { access: 'admin', rule: 'runs the retention job now: admins (operators and tests)' },

  // Prompts (docs/prompts.md): evaluation data, for admins, members and system keys alike.
  'GET /v1/prompts': { access: 'any', rule: 'evaluation data' },
  'POST /v1/prompts': { access: 'any', rule: 'evaluation data (versions record the calling user, if any)' },
  'PATCH /v1/prompts/:prompt_identifier': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/prompts/:prompt_identifier': { access: 'any', rule: 'evaluation data' },
  'GET /v1/prompts/:prompt_identifier/versions': { access: 'any', rule: 'evaluation data' },
  'GET /v1/prompts/:prompt_identifier/latest': { access: 'any', rule: 'evaluation data' },
  'GET /v1/prompts/:prompt_identifier/tags/:tag_name': { access: 'any', rule: 'evaluation data' },
  'GET /v1/prompt_versions/:prompt_version_id': { access: 'any', rule: 'evaluation data' },
  'GET /v1/prompt_versions/:prompt_version_id/tags': { access: 'any', rule: 'evaluation data' },
  'POST /v1/prompt_versions/:prompt_version_id/tags': { access: 'any', rule: 'evaluation data' },
  'DELETE /v1/prompt_versions/:prompt_version_id/tags/:tag_name': { access: 'any', rule: 'evaluation data' },

  // Web UI (http/ui-routes.ts): its index and static files. Every other page of the single-page app is served by the
  // not-found handler to GETs that accept HTML (no route, no row: the UI's router alone lists its pages).
  'GET /': { access: 'public', rule: "the UI's static files and login pages" },
  'GET /assets/*': { access: 'public', rule: "the UI's static files" },
};

/** The table row for a route, or undefined when the route was never declared. */
export function ruleFor(method: string, pattern: string): RouteRule | undefined {
  return PERMISSIONS[`${method.toUpperCase()} ${pattern}` as RouteKey];
}
