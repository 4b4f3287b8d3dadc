/** Helpers shared by the experiments list and the comparison page. */
import type { Experiment } from '@sightline/client/browser';

/** The comparison page of a dataset for these experiments (the first is the base). */
export function comparePath(datasetId: string, experimentIds: string[]): string {
  const query = new URLSearchParams(experimentIds.map((id) => ['experimentId', id]));
  return `/datasets/${encodeURIComponent(datasetId)}/compare?${query}`;
}

/** Every evaluator name across the experiments, sorted. */
export function evaluatorNames(experiments: Experiment[]): string[] {
  return [
    ...new Set(experiments.flatMap((experiment) => (experiment.annotation_summaries ?? []).map((item) => item.annotation_name))),
  ].sort();
}

/** The mean score of one evaluator on an experiment, or null when it never scored. */
export function meanScore(experiment: Experiment, name: string): number | null {
  return experiment.annotation_summaries?.find((item) => item.annotation_name === name)?.mean_score ?? null;
}

/** A score as people read it: up to three decimals. */
export function formatScore(score: number | null | undefined): string {
  return score === null || score === undefined ? '–' : String(Math.round(score * 1000) / 1000);
}
