/** React Query hooks of datasets, their versions and examples, and their experiments and comparisons. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Dataset, DatasetVersion, Experiment } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';

export const datasetsKey = ['datasets'] as const;

/** Every dataset, newest first (follows next_cursor). */
export function useDatasets() {
  return useQuery({
    queryKey: datasetsKey,
    queryFn: ({ signal }) =>
      allPages<Dataset>((cursor) => call(client.GET('/v1/datasets', { params: { query: { limit: 1000, cursor } }, signal }))),
    staleTime: 0,
  });
}

export function useDataset(datasetId: string) {
  return useQuery({
    queryKey: ['dataset', datasetId],
    queryFn: async ({ signal }) => (await call(client.GET('/v1/datasets/{id}', { params: { path: { id: datasetId } }, signal }))).data,
  });
}

export function useDatasetVersions(datasetId: string) {
  return useQuery({
    queryKey: ['dataset-versions', datasetId],
    queryFn: ({ signal }) =>
      allPages<DatasetVersion>((cursor) =>
        call(client.GET('/v1/datasets/{id}/versions', { params: { path: { id: datasetId }, query: { limit: 1000, cursor } }, signal })),
      ),
  });
}

/** One page of the examples at a version (undefined: the latest), from `cursor`: a big dataset is never fetched whole. */
export function useDatasetExamples(datasetId: string, versionId: string | undefined, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: ['dataset-examples', datasetId, versionId ?? 'latest', cursor ?? '', limit],
    queryFn: ({ signal }) =>
      call(
        client.GET('/v1/datasets/{id}/examples', {
          params: { path: { id: datasetId }, query: { ...(versionId ? { version_id: versionId } : {}), limit, cursor } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** A dataset's experiments, newest first, with their counts and per-evaluator summaries. */
export function useExperiments(datasetId: string) {
  return useQuery({
    queryKey: ['experiments', datasetId],
    queryFn: ({ signal }) =>
      allPages<Experiment>((cursor) =>
        call(
          client.GET('/v1/datasets/{dataset_id}/experiments', {
            params: { path: { dataset_id: datasetId }, query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
    staleTime: 0,
  });
}

/**
 * A comparison's view: the examples that regressed or improved on an evaluator's score against
 * the base, or failed; and the row order (by example, or by the score delta, largest drop first).
 */
export interface ComparisonFilter {
  filter: 'regressed' | 'improved' | 'failed' | undefined;
  scoreName: string | undefined;
  sort?: 'example' | 'score_delta' | undefined;
}

/** One page of a comparison (rows are the base experiment's examples, from `cursor`). */
export function useComparison(
  datasetId: string,
  experimentIds: string[],
  cursor: string | undefined,
  limit = 50,
  filter: ComparisonFilter = { filter: undefined, scoreName: undefined },
) {
  return useQuery({
    queryKey: ['comparison', datasetId, experimentIds, cursor ?? '', limit, filter],
    queryFn: ({ signal }) =>
      call(
        client.GET('/v1/datasets/{dataset_id}/compare', {
          params: {
            path: { dataset_id: datasetId },
            query: { experiment_id: experimentIds, cursor, limit, filter: filter.filter, score_name: filter.scoreName, sort: filter.sort },
          },
          signal,
        }),
      ),
    enabled: experimentIds.length > 0,
    placeholderData: keepPreviousData,
  });
}
