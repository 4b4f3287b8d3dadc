/**
 * `/v1/projects/{project}/scheduled_exports` and `/v1/scheduled_exports/{id}`: a project's
 * scheduled exports, their runs, and a run at once (docs/export.md, "Scheduled exports").
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { NotFoundError } from '@sightline/common';
import type { ExportRunRecord, ScheduledExportRecord } from '../../db/repositories/scheduled-exports-repository.js';
import type { ScheduledExportInput, ScheduledExportsService } from '../../exports/scheduled-exports-service.js';
import { safeSegment } from '../../exports/export-files.js';
import { fromGlobalId, identifier, toGlobalId } from '../shared/global-id.js';
import { cursorId, DEFAULT_LIMIT, pageAnswer, PageQuery } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page, ProjectPath } from '../shared/schemas.js';
import {
  CreateScheduledExportBody,
  ScheduledExport,
  ScheduledExportRun,
  ScheduledExportsStatus,
  UpdateScheduledExportBody,
} from './exports-schemas.js';

const ExportPath = Type.Object({ export_id: Type.String({ description: 'Scheduled export id (base64 "ScheduledExport:<id>").' }) });

const exportIdOf = (params: { export_id: string }): number => {
  const id = fromGlobalId('ScheduledExport', params.export_id);
  if (id === null) throw new NotFoundError(`scheduled export ${JSON.stringify(params.export_id.slice(0, 80))} not found`);
  return id;
};

const presentExport = (record: ScheduledExportRecord) => ({
  id: toGlobalId('ScheduledExport', record.id),
  project_id: toGlobalId('Project', record.projectId),
  name: record.name,
  target: record.target,
  filter: record.filter,
  format: record.format,
  interval_minutes: record.intervalMinutes,
  enabled: record.enabled,
  next_run_at: record.nextRunAt,
  directory: path.posix.join(safeSegment(record.projectName), safeSegment(record.name)),
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});

const presentRun = (run: ExportRunRecord) => ({
  id: toGlobalId('ScheduledExportRun', run.id),
  started_at: run.startedAt,
  finished_at: run.finishedAt,
  row_count: run.rowCount,
  file: run.file === null ? null : run.file.split(path.sep).join('/'),
  byte_count: run.byteCount,
  error: run.error,
});

type Body = (typeof UpdateScheduledExportBody)['static'];
const input = (body: Body): ScheduledExportInput => ({
  name: body.name,
  target: body.target,
  filter: body.filter,
  format: body.format,
  intervalMinutes: body.interval_minutes,
  enabled: body.enabled,
});

export async function scheduledExportsRoutes(instance: FastifyInstance, { scheduled }: { scheduled: ScheduledExportsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['exports'];
  const One = Type.Object({ data: ScheduledExport });

  app.get(
    '/v1/scheduled_exports/status',
    {
      schema: {
        tags,
        operationId: 'getScheduledExportsStatus',
        summary: 'Whether scheduled exports are on',
        response: { 200: Type.Object({ data: ScheduledExportsStatus }), ...errors() },
      },
    },
    async () => ({ data: { enabled: scheduled.enabled } }),
  );

  app.get(
    '/v1/projects/:project_identifier/scheduled_exports',
    {
      schema: {
        tags,
        operationId: 'listScheduledExports',
        summary: "List a project's scheduled exports",
        params: ProjectPath,
        querystring: PageQuery,
        response: { 200: Page(ScheduledExport), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await scheduled.list(identifier('Project', request.params.project_identifier), {
        limit,
        fromId: cursorId('ScheduledExport', request.query.cursor),
      });
      return pageAnswer('ScheduledExport', rows, limit, presentExport);
    },
  );

  app.post(
    '/v1/projects/:project_identifier/scheduled_exports',
    {
      schema: {
        tags,
        operationId: 'createScheduledExport',
        summary: 'Create a scheduled export',
        description:
          'Every `interval_minutes`, the spans (or traces) of the project that arrived since the last run and match the filter are ' +
          'written into a file under SERVICE_EXPORT_DIR. It starts with what arrives from now on. 422 when the server has no ' +
          'export directory; 409 when the name is taken.',
        params: ProjectPath,
        body: CreateScheduledExportBody,
        response: { 200: One, ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const created = await scheduled.create(
        identifier('Project', request.params.project_identifier),
        { ...input(body), name: body.name, target: body.target, format: body.format, intervalMinutes: body.interval_minutes },
        callerUserId(request),
      );
      return { data: presentExport(created) };
    },
  );

  app.get(
    '/v1/scheduled_exports/:export_id',
    {
      schema: {
        tags,
        operationId: 'getScheduledExport',
        summary: 'Get a scheduled export',
        params: ExportPath,
        response: { 200: One, ...errors(404) },
      },
    },
    async (request) => ({ data: presentExport(await scheduled.get(exportIdOf(request.params))) }),
  );

  app.patch(
    '/v1/scheduled_exports/:export_id',
    {
      schema: {
        tags,
        operationId: 'updateScheduledExport',
        summary: 'Change, pause or resume a scheduled export',
        description: 'Its target cannot change; a new interval counts from now. 409 when the new name is taken.',
        params: ExportPath,
        body: UpdateScheduledExportBody,
        response: { 200: One, ...errors(404, 409, 422) },
      },
    },
    async (request) => ({ data: presentExport(await scheduled.update(exportIdOf(request.params), input(request.body))) }),
  );

  app.delete(
    '/v1/scheduled_exports/:export_id',
    {
      schema: {
        tags,
        operationId: 'deleteScheduledExport',
        summary: 'Delete a scheduled export',
        description: 'Deletes the definition and its run history; the files it wrote stay.',
        params: ExportPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      await scheduled.delete(exportIdOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/scheduled_exports/:export_id/runs',
    {
      schema: {
        tags,
        operationId: 'listScheduledExportRuns',
        summary: "List a scheduled export's runs, newest first",
        description: 'The latest 500 runs: when, how many rows, which file, or why it failed.',
        params: ExportPath,
        querystring: PageQuery,
        response: { 200: Page(ScheduledExportRun), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await scheduled.runs(exportIdOf(request.params), {
        limit,
        fromId: cursorId('ScheduledExportRun', request.query.cursor),
      });
      return pageAnswer('ScheduledExportRun', rows, limit, presentRun);
    },
  );

  app.post(
    '/v1/scheduled_exports/:export_id/run',
    {
      schema: {
        tags,
        operationId: 'runScheduledExport',
        summary: 'Run a scheduled export now',
        description:
          'Writes what arrived since its last run at once (its next run is then one interval later) and answers the run. 422 when ' +
          'the export is paused or the server has no export directory; 409 while another replica runs the scheduled exports.',
        params: ExportPath,
        response: { 200: Type.Object({ data: ScheduledExportRun }), ...errors(404, 409, 422, 503) },
      },
    },
    async (request) => ({ data: presentRun(await scheduled.run(exportIdOf(request.params))) }),
  );
}
