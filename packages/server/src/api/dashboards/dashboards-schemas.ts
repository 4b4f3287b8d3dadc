/** TypeBox schemas of the dashboard routes (docs/dashboards.md). */
import { Type } from '@fastify/type-provider-typebox';
import { BUCKETS, GROUP_BYS, MAX_GROUPS } from '../../dashboards/dashboard-query.js';
import { MAX_DASHBOARD_NAME_CHARS, MAX_WIDGETS, WIDGET_TYPES } from '../../dashboards/dashboards-service.js';
import { WINDOW_METRICS } from '../../metrics/window-metrics.js';
import { cursorParam, limitParam, Nullable, StringEnum } from '../shared/schemas.js';

const Metric = StringEnum(WINDOW_METRICS, { description: 'One of the window metrics (docs/alerts.md, "Metrics").' });
const GroupBy = StringEnum(GROUP_BYS, {
  description:
    'span_kind, name, model and status read the per-minute rollups; user, session, attribute and any filter read the spans (7 days at most).',
});

const queryFields = {
  metric: Metric,
  annotation_name: Type.Optional(Nullable(Type.String({ maxLength: 256, description: 'The annotation metrics: the annotations read.' }))),
  annotation_label: Type.Optional(Nullable(Type.String({ maxLength: 256, description: 'annotation_label_share: the label measured.' }))),
  group_by: Type.Optional(Nullable(GroupBy)),
  attribute: Type.Optional(
    Nullable(Type.String({ maxLength: 256, description: 'group_by attribute: the attribute key, e.g. metadata.tenant.' })),
  ),
  filter: Type.Optional(
    Nullable(Type.String({ maxLength: 4096, description: 'A span condition (docs/api.md, "Span queries"); reads the spans.' })),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_GROUPS, description: 'Most groups answered, the largest first; 10 by default.' }),
  ),
};

export const DashboardQueryBody = Type.Object(
  {
    projects: Type.Array(Type.String({ description: 'A project id or name.' }), { minItems: 1, maxItems: 100 }),
    ...queryFields,
    start_time: Type.String({ description: 'ISO 8601; rounded down to the minute.' }),
    end_time: Type.String({ description: 'ISO 8601 (exclusive); rounded up to the minute.' }),
    bucket: StringEnum(BUCKETS, { description: 'Time bucket of the points (UTC); none for one value over the range.' }),
  },
  { title: 'DashboardQueryBody' },
);

export const DashboardQueryResult = Type.Object(
  {
    metric: Metric,
    unit: Type.String(),
    source: StringEnum(['rollups', 'spans', 'span_costs', 'annotations'] as const, {
      description: 'Where the figures came from: the per-minute rollups, or a scan of the range (spans, cost rows, annotations).',
    }),
    bucket: StringEnum(BUCKETS),
    start_time: Type.String({ format: 'date-time' }),
    end_time: Type.String({ format: 'date-time' }),
    series: Type.Array(
      Type.Object({
        group: Nullable(Type.String({ description: 'The group; null without group_by, or for spans without a value.' })),
        total: Nullable(Type.Number({ description: 'The metric over the whole range; null for no data.' })),
        points: Type.Array(Type.Object({ time: Type.String({ format: 'date-time' }), value: Nullable(Type.Number()) })),
      }),
    ),
    other_groups: Type.Integer({ description: 'Groups left out beyond limit.' }),
  },
  { title: 'DashboardQueryResult' },
);

export const Widget = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 64, description: 'Unique in its dashboard; given when absent.' })),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    type: StringEnum(WIDGET_TYPES, { description: 'timeseries, bar (by group), number (one value), table (by group).' }),
    ...queryFields,
    projects: Type.Optional(
      Type.Array(Type.String(), { description: 'Global dashboards: the projects covered; every project when absent.' }),
    ),
  },
  { title: 'DashboardWidget' },
);

export const Dashboard = Type.Object(
  {
    id: Nullable(Type.String({ description: 'Opaque Dashboard id; null for a project default dashboard not stored yet.' })),
    project_id: Nullable(Type.String({ description: 'Opaque Project id; null for a global dashboard.' })),
    name: Type.String(),
    widgets: Type.Array(Widget),
    created_at: Nullable(Type.String()),
    updated_at: Nullable(Type.String()),
  },
  { title: 'Dashboard' },
);

export const CreateDashboardBody = Type.Object(
  {
    project: Type.Optional(Nullable(Type.String({ description: 'The project (id or name); absent or null for a global dashboard.' }))),
    name: Type.String({ minLength: 1, maxLength: MAX_DASHBOARD_NAME_CHARS }),
    widgets: Type.Array(Widget, { maxItems: MAX_WIDGETS }),
  },
  { title: 'CreateDashboardBody' },
);

export const UpdateDashboardBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_DASHBOARD_NAME_CHARS })),
    widgets: Type.Optional(Type.Array(Widget, { maxItems: MAX_WIDGETS })),
  },
  { title: 'UpdateDashboardBody' },
);

export const SaveDefaultDashboardBody = Type.Object(
  { widgets: Type.Array(Widget, { maxItems: MAX_WIDGETS }) },
  { title: 'SaveDefaultDashboardBody' },
);

export const DashboardListQuery = Type.Object({
  project: Type.Optional(Type.String({ description: "A project's dashboards (id or name); the global ones when absent." })),
  limit: limitParam,
  cursor: cursorParam,
});

export const DashboardPath = Type.Object({ dashboard_id: Type.String({ description: 'The dashboard (base64 "Dashboard:<id>").' }) });
