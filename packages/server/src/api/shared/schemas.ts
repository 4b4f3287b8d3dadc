/**
 * The JSON schemas (TypeBox) every resource shares: nullable and enum helpers, ids and times,
 * the error body, and the common query parameters. Each resource's own request and response
 * shapes live beside its routes; they follow Phoenix's REST schema plus Sightline's additions,
 * which are marked in their descriptions.
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { SPAN_KINDS } from '../../span-model/span-rows.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './pagination.js';

/**
 * The schema or null. Scalars become `type: [t, "null"]` rather than anyOf: Fastify's validator
 * coerces types, and in an anyOf it would turn null into "" (or "" into null) on the first branch,
 * whereas with a type list it leaves any value of a listed type alone.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string; default?: T } = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
export const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
export const Time = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} ISO 8601 UTC with nine fractional digits (nanoseconds).` });
export const Id = (type: string) => Type.String({ description: `Opaque ${type} id (base64 of "${type}:<row id>").` });

export const STATUS_CODES = ['OK', 'ERROR', 'UNSET'] as const;
export const ANNOTATOR_KINDS = ['LLM', 'CODE', 'HUMAN'] as const;

/**
 * Error body of every failure: `detail` is always one human-readable sentence; a request that
 * failed schema validation (422) also lists each problem in `errors` (docs/api.md, "Errors").
 */
export const ErrorBody = Type.Object(
  {
    detail: Type.String({ description: 'What went wrong, in one sentence naming the field.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
              description: 'Where: ["body", "user", "email"], ["query", "limit"].',
            }),
            msg: Type.String(),
          },
          { title: 'ValidationIssue' },
        ),
        { description: 'Schema validation failures (422 only).' },
      ),
    ),
  },
  { title: 'ErrorBody' },
);

/** The error statuses every query route can answer, for the OpenAPI document. */
type ErrorSchema = typeof ErrorBody & { description: string };
export function errors(...statuses: number[]): Record<number, ErrorSchema> {
  const descriptions: Record<number, string> = {
    401: 'No valid credential (auth enabled)',
    403: 'Not allowed',
    404: 'Not found',
    409: 'Conflict',
    422: 'Invalid request parameters or body',
  };
  return Object.fromEntries(
    [401, 403, ...statuses].map((status) => [status, { ...ErrorBody, description: descriptions[status] ?? 'Error' }]),
  );
}

export const limitParam = Type.Optional(
  Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Page size, 1 to ${MAX_LIMIT} (more answers 422).` }),
);
export const cursorParam = Type.Optional(
  Type.String({ description: 'The next_cursor of the previous page (opaque); an invalid cursor answers 422.' }),
);
export const startTimeParam = Type.Optional(
  Type.String({ description: 'Inclusive lower bound on start time (ISO 8601; UTC when no offset is given).' }),
);
export const endTimeParam = Type.Optional(
  Type.String({ description: 'Exclusive upper bound on start time (ISO 8601; UTC when no offset is given).' }),
);
export const orderParam = Type.Optional(
  StringEnum(['desc', 'asc'] as const, { description: 'Sort direction (default desc: newest first).' }),
);

/** `annotation` and `annotation_score` filters of the span and trace lists (docs/annotations.md, "Filters"). */
export const annotationFilterParams = (target: string) => ({
  annotation: Type.Optional(
    Type.Array(Type.String(), {
      description: `Only ${target} with an annotation \`name\`, or \`name:label\` with that label (split at the first colon); repeat to AND several (at most 10 annotation filters).`,
    }),
  ),
  annotation_score: Type.Optional(
    Type.Array(Type.String(), {
      description: `Only ${target} with an annotation whose score compares so: \`name>=0.5\` (operators >=, <=, >, <, =); repeat to AND several.`,
    }),
  ),
});

/** Full-text search and a span query condition (docs/search.md, docs/api.md "Span queries"). */
export const textFilterParams = (target: string) => ({
  search: Type.Optional(
    Type.String({
      maxLength: 500,
      description:
        `Only ${target} whose inputs, outputs or messages contain every word (Sightline addition; docs/search.md): ` +
        'any language, accents of Latin letters ignored, `"quoted phrases"`, `word*` for a prefix.',
    }),
  ),
  filter: Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        `Only ${target} passing Phoenix's span condition (Sightline addition), e.g. ` +
        "`span_kind == 'LLM' and latency_ms > 2000 and attributes['llm.model_name'] == 'gpt-4o'`.",
    }),
  ),
});

export const ProjectPath = Type.Object({
  project_identifier: Type.String({ description: 'Project id (base64 "Project:<id>") or project name.' }),
});

export const SpanKindParam = StringEnum(SPAN_KINDS);
export const StatusCodeParam = StringEnum(STATUS_CODES);

/** A page of a keyset-paginated list: its items and the cursor of the next page (null on the last). */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    next_cursor: Nullable(Type.String({ description: 'The cursor of the next page; null on the last.' })),
  });
