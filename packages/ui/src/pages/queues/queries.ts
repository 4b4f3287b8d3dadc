/** React Query hooks and calls of annotation queues (docs/annotation-queues.md). */
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { AnnotationQueue, AnnotationQueueDetail, AnnotationQueueReviewItem } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages, cursorPages } from '../../api/paging';

export const queuesKey = ['annotation-queues'] as const;
export const queueKey = (queueId: string) => ['annotation-queue', queueId] as const;
export const queueItemsKey = (queueId: string) => ['annotation-queue-items', queueId] as const;
export const queueProgressKey = (queueId: string) => ['annotation-queue-progress', queueId] as const;

const inQueue = (queueId: string) => ({ queue_id: queueId });

/** Every queue, by name (follows next_cursor). */
export function useQueues() {
  return useQuery({
    queryKey: queuesKey,
    queryFn: ({ signal }) =>
      allPages<AnnotationQueue>((cursor) =>
        call(client.GET('/v1/annotation_queues', { params: { query: { limit: 1000, cursor } }, signal })),
      ),
    staleTime: 0,
  });
}

export function useQueue(queueId: string) {
  return useQuery({
    queryKey: queueKey(queueId),
    queryFn: async ({ signal }) =>
      (await call(client.GET('/v1/annotation_queues/{queue_id}', { params: { path: inQueue(queueId) }, signal }))).data,
  });
}

export function useQueueProgress(queueId: string) {
  return useQuery({
    queryKey: queueProgressKey(queueId),
    queryFn: async ({ signal }) =>
      (await call(client.GET('/v1/annotation_queues/{queue_id}/progress', { params: { path: inQueue(queueId) }, signal }))).data,
  });
}

/** The queue's items page by page, in the order they were added. */
export function useQueueItems(queueId: string) {
  return useInfiniteQuery({
    queryKey: queueItemsKey(queueId),
    queryFn: ({ pageParam, signal }) =>
      call(
        client.GET('/v1/annotation_queues/{queue_id}/items', {
          params: { path: inQueue(queueId), query: { limit: 100, cursor: pageParam ?? undefined } },
          signal,
        }),
      ),
    ...cursorPages,
  });
}

export interface QueueFields {
  name: string;
  description: string | null;
  instructions: string | null;
  annotation_config_ids: string[];
  reviewer_ids?: string[];
}

export async function saveQueue(existing: AnnotationQueueDetail | null, fields: QueueFields): Promise<AnnotationQueueDetail> {
  if (existing)
    return (await call(client.PATCH('/v1/annotation_queues/{queue_id}', { params: { path: inQueue(existing.id) }, body: fields }))).data;
  return (await call(client.POST('/v1/annotation_queues', { body: fields }))).data;
}

export async function deleteQueue(queueId: string): Promise<void> {
  await call(client.DELETE('/v1/annotation_queues/{queue_id}', { params: { path: inQueue(queueId) } }));
}

export type AddItemsBody =
  | { project_id: string; span_ids?: string[]; trace_ids?: string[]; session_ids?: string[] }
  | { experiment_id: string };

export async function addItems(queueId: string, body: AddItemsBody) {
  return (await call(client.POST('/v1/annotation_queues/{queue_id}/items', { params: { path: inQueue(queueId) }, body }))).data;
}

export async function removeItems(queueId: string, itemIds: string[]) {
  return (
    await call(client.DELETE('/v1/annotation_queues/{queue_id}/items', { params: { path: inQueue(queueId) }, body: { item_ids: itemIds } }))
  ).data;
}

/** The reviewer's next item (locked to them), or the next after `afterItemId` when moving on without judging it. */
export async function nextItem(queueId: string, afterItemId?: string): Promise<AnnotationQueueReviewItem | null> {
  return (
    await call(
      client.POST('/v1/annotation_queues/{queue_id}/next', {
        params: { path: inQueue(queueId), query: afterItemId ? { after_item_id: afterItemId } : {} },
      }),
    )
  ).data;
}

export async function getItem(queueId: string, itemId: string): Promise<AnnotationQueueReviewItem> {
  return (
    await call(client.GET('/v1/annotation_queues/{queue_id}/items/{item_id}', { params: { path: { queue_id: queueId, item_id: itemId } } }))
  ).data;
}

/** The reviewer's most recently reviewed items, newest first (one page: enough to step back through). */
export async function previousItems(queueId: string): Promise<AnnotationQueueReviewItem[]> {
  return (
    await call(client.GET('/v1/annotation_queues/{queue_id}/previous', { params: { path: inQueue(queueId), query: { limit: 100 } } }))
  ).data;
}

export interface SubmittedAnnotation {
  config: string;
  label?: string;
  score?: number;
  explanation?: string;
}

/** What a submit or skip answers: the item as saved, and the next one when it was asked for (null: nothing left). */
export interface Reviewed {
  data: AnnotationQueueReviewItem;
  next?: AnnotationQueueReviewItem | null;
}

/** Submits the review; with `thenNext`, the answer also holds the reviewer's next item (one round trip for both). */
export async function submitItem(
  queueId: string,
  itemId: string,
  body: { annotations: SubmittedAnnotation[]; note: string | null },
  thenNext: boolean,
): Promise<Reviewed> {
  return call(
    client.POST('/v1/annotation_queues/{queue_id}/items/{item_id}/submit', {
      params: { path: { queue_id: queueId, item_id: itemId }, query: { next: thenNext } },
      body: { ...body, source: 'APP' },
    }),
  );
}

export async function skipItem(queueId: string, itemId: string, note: string | null): Promise<Reviewed> {
  return call(
    client.POST('/v1/annotation_queues/{queue_id}/items/{item_id}/skip', {
      params: { path: { queue_id: queueId, item_id: itemId }, query: { next: true } },
      body: { note },
    }),
  );
}
