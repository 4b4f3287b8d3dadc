/**
 * Population stability index (PSI) of a feature: how far a window's distribution moved from a
 * baseline window's. Pure functions; the binning rules are documented in docs/monitor.md.
 *
 * Numeric features: quantile bins of the baseline. With n sorted baseline values b and k bins,
 * the candidate edges are b[floor(i·n/k)] for i = 1..k-1; duplicates and edges equal to the
 * baseline minimum are dropped. Bin j holds lower ≤ v < upper, the first bin is open below and
 * the last open above, so every value of either window falls in exactly one bin.
 * Categorical features: one bin per category seen in either window.
 * PSI = Σ (p − q) · ln(p / q) over bins, p the window's share and q the baseline's share of the
 * bin, where a share of 0 is replaced by 0.0001 (EPSILON) so empty bins stay finite.
 */

import type { CategoryBin, NumericBin } from '@sightline/monitor-sdk';

export const EPSILON = 0.0001;
export const DEFAULT_BINS = 10;
export const MAX_BINS = 100;

/** Bin edges from the baseline values (see the module comment). */
export function quantileEdges(baseline: number[], bins: number): number[] {
  const sorted = Float64Array.from(baseline).sort();
  const n = sorted.length;
  const edges: number[] = [];
  if (n === 0) return edges;
  for (let i = 1; i < bins; i++) {
    const edge = sorted[Math.floor((i * n) / bins)]!;
    if (edge > sorted[0]! && (edges.length === 0 || edge > edges[edges.length - 1]!)) edges.push(edge);
  }
  return edges;
}

/** Index of the bin holding `value`: the number of edges ≤ value. */
export function binIndex(edges: number[], value: number): number {
  let low = 0;
  let high = edges.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (edges[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** PSI of two count vectors over the same bins. */
export function psi(baselineCounts: number[], counts: number[]): number {
  const baselineTotal = baselineCounts.reduce((sum, value) => sum + value, 0);
  const total = counts.reduce((sum, value) => sum + value, 0);
  let sum = 0;
  for (let i = 0; i < counts.length; i++) {
    const p = Math.max(counts[i]! / total, EPSILON);
    const q = Math.max(baselineCounts[i]! / baselineTotal, EPSILON);
    sum += (p - q) * Math.log(p / q);
  }
  return sum;
}

export function numericDrift(baseline: number[], values: number[], bins: number): { psi: number | null; bins: NumericBin[] } {
  const edges = quantileEdges(baseline, bins);
  const baselineCounts = new Array<number>(edges.length + 1).fill(0);
  const counts = new Array<number>(edges.length + 1).fill(0);
  for (const value of baseline) baselineCounts[binIndex(edges, value)]!++;
  for (const value of values) counts[binIndex(edges, value)]!++;
  const share = (count: number, total: number) => (total === 0 ? 0 : count / total);
  return {
    psi: baseline.length === 0 || values.length === 0 ? null : psi(baselineCounts, counts),
    bins: counts.map((count, i) => ({
      lower: i === 0 ? null : edges[i - 1]!,
      upper: i === edges.length ? null : edges[i]!,
      baseline_count: baselineCounts[i]!,
      count,
      baseline_proportion: share(baselineCounts[i]!, baseline.length),
      proportion: share(count, values.length),
    })),
  };
}

export function categoricalDrift(baseline: string[], values: string[]): { psi: number | null; bins: CategoryBin[] } {
  const tally = new Map<string, [number, number]>();
  for (const value of baseline) {
    const entry = tally.get(value) ?? [0, 0];
    entry[0]++;
    tally.set(value, entry);
  }
  for (const value of values) {
    const entry = tally.get(value) ?? [0, 0];
    entry[1]++;
    tally.set(value, entry);
  }
  const categories = [...tally.keys()].sort();
  const baselineCounts = categories.map((category) => tally.get(category)![0]);
  const counts = categories.map((category) => tally.get(category)![1]);
  const share = (count: number, total: number) => (total === 0 ? 0 : count / total);
  return {
    psi: baseline.length === 0 || values.length === 0 ? null : psi(baselineCounts, counts),
    bins: categories.map((category, i) => ({
      category,
      baseline_count: baselineCounts[i]!,
      count: counts[i]!,
      baseline_proportion: share(baselineCounts[i]!, baseline.length),
      proportion: share(counts[i]!, values.length),
    })),
  };
}
