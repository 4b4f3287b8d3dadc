/** Composition of the query layer (projects, spans, traces, sessions, metrics, annotations): repositories → services. */
import { UnavailableError } from '@sightline/common';
import type { Database } from '../db/database.js';
import { createDataAccess } from '../db/repositories/index.js';
import { createAnnotationConfigsService, type AnnotationConfigsService } from './annotation-configs-service.js';
import { createAnnotationsService, type AnnotationsService } from './annotations-service.js';
import { createMetricsService, type MetricsService } from './metrics-service.js';
import { createProjectsService, type ProjectsService } from './projects-service.js';
import { createSpanAnnotationsService, type SpanAnnotationsService } from './span-annotations-service.js';
import { createSpanSubmissionService, type SpanSubmissionService, type SubmitSpanRows } from './span-submission-service.js';
import { createSessionsService, type SessionsService } from './sessions-service.js';
import { createSpansService, type SpansService } from './spans-service.js';
import { createTracesService, type TracesService } from './traces-service.js';

export interface QueryLayer {
  projects: ProjectsService;
  spans: SpansService;
  traces: TracesService;
  sessions: SessionsService;
  metrics: MetricsService;
  spanAnnotations: SpanAnnotationsService;
  annotations: AnnotationsService;
  annotationConfigs: AnnotationConfigsService;
  spanSubmission: SpanSubmissionService;
}

export interface QueryLayerOptions {
  /** Called after a project is deleted: the ingest writer must forget the project ids it cached. */
  onProjectsDeleted: () => void;
  /** Writes REST-submitted span rows through the ingest queue (POST /v1/projects/{p}/spans); without it that route answers 503. */
  submitSpans?: SubmitSpanRows | undefined;
}

/** Builds the query layer over the database. */
export function createQueryLayer(database: Database, { onProjectsDeleted, submitSpans }: QueryLayerOptions): QueryLayer {
  const { repositories, withTransaction } = createDataAccess(database);
  const projects = createProjectsService({ projects: repositories.projects, onProjectsDeleted });
  const sessions = createSessionsService({ sessions: repositories.projectSessions, costs: repositories.costs, projects });
  return {
    projects,
    spans: createSpansService({ spans: repositories.spans, projects, withTransaction }),
    traces: createTracesService({ traces: repositories.traces, spans: repositories.spans, costs: repositories.costs, projects, sessions }),
    sessions,
    metrics: createMetricsService({ metrics: repositories.projectMetrics, costs: repositories.costs, projects }),
    spanAnnotations: createSpanAnnotationsService({
      annotations: repositories.spanAnnotations,
      spans: repositories.spans,
      withTransaction,
      projects,
      configs: repositories.annotationConfigs,
    }),
    spanSubmission: createSpanSubmissionService({
      spans: repositories.spans,
      projects,
      submit: submitSpans ?? (() => Promise.reject(new UnavailableError('span submission is not available in this process'))),
    }),
    annotations: createAnnotationsService({
      annotations: repositories.annotations,
      spans: repositories.spans,
      traces: repositories.traces,
      sessions,
      projectSessions: repositories.projectSessions,
      projects,
      withTransaction,
      configs: repositories.annotationConfigs,
    }),
    annotationConfigs: createAnnotationConfigsService({ configs: repositories.annotationConfigs, projects, withTransaction }),
  };
}
