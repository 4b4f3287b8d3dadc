/**
 * Request and response schemas of annotations on every target (spans, traces, sessions,
 * documents) and of notes: Phoenix's shapes, which differ only in the field naming the target.
 */
import { Type } from '@sinclair/typebox';
import { ANNOTATOR_KINDS, Id, JsonObject, Nullable, StringEnum } from '../shared/schemas.js';

export const AnnotationResult = Type.Object(
  {
    label: Type.Optional(Nullable(Type.String())),
    score: Type.Optional(Nullable(Type.Number())),
    explanation: Type.Optional(Nullable(Type.String())),
  },
  { title: 'AnnotationResult' },
);

/** Sightline addition: where an annotation was made; the web UI sends APP. */
export const AnnotationSourceParam = Type.Optional(
  StringEnum(['API', 'APP'] as const, { description: 'Sightline addition: APP for annotations made in the web UI; default API.' }),
);

const SPAN_ID = 'OpenTelemetry span id (16 hex digits).';

const annotationData = {
  name: Type.String({ minLength: 1, description: 'Annotation name; "note" is reserved for notes.' }),
  annotator_kind: StringEnum(ANNOTATOR_KINDS),
  result: Type.Optional(Nullable(AnnotationResult)),
  metadata: Type.Optional(Nullable(JsonObject('Free-form metadata.'))),
  identifier: Type.Optional(
    Type.String({ default: '', description: 'Annotations with the same name, target and identifier are updated instead of added.' }),
  ),
  source: AnnotationSourceParam,
};

export const SpanAnnotationData = Type.Object(
  { span_id: Type.String({ minLength: 1, description: SPAN_ID }), ...annotationData },
  { title: 'SpanAnnotationData' },
);

export const TraceAnnotationData = Type.Object(
  { trace_id: Type.String({ minLength: 1, description: 'OpenTelemetry trace id (32 hex digits).' }), ...annotationData },
  { title: 'TraceAnnotationData' },
);

export const SessionAnnotationData = Type.Object(
  { session_id: Type.String({ minLength: 1, description: 'The session.id text of the session.' }), ...annotationData },
  { title: 'SessionAnnotationData' },
);

export const DocumentAnnotationData = Type.Object(
  {
    span_id: Type.String({ minLength: 1, description: 'OpenTelemetry span id of the retriever span (16 hex digits).' }),
    document_position: Type.Integer({ minimum: 0, description: "0-based position of the document among the span's retrieved documents." }),
    ...annotationData,
  },
  { title: 'SpanDocumentAnnotationData' },
);

const noteFields = {
  note: Type.String({ minLength: 1, description: 'The note text.' }),
  identifier: Type.Optional(
    Type.String({ default: '', description: 'Empty: a new note each time. Given: the note with this identifier is replaced.' }),
  ),
};

export const SpanNoteData = Type.Object(
  { span_id: Type.String({ minLength: 1, description: SPAN_ID }), ...noteFields },
  { title: 'SpanNoteData' },
);
export const TraceNoteData = Type.Object(
  { trace_id: Type.String({ minLength: 1, description: 'OpenTelemetry trace id (32 hex digits).' }), ...noteFields },
  { title: 'TraceNoteData' },
);
export const SessionNoteData = Type.Object(
  { session_id: Type.String({ minLength: 1, description: 'The session.id text of the session.' }), ...noteFields },
  { title: 'SessionNoteData' },
);

export const Inserted = (type: string, title: string) => Type.Object({ id: Id(type) }, { title });

const annotationProperties = {
  name: Type.String(),
  annotator_kind: StringEnum(ANNOTATOR_KINDS),
  result: Nullable(Type.Object({ label: Nullable(Type.String()), score: Nullable(Type.Number()), explanation: Nullable(Type.String()) })),
  metadata: JsonObject('Free-form metadata.'),
  identifier: Type.String(),
  source: StringEnum(['API', 'APP'] as const),
  user_id: Nullable(Id('User')),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

export const SpanAnnotation = Type.Object(
  { id: Id('SpanAnnotation'), span_id: Type.String(), ...annotationProperties },
  { title: 'SpanAnnotation' },
);

export const TraceAnnotation = Type.Object(
  { id: Id('TraceAnnotation'), trace_id: Type.String(), ...annotationProperties },
  { title: 'TraceAnnotation' },
);

export const SessionAnnotation = Type.Object(
  { id: Id('ProjectSessionAnnotation'), session_id: Type.String(), ...annotationProperties },
  { title: 'SessionAnnotation' },
);

export const DocumentAnnotation = Type.Object(
  { id: Id('DocumentAnnotation'), span_id: Type.String(), document_position: Type.Integer(), ...annotationProperties },
  { title: 'SpanDocumentAnnotation' },
);

export const AnnotationSummary = Type.Object(
  {
    name: Type.String(),
    count: Type.Integer({ description: 'Annotations of this name in the range, on spans and traces.' }),
    span_count: Type.Integer(),
    trace_count: Type.Integer(),
    mean_score: Nullable(Type.Number({ description: 'Mean of the scores given; null when none has a score.' })),
    score_count: Type.Integer({ description: 'How many of them have a score.' }),
    labels: Type.Array(Type.Object({ label: Type.String(), count: Type.Integer() }), { description: 'Label counts, most frequent first.' }),
  },
  { title: 'AnnotationSummary' },
);
