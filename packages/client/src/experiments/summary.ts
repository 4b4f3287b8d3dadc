/** The end-of-run summary: computed from what the invocation recorded, and printed as a table. */
import type { Experiment } from '../types.js';
import { formatDuration } from './progress.js';
import type { EvaluationRecord, EvaluatorSummary, ExperimentSummary, RunRecord } from './types.js';

/** Per evaluator mean score, label counts and failures; runs ok/failed; wall time. */
export function summarize(
  runs: readonly RunRecord[],
  evaluations: readonly EvaluationRecord[],
  wallTimeMs: number,
  experiment: Pick<Experiment, 'id' | 'successful_run_count' | 'failed_run_count' | 'missing_run_count'>,
): ExperimentSummary {
  const byName = new Map<string, { count: number; sum: number; scored: number; labels: Record<string, number>; failures: number }>();
  for (const evaluation of evaluations) {
    let entry = byName.get(evaluation.name);
    if (!entry) {
      entry = { count: 0, sum: 0, scored: 0, labels: {}, failures: 0 };
      byName.set(evaluation.name, entry);
    }
    entry.count++;
    if (evaluation.error !== null) {
      entry.failures++;
      continue;
    }
    const score = evaluation.result?.score;
    if (typeof score === 'number' && Number.isFinite(score)) {
      entry.sum += score;
      entry.scored++;
    }
    const label = evaluation.result?.label;
    if (typeof label === 'string') entry.labels[label] = (entry.labels[label] ?? 0) + 1;
  }
  const evaluators: EvaluatorSummary[] = [...byName.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, entry]) => ({
      name,
      count: entry.count,
      meanScore: entry.scored === 0 ? null : entry.sum / entry.scored,
      labels: Object.fromEntries(Object.entries(entry.labels).sort(([a], [b]) => a.localeCompare(b))),
      failures: entry.failures,
    }));
  return {
    runs: {
      total: runs.length,
      ok: runs.filter((run) => run.status === 'ok').length,
      failed: runs.filter((run) => run.status === 'failed').length,
      doneBefore: runs.filter((run) => run.status === 'done-before').length,
    },
    evaluators,
    wallTimeMs,
    experiment: {
      id: experiment.id,
      successful: experiment.successful_run_count,
      failed: experiment.failed_run_count,
      missing: experiment.missing_run_count,
    },
  };
}

/** Lays rows out in columns, the first row as a header. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const [header, ...body] = rows;
  if (!header) return '';
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

/** The summary as printed at the end of a run. */
export function formatSummary(summary: ExperimentSummary): string {
  const { runs, experiment } = summary;
  const lines = [
    `runs: ${runs.ok} ok, ${runs.failed} failed${runs.doneBefore > 0 ? `, ${runs.doneBefore} already done` : ''} in ${formatDuration(summary.wallTimeMs)}`,
    `experiment ${experiment.id}: ${experiment.successful} successful, ${experiment.failed} failed, ${experiment.missing} missing`,
  ];
  if (summary.evaluators.length > 0) {
    const rows = [
      ['evaluator', 'n', 'mean score', 'labels', 'failures'],
      ...summary.evaluators.map((evaluator) => [
        evaluator.name,
        String(evaluator.count),
        evaluator.meanScore === null ? '-' : evaluator.meanScore.toFixed(3),
        Object.entries(evaluator.labels)
          .map(([label, count]) => `${label}: ${count}`)
          .join(', ') || '-',
        String(evaluator.failures),
      ]),
    ];
    lines.push('', formatTable(rows));
  }
  return `${lines.join('\n')}\n`;
}
