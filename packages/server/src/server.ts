/** Starts and stops the whole observability server: database, write path, HTTP and gRPC. */
import type { FastifyInstance } from 'fastify';
import { ConflictError, UnavailableError } from '@sightline/common';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import { createAuthLayer, type AuthLayer } from './auth/index.js';
import { enforce } from './http/auth-plugin.js';
import { ruleFor } from './auth/permissions.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createDataAccess } from './db/repositories/index.js';
import { createTraceServices } from './trace-services.js';
import { createPromptsService } from './prompts/prompts-service.js';
import { createDatasetsService } from './datasets/datasets-service.js';
import { createDatasetLabelsService } from './datasets/dataset-labels-service.js';
import { createDatasetSplitsService } from './datasets/dataset-splits-service.js';
import { DATASET_DELETIONS_JOB, createDatasetDeletionJob } from './datasets/dataset-deletion-job.js';
import { createExperimentsService } from './experiments/experiments-service.js';
import { createExperimentTagsService } from './experiments/experiment-tags-service.js';
import { createEvaluatorsService } from './evaluators/evaluators-service.js';
import { addItemsToQueue, createAnnotationQueuesService } from './annotation-queues/annotation-queues-service.js';
import { mayReviewQueue } from './auth/policies.js';
import { createDatasetEvaluationJob } from './evaluators/dataset-evaluation-job.js';
import { createJudgeCost } from './evaluators/judge-cost.js';
import { createJudgePromptResolver } from './evaluators/judge-prompts.js';
import { createOnlineEvaluationJob } from './evaluators/online-evaluation-job.js';
import { createOnlineItemLoader } from './evaluators/online-items.js';
import { createOnlineRulesService } from './evaluators/online-rules-service.js';
import { createStatementRunner } from './db/statement-runner.js';
import { createExportsService } from './exports/exports-service.js';
import { createScheduledExportJob, SCHEDULED_EXPORTS_JOB } from './exports/scheduled-export-job.js';
import { createScheduledExportsService } from './exports/scheduled-exports-service.js';
import { createAlertsService } from './alerts/alerts-service.js';
import { createAlertCheckJob } from './alerts/alert-check-job.js';
import { createNotifier } from './alerts/notifications.js';
import { createWindowMetrics } from './metrics/window-metrics.js';
import { createMailer } from './auth/mailer.js';
import { toGlobalId } from './api/shared/global-id.js';
import { createCostsService } from './costs/costs-service.js';
import { createCostJob } from './costs/cost-job.js';
import { createSearchVectorsJob } from './jobs/search-vectors-job.js';
import { startLongAttributesCompressor, type LongAttributesCompressor } from './span-model/long-attributes-compressor.js';
import { createLongAttributesJob, type LongAttributesJob } from './jobs/long-attributes-job.js';
import { startJobRunner, type Job, type JobRunner } from './jobs/job-runner.js';
import { createSecretBox } from './playground/secret-box.js';
import { providerKeySecret } from './playground/local-secret.js';
import { createSecretsService } from './playground/secrets-service.js';
import { createPlaygroundService } from './playground/playground-service.js';
import { createRetentionService } from './retention/retention-service.js';
import { createRetentionJob, dayOutOfRetention } from './retention/retention-job.js';
import { createSpanLogEventsService, SPAN_LOG_EVENTS_JOB } from './spans/span-log-events-service.js';
import { createPartitionCompactionJob } from './retention/partition-compaction-job.js';
import { createPartitionCompactionRepository } from './db/repositories/partition-compaction-repository.js';
import { dayDate } from './db/partitions.js';
import { createIngestService, createSpanQueue, type SpanQueue } from './ingest/ingest-service.js';
import { startOtlpGrpcServer, type GrpcServerHandle } from './ingest/otlp-grpc-server.js';
import { createDatabaseWriter, type DatabaseWriter } from './db/writer/database-writer.js';

