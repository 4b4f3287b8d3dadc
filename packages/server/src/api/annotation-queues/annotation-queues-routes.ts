/**
 * `/v1/annotation_queues`: queues of spans, traces and sessions for human review, their items,
 * and the reviewer's loop (next, submit, skip, release, previous) (docs/annotation-queues.md).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { InvalidInputError } from '@sightline/common';
import type { AnnotationQueuesService, Reviewer, ReviewItemView } from '../../annotation-queues/annotation-queues-service.js';
import { configRowId, presentAnnotationConfig } from '../annotation-configs/annotation-configs-presenters.js';
import { fromGlobalId, identifier, toGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page } from '../shared/schemas.js';
import {
  exportCsvHeader,
  exportCsvLine,
  exportJsonLine,
  presentItem,
  presentQueue,
  presentQueueDetail,
  presentReviewItem,
} from './annotation-queues-presenters.js';
import {
  AddedAnnotationQueueItems,
  AddItemsBody,
  AnnotationQueue,
  AnnotationQueueDetail,
  AnnotationQueueItem,
  AnnotationQueueProgress,
  AnnotationQueueReviewer,
  AnnotationQueueReviewItem,
  CreateAnnotationQueueBody,
  DeleteItemsBody,
  ExportQuery,
  ItemPath,
  ItemsQuery,
  ListQuery,
  NextQuery,
  QueuePath,
  ReviewedAnswer,
  SetConfigsBody,
  SetReviewersBody,
  SkipItemBody,
  SubmitItemBody,
  ThenNextQuery,
  UpdateAnnotationQueueBody,
} from './annotation-queues-schemas.js';
import { AnnotationConfig } from '../annotation-configs/annotation-configs-schemas.js';

const queueOf = (params: { queue_id: string }) => identifier('AnnotationQueue', params.queue_id);

const short = (value: string) => JSON.stringify(value.slice(0, 80));

/** The row id of an item id; 422 when the text is not one. */
function itemIdOf(value: string, field = 'item_id'): number {
  const id = fromGlobalId('AnnotationQueueItem', value);
  if (id === null) throw new InvalidInputError(`${field}: ${short(value)} is not an annotation queue item id`);
  return id;
}

/** Row ids of a list of typed ids; 422 naming the first that is not one. */
function rowIds(values: string[] | undefined, field: string, decode: (value: string) => number | null): number[] | undefined {
  return values?.map((value, index) => {
    const id = decode(value);
    if (id === null) throw new InvalidInputError(`${field}[${index}]: ${short(value)} is not a valid id`);
    return id;
  });
}

const userIds = (values: string[] | undefined) => rowIds(values, 'reviewer_ids', (value) => fromGlobalId('User', value));

/** Annotation config ids (of any of the three config types) as row ids. */
const configIds = (values: string[] | undefined) => rowIds(values, 'annotation_config_ids', configRowId);

/** Who reviews: the signed-in user; null with auth off (the permission rows keep system keys out). */
function reviewerOf(request: FastifyRequest): Reviewer {
  const principal = request.principal;
  return principal?.kind === 'user' ? { id: principal.user.id, role: principal.user.role } : null;
}

/** A file name for the export: the queue's name without what a header or a file system would choke on. */
const fileName = (name: string, extension: string) => `${encodeURIComponent(name.replace(/[\\/:*?"<>|]/g, '_'))}.${extension}`;

