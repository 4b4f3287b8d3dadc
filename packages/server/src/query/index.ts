/** Composition of the query layer (projects, spans, traces, metrics, span annotations): repositories → services. */
import type { Database } from '../db/database.js';
import { createProjectMetricsRepository } from '../db/repositories/project-metrics-repository.js';
import { createProjectsRepository } from '../db/repositories/projects-repository.js';
import { createSpansRepository } from '../db/repositories/spans-repository.js';
import { createTracesRepository } from '../db/repositories/traces-repository.js';
import { createMetricsService, type MetricsService } from './metrics-service.js';
import { createProjectsService, type ProjectsService } from './projects-service.js';
import { createSpanAnnotationsService, type SpanAnnotationsService } from './span-annotations-service.js';
import { createSpansService, type SpansService } from './spans-service.js';
import { createTracesService, type TracesService } from './traces-service.js';

export interface QueryLayer {
  projects: ProjectsService;
  spans: SpansService;
  traces: TracesService;
  metrics: MetricsService;
  spanAnnotations: SpanAnnotationsService;
}

export interface QueryLayerOptions {
  /** Called after a project is deleted: the ingest writer must forget the project ids it cached. */
  onProjectsDeleted: () => void;
}

/** Builds the query layer over the database. */
export function createQueryLayer(database: Database, { onProjectsDeleted }: QueryLayerOptions): QueryLayer {
  const { db, dialect } = database;
  const spansRepository = createSpansRepository(db, dialect);
  const projects = createProjectsService({ projects: createProjectsRepository(db, dialect), onProjectsDeleted });
  return {
    projects,
    spans: createSpansService({ spans: spansRepository, projects }),
    traces: createTracesService({ traces: createTracesRepository(db), spans: spansRepository, projects }),
    metrics: createMetricsService({ metrics: createProjectMetricsRepository(db, dialect), projects }),
    spanAnnotations: createSpanAnnotationsService({ db, dialect, projects }),
  };
}
