/**
 * Saved dashboards (docs/dashboards.md): a named list of widgets, of a project or global (across
 * projects). Each widget is a dashboard query without its time range (the page's) and a chart
 * type; widgets are checked when saved, so a dashboard never fails when opened. A project's
 * default dashboard is built in until someone edits it: it is then stored under DEFAULT_NAME.
 */
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type { DashboardRecord, DashboardsRepository } from '../db/repositories/dashboards-repository.js';
import type { WindowMetric } from '../metrics/window-metrics.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { Identifier } from '../shared/identifier.js';
import { checkDashboardQuery, type GroupBy } from './dashboard-query.js';

export const WIDGET_TYPES = ['timeseries', 'bar', 'number', 'table'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];
export const MAX_WIDGETS = 24;
export const MAX_DASHBOARD_NAME_CHARS = 100;
const MAX_TITLE_CHARS = 200;
const MAX_WIDGET_PROJECTS = 100;
/** The name a project's edited default dashboard is stored under. */
export const DEFAULT_NAME = 'Overview';

/** A widget as stored and answered (snake_case, as the API shows it). */
export interface Widget {
  id: string;
  title: string;
  type: WidgetType;
  metric: WindowMetric;
  annotation_name?: string | null | undefined;
  annotation_label?: string | null | undefined;
  group_by?: GroupBy | null | undefined;
  attribute?: string | null | undefined;
  filter?: string | null | undefined;
  /** Most groups shown. */
  limit?: number | undefined;
  /** Global dashboards: the projects (ids or names) the widget covers; absent for every project. */
  projects?: string[] | undefined;
}

export interface Dashboard {
  /** Null for a project's built-in default dashboard, not stored yet. */
  id: number | null;
  projectId: number | null;
  name: string;
  widgets: Widget[];
  createdAt: string | null;
  updatedAt: string | null;
}

/**
 * The default dashboard of every project, which replaces the Overview tab's charts: spans,
 * errors and latency over time, tokens by model, cost, and the busiest span names.
 */
export const DEFAULT_WIDGETS: Widget[] = [
  { id: 'spans', title: 'Spans by kind', type: 'timeseries', metric: 'span_count', group_by: 'span_kind' },
  { id: 'errors', title: 'Error rate', type: 'timeseries', metric: 'error_rate' },
  { id: 'latency-p50', title: 'Latency p50 (ms)', type: 'timeseries', metric: 'latency_p50' },
  { id: 'latency-p95', title: 'Latency p95 (ms)', type: 'timeseries', metric: 'latency_p95' },
  { id: 'tokens', title: 'Tokens by model', type: 'bar', metric: 'tokens', group_by: 'model' },
  { id: 'cost', title: 'Cost (USD)', type: 'timeseries', metric: 'cost' },
  { id: 'names', title: 'Top span names', type: 'table', metric: 'span_count', group_by: 'name' },
];

/** Checks widgets whole; throws InvalidInputError naming the widget and what to change. */
export function checkWidgets(widgets: readonly Widget[], global: boolean): Widget[] {
  if (!Array.isArray(widgets)) throw new InvalidInputError('widgets must be a list');
  if (widgets.length > MAX_WIDGETS) throw new InvalidInputError(`a dashboard may have at most ${MAX_WIDGETS} widgets`);
  const ids = new Set<string>();
  const now = Date.now();
  return widgets.map((widget, index) => {
    const where = `widget ${index + 1}${widget.title ? ` (${JSON.stringify(widget.title)})` : ''}`;
    const id = (widget.id ?? '').trim() || `w${index + 1}`;
    if (id.length > 64) throw new InvalidInputError(`${where}: id must be at most 64 characters`);
    if (ids.has(id)) throw new InvalidInputError(`${where}: id ${JSON.stringify(id)} is used by another widget`);
    ids.add(id);
    const title = (widget.title ?? '').trim();
    if (title === '' || title.length > MAX_TITLE_CHARS)
      throw new InvalidInputError(`${where}: title must be 1 to ${MAX_TITLE_CHARS} characters`);
    if (!(WIDGET_TYPES as readonly string[]).includes(widget.type))
      throw new InvalidInputError(`${where}: type must be one of ${WIDGET_TYPES.join(', ')}`);
    if (widget.projects !== undefined && !global) throw new InvalidInputError(`${where}: projects applies to global dashboards only`);
    if (widget.projects !== undefined && (widget.projects.length === 0 || widget.projects.length > MAX_WIDGET_PROJECTS)) {
      throw new InvalidInputError(`${where}: projects must name 1 to ${MAX_WIDGET_PROJECTS} projects, or be left out for every project`);
    }
    let checked: ReturnType<typeof checkDashboardQuery>;
    try {
      // The range is the page's: any valid one checks the rest.
      checked = checkDashboardQuery({
        metric: widget.metric,
        annotationName: widget.annotation_name,
        annotationLabel: widget.annotation_label,
        groupBy: widget.group_by,
        attribute: widget.attribute,
        filter: widget.filter,
        startTime: new Date(now - 3_600_000).toISOString(),
        endTime: new Date(now).toISOString(),
        bucket: 'minute',
        limit: widget.limit,
      });
    } catch (error) {
      if (error instanceof InvalidInputError) throw new InvalidInputError(`${where}: ${error.message}`);
      throw error;
    }
    const tidy: Widget = { id, title, type: widget.type, metric: checked.metric };
    if (checked.annotationName !== null) tidy.annotation_name = checked.annotationName;
    if (checked.annotationLabel !== null) tidy.annotation_label = checked.annotationLabel;
    if (checked.groupBy !== null) tidy.group_by = checked.groupBy;
    if (checked.attribute !== null) tidy.attribute = checked.attribute;
    if (checked.filter !== '') tidy.filter = checked.filter;
    if (widget.limit !== undefined) tidy.limit = checked.limit;
    if (widget.projects !== undefined) tidy.projects = widget.projects;
    return tidy;
  });
}

