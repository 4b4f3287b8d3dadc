/**
 * `/v1/dashboards`: saved dashboards (a project's or global), `/v1/dashboards/query`: the data of
 * one widget, and `/v1/projects/{p}/default_dashboard`: a project's default (docs/dashboards.md).
 */
import type { FastifyInstance } from 'fastify';
import { type Static, Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DashboardQueryService } from '../../dashboards/dashboard-query.js';
import type { Dashboard as DashboardModel, DashboardsService, Widget as WidgetModel } from '../../dashboards/dashboards-service.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page, ProjectPath } from '../shared/schemas.js';
import {
  CreateDashboardBody,
  Dashboard,
  DashboardListQuery,
  DashboardPath,
  DashboardQueryBody,
  DashboardQueryResult,
  SaveDefaultDashboardBody,
  UpdateDashboardBody,
  type Widget,
} from './dashboards-schemas.js';

const present = (dashboard: DashboardModel) => ({
  id: dashboard.id === null ? null : toGlobalId('Dashboard', dashboard.id),
  project_id: dashboard.projectId === null ? null : toGlobalId('Project', dashboard.projectId),
  name: dashboard.name,
  widgets: dashboard.widgets,
  created_at: dashboard.createdAt,
  updated_at: dashboard.updatedAt,
});

/** The body's widgets as the service takes them (the schema checked their shape, the service the rest). */
const widgetsOf = (widgets: Static<typeof Widget>[]): WidgetModel[] => widgets.map((widget) => ({ ...widget, id: widget.id ?? '' }));

export async function dashboardsRoutes(
  instance: FastifyInstance,
  { dashboards, dashboardQuery }: { dashboards: DashboardsService; dashboardQuery: DashboardQueryService },
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['dashboards'];
  const One = Type.Object({ data: Dashboard });

  app.post(
    '/v1/dashboards/query',
    {
      schema: {
        tags,
        operationId: 'queryDashboard',
        summary: "Compute a widget's data",
        description:
          'One metric over the projects per time bucket and group. Grouped by span_kind, name, model or status (or not grouped) ' +
          'without a filter, it reads the per-minute rollups; a filter or another group reads the spans of the range (7 days at ' +
          'most): `source` says which. Percentiles come from merged log-scale histograms, within ±19 % (docs/dashboards.md).',
        body: DashboardQueryBody,
        response: { 200: Type.Object({ data: DashboardQueryResult }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await dashboardQuery.query({
        projects: body.projects.map((project) => identifier('Project', project)),
        metric: body.metric,
        annotationName: body.annotation_name,
        annotationLabel: body.annotation_label,
        groupBy: body.group_by,
        attribute: body.attribute,
        filter: body.filter,
        startTime: body.start_time,
        endTime: body.end_time,
        bucket: body.bucket,
        limit: body.limit,
      });
      return {
        data: {
          metric: result.metric,
          unit: result.unit,
          source: result.source,
          bucket: result.bucket,
          start_time: result.startTime,
          end_time: result.endTime,
          series: result.series,
          other_groups: result.otherGroups,
        },
      };
    },
  );

  app.get(
    '/v1/dashboards',
    {
      schema: {
        tags,
        operationId: 'listDashboards',
        summary: "List a project's dashboards, or the global ones",
        description: 'Newest first, keyset-paginated. A project default dashboard is listed once it has been edited.',
        querystring: DashboardListQuery,
        response: { 200: Page(Dashboard), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const project = request.query.project === undefined ? null : identifier('Project', request.query.project);
      const rows = await dashboards.list(project, { limit, fromId: cursorId('Dashboard', request.query.cursor) });
      return pageAnswer('Dashboard', rows as (DashboardModel & { id: number })[], limit, present);
    },
  );

  app.post(
    '/v1/dashboards',
    {
      schema: {
        tags,
        operationId: 'createDashboard',
        summary: 'Create a dashboard',
        description: "Of a project, or global (across projects) without one. Every widget's query is checked.",
        body: CreateDashboardBody,
        response: { 200: One, ...errors(404, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const dashboard = await dashboards.create({
        project: body.project === undefined || body.project === null ? null : identifier('Project', body.project),
        name: body.name,
        widgets: widgetsOf(body.widgets),
        userId: callerUserId(request),
      });
      return { data: present(dashboard) };
    },
  );

  app.get(
    '/v1/dashboards/:dashboard_id',
    {
      schema: {
        tags,
        operationId: 'getDashboard',
        summary: 'Get a dashboard',
        params: DashboardPath,
        response: { 200: One, ...errors(404) },
      },
    },
    async (request) => ({ data: present(await dashboards.get(identifier('Dashboard', request.params.dashboard_id))) }),
  );

  app.put(
    '/v1/dashboards/:dashboard_id',
    {
      schema: {
        tags,
        operationId: 'updateDashboard',
        summary: 'Rename a dashboard or replace its widgets',
        params: DashboardPath,
        body: UpdateDashboardBody,
        response: { 200: One, ...errors(404, 422) },
      },
    },
    async (request) => {
      const { name, widgets } = request.body;
      const dashboard = await dashboards.update(identifier('Dashboard', request.params.dashboard_id), {
        name,
        widgets: widgets === undefined ? undefined : widgetsOf(widgets),
      });
      return { data: present(dashboard) };
    },
  );

  app.delete(
    '/v1/dashboards/:dashboard_id',
    {
      schema: {
        tags,
        operationId: 'deleteDashboard',
        summary: 'Delete a dashboard',
        description: "A project's default dashboard goes back to the built-in one.",
        params: DashboardPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      await dashboards.delete(identifier('Dashboard', request.params.dashboard_id));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/projects/:project_identifier/default_dashboard',
    {
      schema: {
        tags,
        operationId: 'getDefaultDashboard',
        summary: "A project's default dashboard",
        description: 'The built-in one (id null) until it is edited, then the stored one.',
        params: ProjectPath,
        response: { 200: One, ...errors(404) },
      },
    },
    async (request) => ({ data: present(await dashboards.defaultOf(identifier('Project', request.params.project_identifier))) }),
  );

  app.put(
    '/v1/projects/:project_identifier/default_dashboard',
    {
      schema: {
        tags,
        operationId: 'saveDefaultDashboard',
        summary: "Replace a project's default dashboard's widgets",
        description: 'Stores the default dashboard (named Overview); deleting it brings the built-in one back.',
        params: ProjectPath,
        body: SaveDefaultDashboardBody,
        response: { 200: One, ...errors(404, 422) },
      },
    },
    async (request) => {
      const dashboard = await dashboards.saveDefault(
        identifier('Project', request.params.project_identifier),
        widgetsOf(request.body.widgets),
        callerUserId(request),
      );
      return { data: present(dashboard) };
    },
  );
}
