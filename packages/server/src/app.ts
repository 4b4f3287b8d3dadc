/** Builds the HTTP application: plugins first, then the app's own routes, all under the root path. */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from './config.js';
import { MAX_PARAM_LENGTH, clientErrorHandler, frameworkErrorsHandler, installErrorHandlers } from './http/error-handler.js';
import { hoistNamedSchemas } from './http/openapi-components.js';
import {
  closeAfterUnfinishedBodies,
  DOCS_CONTENT_SECURITY_POLICY,
  TooManyRequestsError,
  securityHeaders,
  securityHeaderSetter,
} from '@sightline/common';
import { storableInput } from './http/storable-input.js';
import { databaseRateLimitStore } from './http/rate-limit-store.js';
import type { RateLimitsRepository } from './db/repositories/rate-limits-repository.js';
import { finiteNumbers } from './http/finite-numbers.js';
import type { IngestService } from './ingest/ingest-service.js';
import { type IngestLogs, otlpHttpRoutes } from './ingest/otlp-http-route.js';
import { answerReadiness, systemRoutes, type ReadinessCheck } from './api/system/system-routes.js';
import { jobsRoutes } from './api/system/jobs-routes.js';
import type { JobStatus } from './jobs/job-runner.js';
import { authRoutes } from './api/auth/auth-routes.js';
import { usersRoutes } from './api/users/users-routes.js';
import { apiKeysRoutes } from './api/api-keys/api-keys-routes.js';
import { passwordResetRoutes } from './api/auth/password-reset-routes.js';
import { oauth2Routes } from './api/auth/oauth2-routes.js';
import authPlugin from './http/auth-plugin.js';
import type { AuthLayer } from './auth/index.js';
import { projectsRoutes } from './api/projects/projects-routes.js';
import { projectMetricsRoutes } from './api/metrics/metrics-routes.js';
import { spanQueryRoutes } from './api/spans/span-query-routes.js';
import { spansRoutes } from './api/spans/spans-routes.js';
import { tracesRoutes } from './api/traces/traces-routes.js';
import { sessionsRoutes } from './api/sessions/sessions-routes.js';
import { annotationsRoutes } from './api/annotations/annotations-routes.js';
import { annotationConfigsRoutes } from './api/annotation-configs/annotation-configs-routes.js';
import { loadUiPage, uiFallback, uiRoutes } from './http/ui-routes.js';
import { promptsRoutes } from './api/prompts/prompts-routes.js';
import { datasetsRoutes } from './api/datasets/datasets-routes.js';
import { datasetLabelsRoutes } from './api/dataset-labels/dataset-labels-routes.js';
import { savedViewsRoutes } from './api/saved-views/saved-views-routes.js';
import { mcpRoutes } from './api/mcp/mcp-routes.js';
import type { DatasetLabelsService } from './datasets/dataset-labels-service.js';
import { datasetSplitsRoutes } from './api/dataset-splits/dataset-splits-routes.js';
import type { DatasetSplitsService } from './datasets/dataset-splits-service.js';
import { experimentsRoutes } from './api/experiments/experiments-routes.js';
import { experimentTagsRoutes } from './api/experiment-tags/experiment-tags-routes.js';
import { evaluatorsRoutes } from './api/evaluators/evaluators-routes.js';
import { annotationQueuesRoutes } from './api/annotation-queues/annotation-queues-routes.js';
import type { AnnotationQueuesService } from './annotation-queues/annotation-queues-service.js';
import type { EvaluatorsService } from './evaluators/evaluators-service.js';
import { onlineEvalRoutes } from './api/online-eval/online-eval-routes.js';
import { exportsRoutes } from './api/exports/exports-routes.js';
import { scheduledExportsRoutes } from './api/exports/scheduled-exports-routes.js';
import type { ExportsService } from './exports/exports-service.js';
import type { ScheduledExportsService } from './exports/scheduled-exports-service.js';
import { alertsRoutes } from './api/alerts/alerts-routes.js';
import { dashboardsRoutes } from './api/dashboards/dashboards-routes.js';
import type { AlertsService } from './alerts/alerts-service.js';
import type { OnlineRulesService } from './evaluators/online-rules-service.js';
import type { ExperimentTagsService } from './experiments/experiment-tags-service.js';
import type { ExperimentsService } from './experiments/experiments-service.js';
import type { DatasetsService } from './datasets/datasets-service.js';
import type { CostsService } from './costs/costs-service.js';
import { modelPricesRoutes } from './api/model-prices/model-prices-routes.js';
import { playgroundRoutes } from './api/playground/playground-routes.js';
import type { PlaygroundService } from './playground/playground-service.js';
import type { SecretsService } from './playground/secrets-service.js';
import { retentionRoutes, type RetentionLayer } from './api/retention/retention-routes.js';
import { named } from './http/plugin-name.js';
import { lazyCompilersFactory } from './http/lazy-compilers.js';
import type { PromptsService } from './prompts/prompts-service.js';
import type { TraceServices } from './trace-services.js';
import { PHOENIX_COMPATIBLE_VERSION, SIGHTLINE_VERSION } from './version.js';