export interface RunningServer {
  /** Base URL of the HTTP server including the root path, e.g. http://127.0.0.1:6006/sightline */
  url: string;
  grpcPort: number;
  app: FastifyInstance;
  database: Database;
  queue: SpanQueue;
  auth: AuthLayer;
  /** Runs every background job: dataset uploads and deletions, costs, retention, partition compaction, long-attributes conversion. */
  jobs: JobRunner;
  /** Converts the spans written before migration 0019 in the background, then ends (docs/ingest.md). */
  longAttributesJob: LongAttributesJob;
  /**
   * Resolves should the server lose a part it cannot serve without (the SQLite writer thread):
   * it then refuses every span, and whoever runs it should close it and start it again.
   */
  failed: Promise<Error>;
  close(): Promise<void>;
}

/** Opens and migrates the database, then listens on the HTTP and gRPC ports of the config. */
export async function startServer(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<RunningServer> {
  const database = openDatabase(config.database);
  let writer: DatabaseWriter | null = null;
  let queue: SpanQueue | null = null;
  let grpc: GrpcServerHandle | null = null;
  let app: FastifyInstance | null = null;
  let jobs: JobRunner | null = null;
  let compressor: LongAttributesCompressor | null = null;
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => {
    fail = resolve;
  });
  const close = async () => {
    // Both listeners stop taking new requests at once and let the ones in flight finish; the
    // queue is closed only after them, so each in-flight request is answered after its commit.
    await Promise.all([app?.close(), grpc?.close()]);
    // Each job stops in the reverse order of its registration (jobs/job-runner.ts).
    await jobs?.stop();
    // Every request that will be answered has its rows compressed and queued by now.
    await compressor?.close();
    await queue?.close();
    await writer?.close();
    await database.close();
  };
  try {
    await migrateToLatest(database);
    const auth = createAuthLayer(config, database, (error, context) => logger.error({ err: error }, `${context} failed`));
    if (config.enableAuth) await auth.users.ensureDefaultAdmin(config.defaultAdminInitialPassword);
    writer = createDatabaseWriter(config.database, {
      fullTextSearch: config.fullTextSearch,
      rollups: config.dashboardRollups,
      onStopped: (error) => {
        logger.fatal({ err: error }, 'the SQLite writer thread stopped: no span can be stored until Sightline is restarted');
        fail(error);
      },
    });
    queue = createSpanQueue(writer, {
      maxQueuedSpans: config.ingest.maxQueuedSpans,
      maxBatchSpans: config.ingest.maxBatchSpans,
      maxWaitMs: config.ingest.queueWaitMs,
      onError: (error) => logger.error({ err: error }, 'span write failed'),
    });
    compressor = startLongAttributesCompressor({
      walCheckpoints:
        config.database.dialect === 'sqlite'
          ? { file: config.database.url, onError: (message) => logger.error(`WAL checkpoint failed: ${message}`) }
          : undefined,
      onStopped: (error) =>
        logger.error(
          { err: error },
          'the attribute compression thread stopped: long values are compressed on the request thread from now on, and on SQLite the writer checkpoints the WAL itself',
        ),
    });
    const ingest = createIngestService(queue, {
      maxInflightBytes: config.ingest.maxInflightBytes,
      compressor,
      searchTexts: config.fullTextSearch && config.database.dialect === 'sqlite',
      searchTextsHeldBack: writer.searchHeldBack,
    });
    // A deleted project's id must not stay cached by the writer, or its next spans would be refused.
    const spanQueue = queue;
    const data = createDataAccess(database);
    const query = createTraceServices(data, {
      onProjectsDeleted: () => {
        writer?.forgetProjects();
        // The retention job deletes a deleted project's traces: start now rather than at its next run.
        void jobs?.runNow('retention');
      },
      // REST-submitted spans take the ingest path, so span SQL stays in the writers.
      submitSpans: (rows) => spanQueue.enqueue(rows),
      rollups: config.dashboardRollups,
    });
    const prompts = createPromptsService({ prompts: data.repositories.prompts, withTransaction: data.withTransaction });
    const datasets = createDatasetsService({
      datasets: data.repositories.datasets,
      splits: data.repositories.datasetSplits,
      withTransaction: data.withTransaction,
      options: {
        idleTimeoutMs: config.datasetUploadIdleSeconds * 1000,
        onCleanupError: (error) => logger.error({ err: error }, 'deleting a failed dataset upload failed'),
        // A deleted dataset's rows are removed by its job, started at once rather than at its next interval.
        onDeleted: () => void jobs?.runNow(DATASET_DELETIONS_JOB).catch(() => {}),
      },
    });
    const datasetLabels = createDatasetLabelsService({
      labels: data.repositories.datasetLabels,
      datasets: data.repositories.datasets,
      withTransaction: data.withTransaction,
    });
    const datasetSplits = createDatasetSplitsService({
      splits: data.repositories.datasetSplits,
      datasets: data.repositories.datasets,
      withTransaction: data.withTransaction,
    });
    const experiments = createExperimentsService({
      experiments: data.repositories.experiments,
      traces: data.repositories.traces,
      datasets: data.repositories.datasets,
      withTransaction: data.withTransaction,
      onDeleted: () => void jobs?.runNow(DATASET_DELETIONS_JOB).catch(() => {}),
    });
    const experimentTags = createExperimentTagsService({
      tags: data.repositories.experimentTags,
      experiments: data.repositories.experiments,
    });
    const spanLogEvents = createSpanLogEventsService({
      repository: data.repositories.spanLogEvents,
      withTransaction: data.withTransaction,
      writer: writer.spanLogEvents,
      // Records whose span is stored already join it at once rather than at the job's next run.
      onStored: () => void jobs?.runNow(SPAN_LOG_EVENTS_JOB).catch(() => {}),
    });
    const costs = createCostsService({ costs: data.repositories.costs });
    await costs.syncBuiltIns();
    const retentionJob = createRetentionJob({
      repositories: data.repositories,
      withTransaction: data.withTransaction,
      writer: writer.retention,
      intervalMs: config.retention.intervalSeconds * 1000,
      targetBatchMs: config.retention.batchMs,
      pauseFactor: (100 - config.retention.dutyPercent) / config.retention.dutyPercent,
      maxPauseFactor: (100 - config.retention.minDutyPercent) / config.retention.minDutyPercent,
      onError: (error) => logger.error({ err: error }, 'retention of a project failed'),
      onBatch: (batch) => logger.debug({ retentionBatch: batch }, 'retention batch deleted'),
      ingestIdle: () => spanQueue.whenIdle(),
    });
    let convertedBatches = 0;
    const longAttributesJob = createLongAttributesJob({
      repository: data.repositories.longAttributes,
      withTransaction: data.withTransaction,
      writer: writer.longAttributes,
      ingestIdle: () => spanQueue.whenIdle(),
      onProgress: (progress) => {
        if (!progress.finished) logger.debug({ longAttributes: progress }, 'long-attributes conversion batch');
        else if (convertedBatches > 0) logger.info({ longAttributes: progress }, 'long-attributes conversion finished');
        convertedBatches++;
      },
    });
    // Provider keys are sealed with SERVICE_SECRET, or with a key kept in the working directory (local-secret.ts).
    const providerSecret = providerKeySecret({ ...config, dialect: config.database.dialect });
    const secrets = createSecretsService({
      secrets: data.repositories.secrets,
      box: providerSecret ? createSecretBox(providerSecret) : null,
      env: process.env,
      allowPrivateUrls: config.allowPrivateProviderUrls,
    });
    const playground = createPlaygroundService({
      secrets,
      ingest,
      allowPrivateUrls: config.allowPrivateProviderUrls,
      openServer: !config.enableAuth,
      // Members see only a provider's status; its message (scrubbed of the key) is here for admins.
      logProviderError: (error) => logger.warn({ provider: error.provider, status: error.status }, error.message),
    });
    const evaluators = createEvaluatorsService({
      evaluators: data.repositories.evaluators,
      datasets: data.repositories.datasets,
      spans: data.repositories.spans,
      traces: data.repositories.traces,
      costs: data.repositories.costs,
      judge: { ...playground.judge, resolvePrompt: createJudgePromptResolver(data.repositories.prompts) },
    });
    const onlineRules = createOnlineRulesService({
      rules: data.repositories.onlineEval,
      evaluators: data.repositories.evaluators,
      projects: query.projects,
      queueExists: async (id) => (await data.repositories.annotationQueues.findById(id)) !== undefined,
    });
    const annotationQueues = createAnnotationQueuesService({
      queues: data.repositories.annotationQueues,
      configs: data.repositories.annotationConfigs,
      projects: query.projects,
      withTransaction: data.withTransaction,
      mayReview: mayReviewQueue,
    });
    const exports = createExportsService({
      spans: data.repositories.spans,
      traces: data.repositories.traces,
      costs: data.repositories.costs,
      rootIo: data.repositories.sessions.rootIo,
      projects: query.projects,
    });
    const runStatements = createStatementRunner(database.db, writer.statements);
    // Alerts (docs/alerts.md): their own mailer, opened on the first mail like the password-reset one.
    const alertMailer = config.smtp ? createMailer(config.smtp) : null;
    const alertNotifier = createNotifier({
      webhookHosts: config.alerts.webhookHosts,
      sendMail: alertMailer ? (mail) => alertMailer.send(mail) : null,
      retryDelayMs: config.alerts.retryDelayMs,
    });
    const ruleLink = (projectId: number, ruleId: number) =>
      config.rootUrl === null
        ? null
        : `${config.rootUrl}${config.hostRootPath}/projects/${toGlobalId('Project', projectId)}/alerts/${toGlobalId('AlertRule', ruleId)}`;
    const windowMetrics = createWindowMetrics(data.repositories.windowMetrics);
    const alerts = createAlertsService({
      alerts: data.repositories.alerts,
      metrics: windowMetrics,
      projects: query.projects,
      notifier: alertNotifier,
      webhookHosts: config.alerts.webhookHosts,
      smtpConfigured: config.smtp !== null,
      ruleLink,
    });
    const { retention: retentionRepository } = data.repositories;
    // Every background job, in start order; they stop in the reverse order.
    const backgroundJobs: Job[] = [
      {
        name: 'dataset-uploads',
        description: 'Deletes dataset uploads that died with their request or an earlier process (docs/datasets.md, "Uploads").',
        intervalMs: config.datasetUploadIdleSeconds * 1000,
        run: async () => {
          await datasets.cleanUpAbandoned();
          return 'idle';
        },
      },
      createDatasetDeletionJob({
        datasets: data.repositories.datasets,
        experiments: data.repositories.experiments,
        withTransaction: data.withTransaction,
        ingestIdle: database.dialect === 'sqlite' ? () => spanQueue.whenIdle() : undefined,
      }),
      createCostJob({ costs: data.repositories.costs, writer: writer.costs, rollups: config.dashboardRollups }),
      // SQLite's search index has a thread of its own, run by the span writer (db/search-index/).
      ...(database.dialect === 'postgres'
        ? [createSearchVectorsJob(data.repositories.searchVectors, { ingestIdle: () => spanQueue.whenIdle() })]
        : []),
      retentionJob,
      ...(database.dialect === 'postgres' && config.retention.compactPartitions
        ? [
            createPartitionCompactionJob({
              partitions: createPartitionCompactionRepository(database.db),
              skipDay: async (day, nowMs) =>
                dayOutOfRetention(await retentionRepository.projectsOfDay(day), await retentionRepository.listActivePolicies(), day, nowMs),
              onCompacted: (day, ms) => logger.info({ day: dayDate(day), ms: Math.round(ms) }, 'day partitions compacted'),
            }),
          ]
        : []),
      longAttributesJob,
      spanLogEvents.job,
      createDatasetEvaluationJob({
        evaluators: data.repositories.evaluators,
        datasets: data.repositories.datasets,
        experiments: data.repositories.experiments,
        state: data.repositories.jobState,
        evaluate: evaluators.evaluate,
      }),
      createOnlineEvaluationJob({
        rules: data.repositories.onlineEval,
        evaluators: data.repositories.evaluators,
        loadItems: createOnlineItemLoader(data.repositories),
        runStatements,
        evaluate: evaluators.evaluate,
        judgeCost: createJudgeCost(data.repositories.costs),
        addToQueue: async (queueId, items) => {
          await addItemsToQueue(data.repositories.annotationQueues, queueId, items, 'rule');
        },
        // One SQLite writer commits in row-id order: nothing to wait for.
        settleMs: database.dialect === 'sqlite' ? 0 : config.onlineEvaluation.settleMs,
        concurrency: config.onlineEvaluation.concurrency,
        retryDelayMs: config.onlineEvaluation.retryDelayMs,
      }),
      createAlertCheckJob({
        alerts: data.repositories.alerts,
        metrics: windowMetrics,
        notifier: alertNotifier,
        runStatements,
        ruleLink,
        intervalMs: config.alerts.checkIntervalSeconds * 1000,
        onError: (message, error) => logger.warn(error === undefined ? {} : { err: error }, message),
      }),
      // Only with an export directory (docs/export.md); without one, scheduled exports cannot be created.
      ...(config.exportDir
        ? [
            createScheduledExportJob({
              exports: data.repositories.scheduledExports,
              spans: data.repositories.spans,
              traces: data.repositories.traces,
              rows: exports,
              runStatements,
              directory: config.exportDir,
              // As the online evaluation job: a row id handed out on PostgreSQL may commit after a later one.
              settleMs: database.dialect === 'sqlite' ? 0 : config.onlineEvaluation.settleMs,
              onError: (error, exportId) => logger.error({ err: error, exportId }, 'a scheduled export failed'),
            }),
          ]
        : []),
    ];
    jobs = startJobRunner(backgroundJobs, {
      leases: data.repositories.jobLeases,
      onError: (job, error) => logger.error({ err: error, job }, `background job ${job} failed`),
    });
    // Uploads that died with an earlier process are gone before the first request (docs/datasets.md,
    // "Uploads"); a failure is logged and shown in the job's status, and the start goes on.
    await jobs.runNow('dataset-uploads');
    const runner = jobs;
    const retention = {
      policies: createRetentionService({ retention: data.repositories.retention, resolveProject: query.projects.resolve }),
      // POST /v1/retention/run goes through the runner, so it takes the job's lease like a scheduled run.
      job: {
        runNow: async () => {
          const status = await runner.runNow('retention');
          if (status.leasedElsewhere)
            throw new ConflictError('another replica is running the retention job now; try again once it is done');
          if (status.state === 'backing-off') throw new UnavailableError(`the retention run failed: ${status.lastError}`);
          return retentionJob.lastRun()!;
        },
      },
    };
    const scheduledExports = createScheduledExportsService({
      exports: data.repositories.scheduledExports,
      projects: query.projects,
      directory: config.exportDir,
      runJob: config.exportDir ? () => runner.runNow(SCHEDULED_EXPORTS_JOB) : undefined,
    });
    app = await buildApp({
      config,
      ingest,
      ingestLogs: spanLogEvents.ingest,
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
      jobs: () => jobs?.status() ?? [],
      rateLimits: data.repositories.rateLimits,
      ready: () => data.repositories.health.ping(),
      logger,
    });
    await app.listen({ host: config.host, port: config.port });
    grpc = await startOtlpGrpcServer({
      host: config.host,
      port: config.grpcPort,
      maxMessageBytes: config.ingest.maxBodyBytes,
      drainTimeoutMs: config.shutdownTimeoutSeconds * 1000,
      ingest,
      ingestLogs: spanLogEvents.ingest,
      authorize: config.enableAuth
        ? async (authorization) => {
            const principal = await auth.authenticator.authenticate(authorization, undefined);
            if (!principal) return 'unauthenticated';
            enforce(ruleFor('POST', '/v1/traces')!, principal);
            return 'ok';
          }
        : undefined,
      onError: (error) => logger.error({ err: error }, 'gRPC export failed'),
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    return {
      url: `http://${host}:${port}${config.hostRootPath}`,
      grpcPort: grpc.port,
      app,
      database,
      queue,
      auth,
      jobs,
      longAttributesJob,
      failed,
      close,
    };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
