/** JSON schemas (TypeBox) of the annotation queue routes (docs/annotation-queues.md). */
import { Type } from '@sinclair/typebox';
import {
  MAX_ITEMS_PER_REQUEST,
  MAX_QUEUE_CONFIGS,
  MAX_QUEUE_NAME_LENGTH,
  MAX_QUEUE_REVIEWERS,
} from '../../annotation-queues/annotation-queues-service.js';
import { AnnotationConfig } from '../annotation-configs/annotation-configs-schemas.js';
import { Id, Nullable, StringEnum, cursorParam, limitParam } from '../shared/schemas.js';

const KINDS = ['span', 'trace', 'session'] as const;
const SOURCES = ['manual', 'rule', 'experiment'] as const;
const STATUSES = ['pending', 'done', 'skipped'] as const;
const Time = (description: string) => Type.String({ format: 'date-time', description });

export const AnnotationQueueCounts = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    pending: Type.Integer({ minimum: 0, description: 'Not reviewed yet (some may be locked to a reviewer now).' }),
    done: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0 }),
  },
  { title: 'AnnotationQueueCounts' },
);

const queueFields = {
  id: Id('AnnotationQueue'),
  name: Type.String({ description: 'Unique among queues.' }),
  description: Nullable(Type.String()),
  instructions: Nullable(Type.String({ description: 'What reviewers are asked to look for; shown above every item.' })),
  created_at: Time('When the queue was created.'),
  updated_at: Time('When its name, texts, configs or reviewers last changed.'),
  progress: AnnotationQueueCounts,
};

export const AnnotationQueue = Type.Object(queueFields, { title: 'AnnotationQueue' });

export const AnnotationQueueReviewer = Type.Object({ id: Id('User'), username: Type.String() }, { title: 'AnnotationQueueReviewer' });

export const AnnotationQueueDetail = Type.Object(
  {
    ...queueFields,
    annotation_configs: Type.Array(AnnotationConfig, { description: 'What reviewers fill in, in the order they see it.' }),
    reviewers: Type.Array(AnnotationQueueReviewer, { description: 'Who may review its items, besides admins.' }),
  },
  { title: 'AnnotationQueueDetail' },
);

const itemFields = {
  id: Id('AnnotationQueueItem'),
  queue_id: Id('AnnotationQueue'),
  kind: StringEnum(KINDS, { description: 'What is reviewed: a span, a trace or a session.' }),
  project_id: Id('Project'),
  span_id: Nullable(Type.String({ description: 'Span items: the OpenTelemetry span id (null once the span is gone).' })),
  trace_id: Nullable(Type.String({ description: "Span and trace items: the OpenTelemetry trace id (the span's trace)." })),
  session_id: Nullable(Type.String({ description: 'Session items: the session.id text.' })),
  name: Nullable(Type.String({ description: "Span items: the span's name." })),
  source: StringEnum(SOURCES, { description: 'How it was added: by hand, by an online rule, or from an experiment.' }),
  status: StringEnum(STATUSES),
  locked_by: Nullable(Id('User')),
  locked_until: Nullable(Time('Until when the item is locked to `locked_by` (pending items only).')),
  completed_by: Nullable(Id('User')),
  completed_at: Nullable(Time('When it was submitted or skipped.')),
  note: Nullable(Type.String({ description: "The reviewer's note." })),
  created_at: Time('When it was added.'),
};

export const AnnotationQueueItem = Type.Object(itemFields, { title: 'AnnotationQueueItem' });

export const AnnotationQueueAnnotation = Type.Object(
  {
    name: Type.String({ description: 'The config name ("note" for the note).' }),
    label: Nullable(Type.String()),
    score: Nullable(Type.Number()),
    explanation: Nullable(Type.String()),
    user_id: Nullable(Id('User')),
    updated_at: Time('When it was last written.'),
  },
  { title: 'AnnotationQueueAnnotation' },
);

export const AnnotationQueueReviewItem = Type.Object(
  {
    ...itemFields,
    annotations: Type.Array(AnnotationQueueAnnotation, {
      description: "What this queue's reviews wrote on the target so far (HUMAN annotations with the queue's identifier).",
    }),
  },
  { title: 'AnnotationQueueReviewItem' },
);

export const AnnotationQueueProgress = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    pending: Type.Integer({ minimum: 0 }),
    done: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0 }),
    in_review: Type.Integer({ minimum: 0, description: 'Pending items locked to a reviewer now.' }),
  },
  { title: 'AnnotationQueueProgress' },
);

export const AddedAnnotationQueueItems = Type.Object(
  {
    added: Type.Integer({ minimum: 0, description: 'Items new to the queue.' }),
    existing: Type.Integer({ minimum: 0, description: 'Items already in it (adding again is a no-op).' }),
    missing: Type.Integer({ minimum: 0, description: 'Experiment runs without a stored trace.' }),
  },
  { title: 'AddedAnnotationQueueItems' },
);

