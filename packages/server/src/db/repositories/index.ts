/**
 * One composition point for the repositories: every one bound to the database, or to a
 * transaction through `withTransaction`, so a service can write several aggregates atomically
 * without touching Kysely itself (docs/architecture.md, "Where SQL lives").
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { DB } from '../schema.js';
import type { Dialect } from '../../config.js';
import { createAnnotationConfigsRepository } from './annotation-configs-repository.js';
import { createAnnotationQueuesRepository } from './annotation-queues-repository.js';
import { createAnnotationsRepository } from './annotations-repository.js';
import { createApiKeysRepository } from './api-keys-repository.js';
import { createJobLeasesRepository } from './job-leases-repository.js';
import { createLoginFailuresRepository } from './login-failures-repository.js';
import { createLongAttributesRepository } from './long-attributes-repository.js';
import { createPasswordResetRepository } from './password-reset-repository.js';
import { createRateLimitsRepository } from './rate-limits-repository.js';
import { createProjectMetricsRepository } from './project-metrics-repository.js';
import { createProjectsRepository } from './projects-repository.js';
import { createCostsRepository } from './costs-repository.js';
import { createSecretsRepository } from './secrets-repository.js';
import { createSessionsRepository } from './sessions-repository.js';
import { createDatasetsRepository } from './datasets-repository.js';
import { createDatasetLabelsRepository } from './dataset-labels-repository.js';
import { createSavedViewsRepository } from './saved-views-repository.js';
import { createDashboardsRepository } from './dashboards-repository.js';
import { createRollupsRepository } from './rollups-repository.js';
import { createDatasetSplitsRepository } from './dataset-splits-repository.js';
import { createExperimentsRepository } from './experiments-repository.js';
import { createExperimentTagsRepository } from './experiment-tags-repository.js';
import { createEvaluatorsRepository } from './evaluators-repository.js';
import { createJobStateRepository } from './job-state-repository.js';
import { createOnlineEvalRepository } from './online-eval-repository.js';
import { createAlertsRepository } from './alerts-repository.js';
import { createWindowMetricsRepository } from './window-metrics-repository.js';
import { createHealthRepository } from './health-repository.js';
import { createPromptsRepository } from './prompts-repository.js';
import { createRetentionRepository } from './retention-repository.js';
import { createScheduledExportsRepository } from './scheduled-exports-repository.js';
import { createLoginSessionsRepository } from './login-sessions-repository.js';
import { createSpanLogEventsRepository } from './span-log-events-repository.js';
import { createSearchVectorsRepository } from './search-vectors-repository.js';
import { createSpansRepository } from './spans-repository.js';
import { createTracesRepository } from './traces-repository.js';
import { createUsersRepository } from './users-repository.js';

/** Every repository over one connection or transaction. */
export function createRepositories(db: Kysely<DB>, dialect: Dialect) {
  return {
    users: createUsersRepository(db),
    apiKeys: createApiKeysRepository(db),
    loginSessions: createLoginSessionsRepository(db),
    loginFailures: createLoginFailuresRepository(db),
    rateLimits: createRateLimitsRepository(db),
    passwordResets: createPasswordResetRepository(db),
    projects: createProjectsRepository(db, dialect),
    spans: createSpansRepository(db, dialect),
    spanLogEvents: createSpanLogEventsRepository(db, dialect),
    traces: createTracesRepository(db, dialect),
    sessions: createSessionsRepository(db, dialect),
    projectMetrics: createProjectMetricsRepository(db, dialect),
    annotations: createAnnotationsRepository(db, dialect),
    annotationConfigs: createAnnotationConfigsRepository(db, dialect),
    annotationQueues: createAnnotationQueuesRepository(db, dialect),
    prompts: createPromptsRepository(db),
    datasets: createDatasetsRepository(db, dialect),
    datasetLabels: createDatasetLabelsRepository(db),
    savedViews: createSavedViewsRepository(db),
    dashboards: createDashboardsRepository(db),
    rollups: createRollupsRepository(db, dialect),
    datasetSplits: createDatasetSplitsRepository(db),
    experiments: createExperimentsRepository(db, dialect),
    experimentTags: createExperimentTagsRepository(db),
    evaluators: createEvaluatorsRepository(db),
    jobState: createJobStateRepository(db),
    onlineEval: createOnlineEvalRepository(db, dialect),
    alerts: createAlertsRepository(db),
    windowMetrics: createWindowMetricsRepository(db, dialect),
    costs: createCostsRepository(db),
    searchVectors: createSearchVectorsRepository(db),
    secrets: createSecretsRepository(db),
    retention: createRetentionRepository(db, dialect),
    scheduledExports: createScheduledExportsRepository(db, dialect),
    longAttributes: createLongAttributesRepository(db, dialect),
    jobLeases: createJobLeasesRepository(db, dialect),
    health: createHealthRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/** Runs `work` with repositories bound to one transaction: committed when it resolves, rolled back when it throws. */
export type WithTransaction = <T>(work: (repositories: Repositories) => Promise<T>) => Promise<T>;

/** The repositories of the database and its transaction runner. */
export function createDataAccess(database: Database): { repositories: Repositories; withTransaction: WithTransaction } {
  const { db, dialect } = database;
  return {
    repositories: createRepositories(db, dialect),
    withTransaction: (work) => db.transaction().execute((trx) => work(createRepositories(trx, dialect))),
  };
}
