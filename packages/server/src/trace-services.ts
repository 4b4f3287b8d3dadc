/** Composition of the services over stored traces, for server.ts (and the query benchmark's breakdown). */
import { UnavailableError } from '@sightline/common';
import { createAnnotationConfigsService } from './annotations/annotation-configs-service.js';
import { createAnnotationsService } from './annotations/annotations-service.js';
import type { Repositories, WithTransaction } from './db/repositories/index.js';
import { createMetricsService } from './metrics/metrics-service.js';
import { createProjectsService } from './projects/projects-service.js';
import { createSessionsService } from './sessions/sessions-service.js';
import { createSpanSubmissionService, type SubmitSpanRows } from './spans/span-submission-service.js';
import { createSpanQueryService } from './spans/span-query-service.js';
import { createSpansService } from './spans/spans-service.js';
import { createTracesService } from './traces/traces-service.js';
import { createSavedViewsService } from './spans/saved-views-service.js';
import { createDashboardQueryService } from './dashboards/dashboard-query.js';
import { createDashboardsService } from './dashboards/dashboards-service.js';

export interface TraceServicesOptions {
  /** Called after a project is deleted: the database writer must forget the project ids it cached. */
  onProjectsDeleted: () => void;
  /** Writes REST-submitted span rows through the ingest queue (POST /v1/projects/{p}/spans); without it that route answers 503. */
  submitSpans?: SubmitSpanRows | undefined;
  /** SERVICE_DASHBOARD_ROLLUPS: the rollups hold every span, so a large project summary may read them. */
  rollups?: boolean;
}

/** The services over stored traces: projects, spans, traces, sessions, metrics, annotations. */
export function createTraceServices(
  { repositories, withTransaction }: { repositories: Repositories; withTransaction: WithTransaction },
  { onProjectsDeleted, submitSpans, rollups = true }: TraceServicesOptions,
) {
  const projects = createProjectsService({ projects: repositories.projects, onProjectsDeleted });
  const sessions = createSessionsService({ sessions: repositories.sessions, costs: repositories.costs, projects });
  return {
    projects,
    spans: createSpansService({ spans: repositories.spans, projects, withTransaction }),
    spanQuery: createSpanQueryService({ spans: repositories.spans, projects }),
    spanSubmission: createSpanSubmissionService({
      spans: repositories.spans,
      projects,
      submit: submitSpans ?? (() => Promise.reject(new UnavailableError('span submission is not available in this process'))),
    }),
    traces: createTracesService({
      traces: repositories.traces,
      spans: repositories.spans,
      costs: repositories.costs,
      projects,
      sessions,
      rootIo: repositories.sessions.rootIo,
      withTransaction,
    }),
    sessions,
    savedViews: createSavedViewsService({ views: repositories.savedViews, projects }),
    dashboards: createDashboardsService({ dashboards: repositories.dashboards, projects }),
    dashboardQuery: createDashboardQueryService({ rollups: repositories.rollups, projects }),
    metrics: createMetricsService({
      metrics: repositories.projectMetrics,
      costs: repositories.costs,
      projects,
      rollups: rollups ? repositories.rollups : null,
    }),
    annotations: createAnnotationsService({
      annotations: repositories.annotations,
      spans: repositories.spans,
      traces: repositories.traces,
      sessionRows: repositories.sessions,
      sessions,
      projects,
      withTransaction,
      configs: repositories.annotationConfigs,
    }),
    annotationConfigs: createAnnotationConfigsService({ configs: repositories.annotationConfigs, projects, withTransaction }),
  };
}

export type TraceServices = ReturnType<typeof createTraceServices>;