const Name = Type.String({ minLength: 1, maxLength: MAX_QUEUE_NAME_LENGTH, description: 'Unique among queues.' });
const Description = Nullable(Type.String({ maxLength: 10_000 }));
const Instructions = Nullable(Type.String({ maxLength: 20_000, description: 'Shown to reviewers above every item (plain text).' }));
const ConfigIds = Type.Array(Type.String(), {
  maxItems: MAX_QUEUE_CONFIGS,
  description: 'Annotation config ids, in the order reviewers see them.',
});
const ReviewerIds = Type.Array(Type.String(), { maxItems: MAX_QUEUE_REVIEWERS, description: 'User ids of the reviewers.' });

export const CreateAnnotationQueueBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    instructions: Type.Optional(Instructions),
    annotation_config_ids: Type.Optional(ConfigIds),
    reviewer_ids: Type.Optional(ReviewerIds),
  },
  { title: 'CreateAnnotationQueueRequestBody' },
);

export const UpdateAnnotationQueueBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    instructions: Type.Optional(Instructions),
    annotation_config_ids: Type.Optional(ConfigIds),
    reviewer_ids: Type.Optional(ReviewerIds),
  },
  { title: 'UpdateAnnotationQueueRequestBody' },
);

export const SetReviewersBody = Type.Object({ reviewer_ids: ReviewerIds }, { title: 'SetAnnotationQueueReviewersRequestBody' });
export const SetConfigsBody = Type.Object({ annotation_config_ids: ConfigIds }, { title: 'SetAnnotationQueueConfigsRequestBody' });

const OtelIds = (what: string) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: MAX_ITEMS_PER_REQUEST, description: what }));

export const AddItemsBody = Type.Object(
  {
    project_id: Type.Optional(Type.String({ description: 'The project (id or name) of the spans, traces or sessions named.' })),
    span_ids: OtelIds('OpenTelemetry span ids (16 hex digits) of the project.'),
    trace_ids: OtelIds('OpenTelemetry trace ids (32 hex digits) of the project.'),
    session_ids: OtelIds('session.id texts of the project.'),
    experiment_id: Type.Optional(Type.String({ description: "An experiment: its runs' traces are added (no project needed)." })),
  },
  { title: 'AddAnnotationQueueItemsRequestBody' },
);

export const DeleteItemsBody = Type.Object(
  { item_ids: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_ITEMS_PER_REQUEST }) },
  { title: 'DeleteAnnotationQueueItemsRequestBody' },
);

export const SubmittedAnnotationBody = Type.Object(
  {
    config: Type.String({ minLength: 1, description: "One of the queue's annotation configs: its id or name." }),
    label: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    score: Type.Optional(Nullable(Type.Number())),
    explanation: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
  },
  { title: 'AnnotationQueueSubmittedAnnotation' },
);

export const SubmitItemBody = Type.Object(
  {
    annotations: Type.Array(SubmittedAnnotationBody, {
      maxItems: MAX_QUEUE_CONFIGS + 1,
      description: 'The filled configs (categorical: label; continuous: score; free form: explanation and/or score).',
    }),
    note: Type.Optional(Nullable(Type.String({ maxLength: 100_000, description: 'Free text, written as a note on the target.' }))),
    source: Type.Optional(StringEnum(['API', 'APP'] as const, { description: 'APP from the web UI; API (the default) otherwise.' })),
  },
  { title: 'SubmitAnnotationQueueItemRequestBody' },
);

export const SkipItemBody = Type.Object(
  { note: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))) },
  { title: 'SkipAnnotationQueueItemRequestBody' },
);

export const QueuePath = Type.Object({
  queue_id: Type.String({ description: 'Annotation queue id (base64 "AnnotationQueue:<id>") or name.' }),
});
export const ItemPath = Type.Object({
  queue_id: Type.String({ description: 'Annotation queue id or name.' }),
  item_id: Type.String({ description: 'Item id (base64 "AnnotationQueueItem:<id>").' }),
});

export const ListQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
export const ItemsQuery = Type.Object({
  limit: limitParam,
  cursor: cursorParam,
  status: Type.Optional(StringEnum(STATUSES, { description: 'Only items of this status.' })),
});
export const NextQuery = Type.Object({
  after_item_id: Type.Optional(
    Type.String({ description: 'The item the caller moves on from without judging it: the next one after it is handed out.' }),
  ),
});
export const ThenNextQuery = Type.Object({
  next: Type.Optional(Type.Boolean({ description: 'Also answer the next item for the caller (locked to them), as POST …/next would.' })),
});

/** A submit's or skip's answer: the item, and the next one when asked for. */
export const ReviewedAnswer = Type.Object(
  {
    data: AnnotationQueueReviewItem,
    next: Type.Optional(Type.Union([AnnotationQueueReviewItem, Type.Null()], { description: 'With next=true: the next item, or null.' })),
  },
  { title: 'AnnotationQueueReviewedAnswer' },
);

export const ExportQuery = Type.Object({
  format: Type.Optional(StringEnum(['jsonl', 'csv'] as const, { description: 'jsonl (the default): one item per line; csv.' })),
});
