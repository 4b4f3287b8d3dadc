/** Retention policies per project and the retention job's runs (docs/retention.md). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RetentionJob, RetentionRun } from '../../retention/retention-job.js';
import { MAX_RETENTION_DAYS, MAX_RETENTION_TRACES, type RetentionService, type RetentionView } from '../../retention/retention-service.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { Nullable, ProjectPath, errors } from '../shared/schemas.js';

/** What the retention routes need: the policies service and the running job. */
export interface RetentionLayer {
  policies: RetentionService;
  job: Pick<RetentionJob, 'runNow'>;
}

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Instant = (description: string) => Type.String({ format: 'date-time', description });

const RetentionPolicy = Type.Object(
  {
    project_id: Type.String({ description: 'base64 "Project:<id>".' }),
    max_days: Nullable(
      Type.Integer({ minimum: 1, description: 'Traces that started more than this many days ago are deleted (null: no age bound).' }),
    ),
    max_traces: Nullable(Type.Integer({ minimum: 1, description: 'Only the newest this many traces are kept (null: no count bound).' })),
    updated_at: Nullable(Instant('When the policy was last set (null: never; the project keeps everything).')),
    last_run: Nullable(
      Type.Object(
        {
          at: Instant('When the job last applied the policy.'),
          deleted_traces: Count('Traces that run deleted.'),
          deleted_spans: Count('Spans that run deleted.'),
        },
        { description: 'What the job did to the project on its last run (null: not run since the policy was set).' },
      ),
    ),
    total_deleted_traces: Count('Traces deleted since the policy was first set.'),
    total_deleted_spans: Count('Spans deleted since the policy was first set.'),
    job_last_run_at: Nullable(Instant("When the retention job last finished a run (any project's)")),
  },
  { title: 'RetentionPolicy' },
);

const RetentionPolicyBody = Type.Object(
  {
    max_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS }))),
    max_traces: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_TRACES }))),
  },
  { additionalProperties: false },
);

const RetentionRunProject = Type.Object({
  project_id: Type.String({ description: 'base64 "Project:<id>".' }),
  deleted_traces: Count('Traces deleted in this project.'),
  deleted_spans: Count('Spans deleted in this project.'),
  deleted_sessions: Count('Sessions left without traces, deleted.'),
});

const RetentionRunReport = Type.Object(
  {
    started_at: Instant('When the run started.'),
    finished_at: Instant('When the run finished.'),
    deleted_traces: Count('Traces deleted, all projects.'),
    deleted_spans: Count('Spans deleted, all projects.'),
    deleted_sessions: Count('Sessions deleted, all projects.'),
    vacuumed_pages: Count('SQLite pages returned to the file system (0 on PostgreSQL or without incremental auto-vacuum).'),
    projects: Type.Array(RetentionRunProject, { description: 'Every project with a policy the run applied.' }),
  },
  { title: 'RetentionRun' },
);

function presentPolicy(view: RetentionView) {
  const policy = view.policy;
  return {
    project_id: toGlobalId('Project', view.projectId),
    max_days: policy?.maxDays ?? null,
    max_traces: policy?.maxTraces ?? null,
    updated_at: policy?.updatedAt ?? null,
    last_run: policy?.lastRunAt
      ? { at: policy.lastRunAt, deleted_traces: policy.lastDeletedTraces, deleted_spans: policy.lastDeletedSpans }
      : null,
    total_deleted_traces: policy?.totalDeletedTraces ?? 0,
    total_deleted_spans: policy?.totalDeletedSpans ?? 0,
    job_last_run_at: view.jobLastRunAt,
  };
}

function presentRun(run: RetentionRun) {
  return {
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    deleted_traces: run.deletedTraces,
    deleted_spans: run.deletedSpans,
    deleted_sessions: run.deletedSessions,
    vacuumed_pages: run.vacuumedPages,
    projects: run.projects.map((project) => ({
      project_id: toGlobalId('Project', project.projectId),
      deleted_traces: project.deletedTraces,
      deleted_spans: project.deletedSpans,
      deleted_sessions: project.deletedSessions,
    })),
  };
}

export async function retentionRoutes(instance: FastifyInstance, { policies, job }: RetentionLayer) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['retention'];
  const projectOf = (params: { project_identifier: string }) => identifier('Project', params.project_identifier);

  app.get(
    '/v1/projects/:project_identifier/retention',
    {
      schema: {
        tags,
        operationId: 'getProjectRetention',
        summary: "A project's retention policy and what the retention job last deleted",
        params: ProjectPath,
        response: { 200: Type.Object({ data: RetentionPolicy }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentPolicy(await policies.get(projectOf(request.params))) }),
  );

  app.put(
    '/v1/projects/:project_identifier/retention',
    {
      schema: {
        tags,
        operationId: 'setProjectRetention',
        summary: "Set a project's retention policy (admins)",
        description:
          'Whole traces are deleted oldest first by the retention job: those that started more than max_days ago and those ' +
          'beyond the newest max_traces. null removes a bound (both null: keep everything); an absent field keeps its value.',
        params: ProjectPath,
        body: RetentionPolicyBody,
        response: { 200: Type.Object({ data: RetentionPolicy }), ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: presentPolicy(
        await policies.set(projectOf(request.params), { maxDays: request.body.max_days, maxTraces: request.body.max_traces }),
      ),
    }),
  );

  app.post(
    '/v1/retention/run',
    {
      schema: {
        tags,
        operationId: 'runRetention',
        summary: 'Run the retention job now (admins)',
        description:
          'Waits for a run in progress, then applies every policy (and deletes the traces of deleted projects) and answers what was ' +
          'deleted. 409 when another replica runs the job at that moment (PostgreSQL); 503 when the run failed.',
        response: { 200: Type.Object({ data: RetentionRunReport }), ...errors(409) },
      },
    },
    async () => ({ data: presentRun(await job.runNow()) }),
  );
}
