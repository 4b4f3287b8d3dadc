/** Every route of the query API (projects, spans, traces, sessions, metrics, annotations) over the query layer. */
import type { FastifyInstance } from 'fastify';
import type { QueryLayer } from '../query/index.js';
import { annotationConfigsRoutes } from './annotation-configs-routes.js';
import { annotationsRoutes } from './annotations-routes.js';
import { projectMetricsRoutes } from './project-metrics-routes.js';
import { projectsRoutes } from './projects-routes.js';
import { sessionsRoutes } from './sessions-routes.js';
import { spanAnnotationsRoutes } from './span-annotations-routes.js';
import { spansRoutes } from './spans-routes.js';
import { tracesRoutes } from './traces-routes.js';

export async function queryRoutes(app: FastifyInstance, { query }: { query: QueryLayer }) {
  await app.register(projectsRoutes, { projects: query.projects });
  await app.register(projectMetricsRoutes, { metrics: query.metrics });
  await app.register(spansRoutes, { spans: query.spans, spanSubmission: query.spanSubmission });
  await app.register(tracesRoutes, { traces: query.traces });
  await app.register(sessionsRoutes, { sessions: query.sessions });
  await app.register(spanAnnotationsRoutes, { spanAnnotations: query.spanAnnotations });
  await app.register(annotationsRoutes, { annotations: query.annotations });
  await app.register(annotationConfigsRoutes, { configs: query.annotationConfigs });
}