export interface AppDependencies {
  config: Config;
  ingest: IngestService;
  /** Exports of OTLP log records (spans/span-log-events-service.ts). */
  ingestLogs: IngestLogs;
  auth: AuthLayer;
  query: TraceServices;
  prompts: PromptsService;
  datasets: DatasetsService;
  datasetLabels: DatasetLabelsService;
  datasetSplits: DatasetSplitsService;
  experiments: ExperimentsService;
  experimentTags: ExperimentTagsService;
  evaluators: EvaluatorsService;
  onlineRules: OnlineRulesService;
  exports: ExportsService;
  scheduledExports: ScheduledExportsService;
  alerts: AlertsService;
  annotationQueues: AnnotationQueuesService;
  costs: CostsService;
  secrets: SecretsService;
  playground: PlaygroundService;
  retention: RetentionLayer;
  /** The background jobs' state (GET /v1/system/jobs). */
  jobs: () => JobStatus[];
  /** Where the per-client limits of the auth routes count (shared by every replica). */
  rateLimits: RateLimitsRepository;
  /** GET /readyz: resolves when the database answers. */
  ready: ReadinessCheck;
  logger: FastifyBaseLogger;
}

/** A ready-to-listen Fastify instance serving every HTTP route. */
export async function buildApp({
  config,
  ingest,
  ingestLogs,
  auth,
  query,
  prompts,
  datasets,
  datasetLabels,
  datasetSplits,
  experiments,
  experimentTags,
  evaluators,
  onlineRules,
  exports,
  scheduledExports,
  alerts,
  annotationQueues,
  costs,
  secrets,
  playground,
  retention,
  jobs,
  rateLimits,
  ready,
  logger,
}: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger,
    // Per-request lines would dominate the log under ingest load; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // Behind a load balancer every request comes from it: only then are the client's address (for
    // the per-client limits) and scheme (for the CSRF origin) taken from its X-Forwarded-* headers.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    keepAliveTimeout: 75_000,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorsHandler(securityHeaderSetter({ publicUrl: config.rootUrl })),
    clientErrorHandler,
    schemaController: { compilersFactory: lazyCompilersFactory() },
  });
  // Unknown GET paths that ask for HTML get the UI's page: its router alone knows its pages.
  const uiPage = loadUiPage(config);
  installErrorHandlers(app, uiFallback(config, uiPage));
  securityHeaders(app, { publicUrl: config.rootUrl });
  closeAfterUnfinishedBodies(app);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-sightline-version', SIGHTLINE_VERSION);
    reply.header('x-phoenix-server-version', PHOENIX_COMPATIBLE_VERSION);
  });

  const prefix = config.hostRootPath;
  await app.register(cookie);
  await app.register(rateLimit, {
    global: false,
    store: databaseRateLimitStore(rateLimits, (error) => logger.error({ err: error }, 'deleting expired rate-limit counts failed')),
    errorResponseBuilder: (_request, context) =>
      new TooManyRequestsError(`too many requests; retry in ${Math.ceil(context.ttl / 1000)} seconds`, Math.ceil(context.ttl / 1000)),
  });
  await app.register(authPlugin, { config, authenticator: auth.authenticator });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sightline REST API',
        version: SIGHTLINE_VERSION,
        description: 'Observability server for AI applications; /v1 is compatible with Arize Phoenix.',
      },
      servers: [{ url: prefix || '/' }],
    },
    // Schemas with an `$id` become components under that name (e.g. PromptVersion) rather than def-<n>.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    // Titled schemas (User, Span, …) become named components, so clients get their types by name.
    transformObject: (documents) => ('openapiObject' in documents ? hoistNamedSchemas(documents.openapiObject) : documents.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: `${prefix}/docs`, staticCSP: DOCS_CONTENT_SECURITY_POLICY });

  await app.register(
    named(async function api(scope) {
      storableInput(scope);
      finiteNumbers(scope);
      await scope.register(named(systemRoutes), { ready });
      await scope.register(named(jobsRoutes), { jobs });
      await scope.register(named(otlpHttpRoutes), { ingest, ingestLogs, maxBodyBytes: config.ingest.maxBodyBytes });
      await scope.register(named(authRoutes), { config, sessions: auth.loginSessions, ldapLogin: auth.ldapLogin });
      await scope.register(named(passwordResetRoutes), { config, resets: auth.passwordResets });
      await scope.register(named(oauth2Routes), { config, oidc: auth.oidc, sessions: auth.loginSessions });
      await scope.register(named(usersRoutes), { users: auth.users, config });
      await scope.register(named(apiKeysRoutes), { apiKeys: auth.apiKeys });
      await scope.register(named(projectsRoutes), { projects: query.projects });
      await scope.register(named(projectMetricsRoutes), { metrics: query.metrics });
      await scope.register(named(spansRoutes), { spans: query.spans, spanSubmission: query.spanSubmission });
      await scope.register(named(spanQueryRoutes), { spanQuery: query.spanQuery });
      await scope.register(named(tracesRoutes), { traces: query.traces });
      await scope.register(named(sessionsRoutes), { sessions: query.sessions });
      await scope.register(named(annotationsRoutes), { annotations: query.annotations });
      await scope.register(named(annotationConfigsRoutes), { configs: query.annotationConfigs });
      await scope.register(named(promptsRoutes), { prompts });
      await scope.register(named(datasetsRoutes), { datasets });
      await scope.register(named(datasetLabelsRoutes), { labels: datasetLabels });
      await scope.register(named(savedViewsRoutes), { views: query.savedViews });
      await scope.register(named(datasetSplitsRoutes), { splits: datasetSplits });
      await scope.register(named(experimentsRoutes), { experiments });
      await scope.register(named(experimentTagsRoutes), { tags: experimentTags });
      await scope.register(named(evaluatorsRoutes), { evaluators });
      await scope.register(named(onlineEvalRoutes), { rules: onlineRules });
      await scope.register(named(modelPricesRoutes), { costs });
      await scope.register(named(playgroundRoutes), { playground, secrets });
      await scope.register(named(retentionRoutes), retention);
      // Last among the API routes: their OpenAPI components follow every earlier one's (a smaller diff of openapi.json).
      await scope.register(named(annotationQueuesRoutes), { queues: annotationQueues });
      await scope.register(named(exportsRoutes), { exports });
      await scope.register(named(scheduledExportsRoutes), { scheduled: scheduledExports });
      await scope.register(named(alertsRoutes), { alerts });
      await scope.register(named(mcpRoutes), { rootPath: prefix });
      await scope.register(named(dashboardsRoutes), { dashboards: query.dashboards, dashboardQuery: query.dashboardQuery });
      await scope.register(named(uiRoutes), { page: uiPage });
    }),
    { prefix },
  );
  // Load balancers probe the bare path even when the app lives under a root path.
  if (prefix !== '') {
    app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send('OK'));
    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => answerReadiness(ready, reply));
  }
  return app;
}