function checkName(name: string): string {
  const tidy = name.trim();
  if (tidy === '' || tidy.length > MAX_DASHBOARD_NAME_CHARS)
    throw new InvalidInputError(`a dashboard's name must be 1 to ${MAX_DASHBOARD_NAME_CHARS} characters`);
  return tidy;
}

const toDashboard = (record: DashboardRecord): Dashboard => ({
  id: record.id,
  projectId: record.projectId,
  name: record.name,
  widgets: JSON.parse(record.widgets) as Widget[],
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

export type DashboardsService = ReturnType<typeof createDashboardsService>;

export function createDashboardsService(deps: { dashboards: DashboardsRepository; projects: ProjectsService; now?: () => string }) {
  const { dashboards, projects, now = () => new Date().toISOString() } = deps;

  const find = async (identifier: Identifier): Promise<DashboardRecord> => {
    const record = identifier.rowId === null ? undefined : await dashboards.findById(identifier.rowId);
    // A dashboard of a deleted project goes with it (its row cascades when the project is purged).
    if (!record || (record.projectId !== null && !(await projects.isLive(record.projectId)))) {
      throw new NotFoundError(`dashboard ${JSON.stringify(identifier.text)} not found`);
    }
    return record;
  };

  return {
    /** A project's dashboards, or the global ones (project null), newest first; fetches limit + 1. */
    async list(project: Identifier | null, page: { limit: number; fromId?: number | undefined }): Promise<Dashboard[]> {
      const projectId = project === null ? null : (await projects.resolve(project)).id;
      return (await dashboards.list(projectId, { limit: page.limit + 1, fromId: page.fromId })).map(toDashboard);
    },

    async create(input: { project: Identifier | null; name: string; widgets: Widget[]; userId: number | null }): Promise<Dashboard> {
      const name = checkName(input.name);
      const widgets = checkWidgets(input.widgets, input.project === null);
      const projectId = input.project === null ? null : (await projects.resolve(input.project)).id;
      return toDashboard(await dashboards.insert({ projectId, userId: input.userId, name, widgets: JSON.stringify(widgets) }, now()));
    },

    async get(identifier: Identifier): Promise<Dashboard> {
      return toDashboard(await find(identifier));
    },

    async update(identifier: Identifier, input: { name?: string | undefined; widgets?: Widget[] | undefined }): Promise<Dashboard> {
      const record = await find(identifier);
      const name = input.name === undefined ? record.name : checkName(input.name);
      const widgets = input.widgets === undefined ? record.widgets : JSON.stringify(checkWidgets(input.widgets, record.projectId === null));
      const updated = await dashboards.update(record.id, { name, widgets }, now());
      if (!updated) throw new NotFoundError(`dashboard ${JSON.stringify(identifier.text)} not found`);
      return toDashboard(updated);
    },

    async delete(identifier: Identifier): Promise<void> {
      const record = await find(identifier);
      await dashboards.delete(record.id);
    },

    /** The project's default dashboard: the stored one once edited, else the built-in one (id null). */
    async defaultOf(project: Identifier): Promise<Dashboard> {
      const { id: projectId } = await projects.resolve(project);
      const stored = await dashboards.findByName(projectId, DEFAULT_NAME);
      if (stored) return toDashboard(stored);
      return { id: null, projectId, name: DEFAULT_NAME, widgets: DEFAULT_WIDGETS, createdAt: null, updatedAt: null };
    },

    /** Stores the project's default dashboard with these widgets (the built-in one's are the start). */
    async saveDefault(project: Identifier, widgets: Widget[], userId: number | null): Promise<Dashboard> {
      const { id: projectId } = await projects.resolve(project);
      const checked = JSON.stringify(checkWidgets(widgets, false));
      const stored = await dashboards.findByName(projectId, DEFAULT_NAME);
      if (stored) return toDashboard((await dashboards.update(stored.id, { name: DEFAULT_NAME, widgets: checked }, now()))!);
      return toDashboard(await dashboards.insert({ projectId, userId, name: DEFAULT_NAME, widgets: checked }, now()));
    },
  };
}
