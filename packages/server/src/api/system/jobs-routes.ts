/** `GET /v1/system/jobs`: the state of every background job of this replica (docs/architecture.md, "Adding a background job"). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { JobStatus } from '../../jobs/job-runner.js';
import { Nullable, StringEnum, errors } from '../shared/schemas.js';

const Instant = (description: string) => Nullable(Type.String({ format: 'date-time', description }));

const BackgroundJob = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    state: StringEnum(['scheduled', 'running', 'backing-off', 'finished', 'stopped'] as const, {
      description: 'backing-off: the last run failed and the next waits longer, doubling with each failure in a row up to five minutes.',
    }),
    interval_ms: Type.Integer(),
    runs: Type.Integer({ description: 'Runs this replica ended (with or without error) since it started.' }),
    last_run_started_at: Instant('When the last run started on this replica.'),
    last_run_finished_at: Instant('When the last run ended.'),
    last_success_at: Instant('When the last run that succeeded ended.'),
    next_run_at: Instant('When the next run is due; null while running, finished or stopped.'),
    lag_ms: Type.Integer({ description: 'How far past its interval the job is since its last success (0: on time).' }),
    leased_elsewhere: Type.Boolean({
      description: 'The last run found another replica running the job (PostgreSQL), so this one skipped it.',
    }),
    last_error: Nullable(Type.String()),
    last_error_at: Instant('When the last error happened.'),
    consecutive_failures: Type.Integer(),
  },
  { title: 'BackgroundJob' },
);

function presentJob(job: JobStatus) {
  return {
    name: job.name,
    description: job.description,
    state: job.state,
    interval_ms: job.intervalMs,
    runs: job.runs,
    last_run_started_at: job.lastRunStartedAt,
    last_run_finished_at: job.lastRunFinishedAt,
    last_success_at: job.lastSuccessAt,
    next_run_at: job.nextRunAt,
    lag_ms: Math.round(job.lagMs),
    leased_elsewhere: job.leasedElsewhere,
    last_error: job.lastError,
    last_error_at: job.lastErrorAt,
    consecutive_failures: job.consecutiveFailures,
  };
}

export async function jobsRoutes(instance: FastifyInstance, { jobs }: { jobs: () => JobStatus[] }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/system/jobs',
    {
      schema: {
        tags: ['system'],
        operationId: 'listBackgroundJobs',
        summary: 'Background jobs and their state (Sightline)',
        description:
          "Every background job of the replica that answers: its schedule, last and next run, lag and last error. On PostgreSQL each run takes the job's lease, " +
          'so of several replicas one runs a job at a time; the others show leased_elsewhere. Admins and system keys.',
        response: { 200: Type.Object({ data: Type.Array(BackgroundJob) }), ...errors() },
      },
    },
    async () => ({ data: jobs().map(presentJob) }),
  );
}