export async function annotationQueuesRoutes(instance: FastifyInstance, { queues: service }: { queues: AnnotationQueuesService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['annotation_queues'];

  /** A submit's or skip's answer: the item, and with `next=true` the caller's next item. */
  const answerWithNext = async (
    request: FastifyRequest,
    params: { queue_id: string },
    wantsNext: boolean | undefined,
    item: ReviewItemView,
  ) => {
    if (!wantsNext) return { data: presentReviewItem(item) };
    const next = await service.next(queueOf(params), reviewerOf(request));
    return { data: presentReviewItem(item), next: next && presentReviewItem(next) };
  };

  app.get(
    '/v1/annotation_queues',
    {
      schema: {
        tags,
        operationId: 'listAnnotationQueues',
        summary: 'List annotation queues',
        description: 'By name, each with its progress; paged (`limit`, `cursor`).',
        querystring: ListQuery,
        response: { 200: Page(AnnotationQueue), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await service.list({ limit, fromId: cursorId('AnnotationQueue', request.query.cursor) });
      return pageAnswer(
        'AnnotationQueue',
        rows.map((row) => ({ ...row, id: row.queue.id })),
        limit,
        presentQueue,
      );
    },
  );

  app.post(
    '/v1/annotation_queues',
    {
      schema: {
        tags,
        operationId: 'createAnnotationQueue',
        summary: 'Create an annotation queue',
        description:
          'With the annotation configs its reviewers fill in and who may review (admins always may). 409 when the name is taken.',
        body: CreateAnnotationQueueBody,
        response: { 200: Type.Object({ data: AnnotationQueueDetail }), ...errors(409, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const created = await service.create({
        name: body.name,
        description: body.description,
        instructions: body.instructions,
        configIds: configIds(body.annotation_config_ids),
        reviewerIds: userIds(body.reviewer_ids),
        createdBy: callerUserId(request),
      });
      return { data: presentQueueDetail(created) };
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id',
    {
      schema: {
        tags,
        operationId: 'getAnnotationQueue',
        summary: 'Get an annotation queue',
        description: 'By id or name: its texts, configs, reviewers and progress.',
        params: QueuePath,
        response: { 200: Type.Object({ data: AnnotationQueueDetail }), ...errors(404) },
      },
    },
    async (request) => ({ data: presentQueueDetail(await service.get(queueOf(request.params))) }),
  );

  app.patch(
    '/v1/annotation_queues/:queue_id',
    {
      schema: {
        tags,
        operationId: 'updateAnnotationQueue',
        summary: 'Change an annotation queue',
        description: 'Only what is given changes; `annotation_config_ids` and `reviewer_ids` replace the lists whole.',
        params: QueuePath,
        body: UpdateAnnotationQueueBody,
        response: { 200: Type.Object({ data: AnnotationQueueDetail }), ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const updated = await service.update(queueOf(request.params), {
        name: body.name,
        description: body.description,
        instructions: body.instructions,
        configIds: configIds(body.annotation_config_ids),
        reviewerIds: userIds(body.reviewer_ids),
      });
      return { data: presentQueueDetail(updated) };
    },
  );

  app.delete(
    '/v1/annotation_queues/:queue_id',
    {
      schema: {
        tags,
        operationId: 'deleteAnnotationQueue',
        summary: 'Delete an annotation queue',
        description: 'With its items; the annotations its reviews wrote stay.',
        params: QueuePath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404) },
      },
    },
    async (request, reply) => {
      await service.delete(queueOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id/reviewers',
    {
      schema: {
        tags,
        operationId: 'listAnnotationQueueReviewers',
        summary: "List a queue's reviewers",
        description: `Besides admins, who may review its items; at most 500, so one page.`,
        params: QueuePath,
        response: { 200: Type.Object({ data: Type.Array(AnnotationQueueReviewer) }), ...errors(404) },
      },
    },
    async (request) => ({
      data: (await service.reviewers(queueOf(request.params))).map((user) => ({
        id: toGlobalId('User', user.id),
        username: user.username,
      })),
    }),
  );

  app.put(
    '/v1/annotation_queues/:queue_id/reviewers',
    {
      schema: {
        tags,
        operationId: 'setAnnotationQueueReviewers',
        summary: "Set a queue's reviewers",
        description: 'Makes the reviewers exactly these users (an empty list leaves the queue to admins).',
        params: QueuePath,
        body: SetReviewersBody,
        response: { 200: Type.Object({ data: Type.Array(AnnotationQueueReviewer) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const updated = await service.update(queueOf(request.params), { reviewerIds: userIds(request.body.reviewer_ids) });
      return { data: presentQueueDetail(updated).reviewers };
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id/annotation_configs',
    {
      schema: {
        tags,
        operationId: 'listAnnotationQueueConfigs',
        summary: "List a queue's annotation configs",
        description: 'What reviewers fill in, in the order they see it; at most 20, so one page.',
        params: QueuePath,
        response: { 200: Type.Object({ data: Type.Array(AnnotationConfig) }), ...errors(404) },
      },
    },
    async (request) => ({ data: (await service.configs(queueOf(request.params))).map(presentAnnotationConfig) }),
  );

  app.put(
    '/v1/annotation_queues/:queue_id/annotation_configs',
    {
      schema: {
        tags,
        operationId: 'setAnnotationQueueConfigs',
        summary: "Set a queue's annotation configs",
        description: 'Makes them exactly these, in this order (at most 20).',
        params: QueuePath,
        body: SetConfigsBody,
        response: { 200: Type.Object({ data: Type.Array(AnnotationConfig) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const updated = await service.update(queueOf(request.params), { configIds: configIds(request.body.annotation_config_ids) });
      return { data: updated.configs.map(presentAnnotationConfig) };
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id/items',
    {
      schema: {
        tags,
        operationId: 'listAnnotationQueueItems',
        summary: "List a queue's items",
        description: 'In the order they were added, optionally of one status; paged (`limit`, `cursor`).',
        params: QueuePath,
        querystring: ItemsQuery,
        response: { 200: Page(AnnotationQueueItem), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await service.items(queueOf(request.params), {
        limit,
        fromId: cursorId('AnnotationQueueItem', request.query.cursor),
        status: request.query.status,
      });
      return pageAnswer(
        'AnnotationQueueItem',
        rows.map((row) => ({ ...row, id: row.item.id })),
        limit,
        presentItem,
      );
    },
  );

  app.post(
    '/v1/annotation_queues/:queue_id/items',
    {
      schema: {
        tags,
        operationId: 'addAnnotationQueueItems',
        summary: 'Add items to a queue',
        description:
          'Spans, traces or sessions of one project by their ids (`project_id` with `span_ids`, `trace_ids` and/or `session_ids`, at most ' +
          "1000 in all; 404 naming the ids the project does not have, and nothing is added), or an experiment's runs' traces " +
          '(`experiment_id`). An item already in the queue is left as it is.',
        params: QueuePath,
        body: AddItemsBody,
        response: { 200: Type.Object({ data: AddedAnnotationQueueItems }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const hasIds = body.span_ids !== undefined || body.trace_ids !== undefined || body.session_ids !== undefined;
      if (body.experiment_id !== undefined) {
        if (hasIds || body.project_id !== undefined)
          throw new InvalidInputError('give either experiment_id, or project_id with span_ids, trace_ids or session_ids, not both');
        const experimentId = fromGlobalId('Experiment', body.experiment_id);
        if (experimentId === null) throw new InvalidInputError(`experiment_id: ${short(body.experiment_id)} is not an experiment id`);
        return { data: await service.addFromExperiment(queueOf(request.params), experimentId) };
      }
      if (body.project_id === undefined)
        throw new InvalidInputError('project_id is required with span_ids, trace_ids or session_ids (or give experiment_id)');
      const added = await service.addByIds(queueOf(request.params), {
        project: identifier('Project', body.project_id),
        spanIds: body.span_ids,
        traceIds: body.trace_ids,
        sessionIds: body.session_ids,
      });
      return { data: added };
    },
  );

  app.delete(
    '/v1/annotation_queues/:queue_id/items',
    {
      schema: {
        tags,
        operationId: 'deleteAnnotationQueueItems',
        summary: 'Remove items from a queue',
        description: 'The items of these ids (1 to 1000); ids not in the queue are ignored. The annotations written stay.',
        params: QueuePath,
        body: DeleteItemsBody,
        response: { 200: Type.Object({ data: Type.Object({ deleted: Type.Integer({ minimum: 0 }) }) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const ids = request.body.item_ids.map((value, index) => itemIdOf(value, `item_ids[${index}]`));
      return { data: { deleted: await service.deleteItems(queueOf(request.params), ids) } };
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id/items/:item_id',
    {
      schema: {
        tags,
        operationId: 'getAnnotationQueueItem',
        summary: 'Get an item of a queue',
        description: "With what the queue's reviews wrote on its target.",
        params: ItemPath,
        response: { 200: Type.Object({ data: AnnotationQueueReviewItem }), ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: presentReviewItem(await service.item(queueOf(request.params), itemIdOf(request.params.item_id))),
    }),
  );

  app.post(
    '/v1/annotation_queues/:queue_id/next',
    {
      schema: {
        tags,
        operationId: 'nextAnnotationQueueItem',
        summary: 'Take the next item to review',
        description:
          'The pending item the caller holds, else the first one nobody holds, locked to the caller for 10 minutes (asking again ' +
          'renews the lock; another reviewer is not handed it meanwhile). With `after_item_id`, the caller moves on from that item ' +
          'without judging it: its lock is freed and the first free item after it is taken (from the start past the last). `data` is ' +
          'null when nothing is left. Reviewers of the ' +
          'queue and admins only (403).',
        params: QueuePath,
        querystring: NextQuery,
        response: { 200: Type.Object({ data: Type.Union([AnnotationQueueReviewItem, Type.Null()]) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const after = request.query.after_item_id;
      const item = await service.next(queueOf(request.params), reviewerOf(request), {
        afterItemId: after === undefined ? undefined : itemIdOf(after, 'after_item_id'),
      });
      return { data: item && presentReviewItem(item) };
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id/previous',
    {
      schema: {
        tags,
        operationId: 'listPreviousAnnotationQueueItems',
        summary: "The caller's reviewed items, most recent first",
        description: 'Items the caller submitted or skipped, to go back and revise them; paged (`limit`, `cursor`).',
        params: QueuePath,
        querystring: ListQuery,
        response: { 200: Page(AnnotationQueueReviewItem), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await service.previous(queueOf(request.params), reviewerOf(request), {
        limit,
        fromId: cursorId('AnnotationQueueItem', request.query.cursor),
      });
      return pageAnswer(
        'AnnotationQueueItem',
        rows.map((row) => ({ ...row, id: row.item.id })),
        limit,
        presentReviewItem,
      );
    },
  );

  app.post(
    '/v1/annotation_queues/:queue_id/items/:item_id/submit',
    {
      schema: {
        tags,
        operationId: 'submitAnnotationQueueItem',
        summary: 'Submit a review',
        description:
          "Writes each filled config as a HUMAN annotation by the caller on the item's span, trace or session (checked against the " +
          "config: 422 naming the field), and the note as a note, under the queue's identifier so that submitting again overwrites; " +
          'marks the item done and frees its lock. 409 when another reviewer holds the item. With `next=true` the answer also ' +
          'holds the next item, taken as POST …/next would (one round trip less for a reviewer going on).',
        params: ItemPath,
        querystring: ThenNextQuery,
        body: SubmitItemBody,
        response: { 200: ReviewedAnswer, ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const item = await service.submit(queueOf(request.params), itemIdOf(request.params.item_id), reviewerOf(request), {
        annotations: body.annotations.map((annotation) => ({
          config: { text: annotation.config, rowId: configRowId(annotation.config) },
          label: annotation.label,
          score: annotation.score,
          explanation: annotation.explanation,
        })),
        note: body.note,
        source: body.source,
      });
      return answerWithNext(request, request.params, request.query.next, item);
    },
  );

  app.post(
    '/v1/annotation_queues/:queue_id/items/:item_id/skip',
    {
      schema: {
        tags,
        operationId: 'skipAnnotationQueueItem',
        summary: 'Skip an item',
        description:
          'Marks it skipped by the caller (with an optional note) and frees its lock. 409 when another reviewer holds it. ' +
          '`next=true` as for submit.',
        params: ItemPath,
        querystring: ThenNextQuery,
        body: SkipItemBody,
        response: { 200: ReviewedAnswer, ...errors(404, 409, 422) },
      },
      // The note is optional, and so is the body that carries it: a bare POST skips.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const item = await service.skip(queueOf(request.params), itemIdOf(request.params.item_id), reviewerOf(request), request.body.note);
      return answerWithNext(request, request.params, request.query.next, item);
    },
  );

  app.post(
    '/v1/annotation_queues/:queue_id/items/:item_id/release',
    {
      schema: {
        tags,
        operationId: 'releaseAnnotationQueueItem',
        summary: 'Give an item back',
        description: 'Frees the lock of a pending item so another reviewer may take it: its holder or an admin may. 409 otherwise.',
        params: ItemPath,
        response: { 200: Type.Object({ data: AnnotationQueueReviewItem }), ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const item = await service.release(queueOf(request.params), itemIdOf(request.params.item_id), reviewerOf(request));
      return { data: presentReviewItem(item) };
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id/progress',
    {
      schema: {
        tags,
        operationId: 'getAnnotationQueueProgress',
        summary: "A queue's progress",
        description: 'Items in all, pending, done and skipped, and how many are being reviewed now.',
        params: QueuePath,
        response: { 200: Type.Object({ data: AnnotationQueueProgress }), ...errors(404) },
      },
    },
    async (request) => {
      const progress = await service.progress(queueOf(request.params));
      return {
        data: {
          total: progress.total,
          pending: progress.pending,
          done: progress.done,
          skipped: progress.skipped,
          in_review: progress.inReview,
        },
      };
    },
  );

  app.get(
    '/v1/annotation_queues/:queue_id/export',
    {
      schema: {
        tags,
        operationId: 'exportAnnotationQueue',
        summary: "Download a queue's items with their annotations",
        description:
          "Every item (any status) with its target's ids, who completed it and when, its note, and the annotations the queue's " +
          'reviews wrote: JSONL (one item per line, `annotations` by config name) or CSV (label, score and explanation columns per ' +
          'config). Streamed page by page.',
        params: QueuePath,
        querystring: ExportQuery,
        // Streamed: typed as unknown so a Readable can be sent; the document still says string.
        response: { 200: Type.Unsafe<unknown>({ type: 'string' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      const csv = request.query.format === 'csv';
      const { queue, configs, pages } = await service.export(queueOf(request.params));
      const names = configs.map((config) => config.name);
      async function* body() {
        if (csv) yield exportCsvHeader(names);
        for await (const page of pages) {
          yield page.items
            .map((view) => (csv ? exportCsvLine(view, page.usernames, names) : exportJsonLine(view, page.usernames)))
            .join('');
        }
      }
      return reply
        .type(csv ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8')
        .header('content-disposition', `attachment; filename="${fileName(queue.name, csv ? 'csv' : 'jsonl')}"`)
        .send(Readable.from(body()));
    },
  );
}
