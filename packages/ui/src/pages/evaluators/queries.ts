/** React Query hooks and calls of the evaluators stored on the server (docs/evaluators.md). */
import { useQuery } from '@tanstack/react-query';
import type { EvaluatorTryResult, JudgeTemplate, StoredEvaluator } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';

export const evaluatorsKey = ['evaluators'] as const;
export const datasetEvaluatorsKey = (datasetId: string) => ['dataset-evaluators', datasetId] as const;

/** Every evaluator, by name (follows next_cursor). */
export function useEvaluators() {
  return useQuery({
    queryKey: evaluatorsKey,
    queryFn: ({ signal }) =>
      allPages<StoredEvaluator>((cursor) => call(client.GET('/v1/evaluators', { params: { query: { limit: 1000, cursor } }, signal }))),
    staleTime: 0,
  });
}

export function useJudgeTemplates() {
  return useQuery({
    queryKey: ['evaluator-templates'],
    queryFn: async ({ signal }) => (await call(client.GET('/v1/evaluator_templates', { signal }))).data as JudgeTemplate[],
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useDatasetEvaluators(datasetId: string) {
  return useQuery({
    queryKey: datasetEvaluatorsKey(datasetId),
    queryFn: async ({ signal }) =>
      (await call(client.GET('/v1/datasets/{dataset_id}/evaluators', { params: { path: { dataset_id: datasetId } }, signal }))).data,
  });
}

export interface TryItemFields {
  input: string;
  output: string;
  reference: string;
}

/** A text field as the item's value: JSON when it parses as JSON, else the text itself. */
function fieldValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/** Runs a definition (not saved) on an item. */
export async function tryDefinition(definition: unknown, item: TryItemFields): Promise<EvaluatorTryResult> {
  const body = {
    definition,
    item: { input: fieldValue(item.input), output: fieldValue(item.output), reference: fieldValue(item.reference) },
  };
  return (await call(client.POST('/v1/evaluators/try', { body }))).data;
}

export async function saveEvaluator(
  existing: StoredEvaluator | null,
  fields: { name: string; description: string | null; definition: unknown },
): Promise<StoredEvaluator> {
  if (existing) {
    const body = { name: fields.name, description: fields.description, definition: fields.definition };
    return (await call(client.PATCH('/v1/evaluators/{evaluator_id}', { params: { path: { evaluator_id: existing.id } }, body }))).data;
  }
  return (await call(client.POST('/v1/evaluators', { body: fields }))).data;
}

export async function deleteEvaluator(id: string): Promise<void> {
  await call(client.DELETE('/v1/evaluators/{evaluator_id}', { params: { path: { evaluator_id: id } } }));
}

export async function attachEvaluator(datasetId: string, evaluatorId: string): Promise<void> {
  await call(
    client.PUT('/v1/datasets/{dataset_id}/evaluators/{evaluator_id}', {
      params: { path: { dataset_id: datasetId, evaluator_id: evaluatorId } },
    }),
  );
}

export async function detachEvaluator(datasetId: string, evaluatorId: string): Promise<void> {
  await call(
    client.DELETE('/v1/datasets/{dataset_id}/evaluators/{evaluator_id}', {
      params: { path: { dataset_id: datasetId, evaluator_id: evaluatorId } },
    }),
  );
}
