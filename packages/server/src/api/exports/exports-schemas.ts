/** JSON schemas (TypeBox) of the export routes (docs/export.md). */
import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_INTERVAL_MINUTES } from '../../exports/scheduled-exports-service.js';
import {
  annotationFilterParams,
  endTimeParam,
  Id,
  Nullable,
  SpanKindParam,
  startTimeParam,
  StatusCodeParam,
  StringEnum,
  textFilterParams,
} from '../shared/schemas.js';

const repeated = <T extends TSchema>(item: T, description: string) => Type.Optional(Type.Array(item, { description }));

export const Format = StringEnum(['csv', 'jsonl', 'parquet'] as const, {
  description: 'csv (text/csv), jsonl (application/x-ndjson, a JSON object per line) or parquet (application/vnd.apache.parquet).',
});

/** What a trace export takes: a format and the trace list's filters (docs/search.md). */
export const TraceExportQuery = Type.Object({
  format: Format,
  start_time: startTimeParam,
  end_time: endTimeParam,
  ...annotationFilterParams('traces (the trace itself or one of its spans)'),
  ...textFilterParams('traces with a span'),
  user_id: Type.Optional(Type.String({ maxLength: 512, description: 'Only the traces of this user.id.' })),
});

/** What a span export takes: a format and the span list's filters (they combine with AND). */
export const SpanExportQuery = Type.Object({
  format: Format,
  start_time: startTimeParam,
  end_time: endTimeParam,
  ...textFilterParams('spans'),
  name: repeated(Type.String(), 'Only spans with one of these names.'),
  span_kind: repeated(SpanKindParam, 'Only spans of these OpenInference kinds.'),
  status_code: repeated(StatusCodeParam, 'Only spans with these status codes.'),
  attribute: repeated(Type.String(), 'Attribute filter `key:value`, as in GET /v1/projects/{project_identifier}/spans.'),
  parent_id: Type.Optional(Type.String({ description: 'Only children of this span; the literal `null` selects root spans.' })),
  ...annotationFilterParams('spans'),
});

const Target = StringEnum(['span', 'trace'] as const, {
  description: 'span: a row per span; trace: a row per trace, written when its root span arrives.',
});

export const ScheduledExport = Type.Object(
  {
    id: Id('ScheduledExport'),
    project_id: Id('Project'),
    name: Type.String(),
    target: Target,
    filter: Type.String({ description: 'A span condition (docs/api.md, "Span queries"); empty: every span (or trace).' }),
    format: Format,
    interval_minutes: Type.Integer({ description: 'Minutes between runs.' }),
    enabled: Type.Boolean(),
    next_run_at: Type.String({ format: 'date-time' }),
    directory: Type.String({ description: 'Where its files go, relative to SERVICE_EXPORT_DIR: `<project>/<export>`.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ScheduledExport' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 128, description: 'Unique in the project; its folder under the project folder.' }),
  filter: Type.Optional(Type.String({ maxLength: 4096 })),
  format: Format,
  interval_minutes: Type.Integer({ minimum: 1, maximum: MAX_INTERVAL_MINUTES, description: 'Minutes between runs (1 to a week).' }),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
};

export const CreateScheduledExportBody = Type.Object({ ...fields, target: Target }, { title: 'CreateScheduledExportRequestBody' });

export const UpdateScheduledExportBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    target: Type.Optional(Target),
    filter: fields.filter,
    format: Type.Optional(fields.format),
    interval_minutes: Type.Optional(fields.interval_minutes),
    enabled: fields.enabled,
  },
  { title: 'UpdateScheduledExportRequestBody' },
);

export const ScheduledExportRun = Type.Object(
  {
    id: Id('ScheduledExportRun'),
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Type.String({ format: 'date-time' }),
    row_count: Type.Integer({ description: 'Rows written (0 when nothing new arrived, or the run failed).' }),
    file: Nullable(Type.String({ description: 'The file written, relative to SERVICE_EXPORT_DIR; null when nothing was written.' })),
    byte_count: Nullable(Type.Integer()),
    error: Nullable(Type.String({ description: 'Why the run failed; its rows are written by the next run.' })),
  },
  { title: 'ScheduledExportRun' },
);

export const ScheduledExportsStatus = Type.Object(
  {
    enabled: Type.Boolean({
      description: 'Whether the server has an export directory (SERVICE_EXPORT_DIR): without one, exports cannot be created or run.',
    }),
  },
  { title: 'ScheduledExportsStatus' },
);
