/**
 * The latency histogram of the span rollups (docs/dashboards.md, "Rollups"): a fixed log scale,
 * so that histograms of any minutes, names or projects merge by adding bucket counts (in SQL, as
 * sums of columns). Bucket 0 holds latencies under 0.1 ms; bucket i (1 … 62) holds
 * [0.1·√2^(i−1), 0.1·√2^i) ms; bucket 63 everything from 0.1·2^31 ms (about 60 hours) up.
 * A percentile read from it is the geometric middle of its bucket: within a factor 2^(1/4)
 * (±19 %) of the exact value for latencies from 0.1 ms to 60 hours.
 */
export const LATENCY_BUCKETS = 64;
const FIRST_BOUND_NS = 100_000; // 0.1 ms
const LAST = LATENCY_BUCKETS - 1;

/** The column of bucket `index` in span_rollups: h00 … h63. */
export function bucketColumn(index: number): `h${string}` {
  return `h${index < 10 ? '0' : ''}${index}`;
}

export const BUCKET_COLUMNS: readonly `h${string}`[] = Array.from({ length: LATENCY_BUCKETS }, (_, index) => bucketColumn(index));

/** The bucket of a latency in nanoseconds. */
export function latencyBucket(latencyNs: number): number {
  if (!(latencyNs >= FIRST_BOUND_NS)) return 0;
  const index = 1 + Math.floor(2 * Math.log2(latencyNs / FIRST_BOUND_NS));
  return Math.min(index, LAST);
}

/**
 * The smallest whole latency (ns) of each bucket from 1 up, found with latencyBucket itself, so
 * that SQL placing a latency among them agrees with it exactly, also on a bucket's bound.
 */
export const BUCKET_FLOORS_NS: readonly number[] = Array.from({ length: LAST }, (_, index) => {
  let low = FIRST_BOUND_NS;
  let high = Number.MAX_SAFE_INTEGER;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (latencyBucket(middle) >= index + 1) high = middle;
    else low = middle + 1;
  }
  return low;
});

/**
 * A latency's bucket in PostgreSQL (`latency`: SQL of whole nanoseconds): a binary search of
 * BUCKET_FLOORS_NS by `width_bucket`. The same as `1 + floor(2 * log(2, latency / 100000.0))`,
 * but that computes a numeric logarithm per span: rolling up 10M spans spent minutes on it.
 */
export function pgLatencyBucketSql(latency: string): string {
  return `width_bucket(${latency}, ${PG_BUCKET_FLOORS})`;
}

/** BUCKET_FLOORS_NS as a PostgreSQL array literal. */
export const PG_BUCKET_FLOORS = `'{${BUCKET_FLOORS_NS.join(',')}}'::bigint[]`;

/** The lower bound of bucket `index` in milliseconds (0 for bucket 0). */
export function bucketLowerMs(index: number): number {
  return index === 0 ? 0 : 0.1 * Math.SQRT2 ** (index - 1);
}

/**
 * The p-th percentile (0 < p < 1) of a histogram in milliseconds, as the geometric middle of the
 * bucket that holds the rank p·(n−1) (the same rank as the exact, continuous percentile of the
 * window metrics); null for an empty histogram.
 */
export function histogramPercentile(counts: ArrayLike<number>, p: number): number | null {
  let total = 0;
  for (let index = 0; index < counts.length; index++) total += counts[index]!;
  if (total === 0) return null;
  const rank = p * (total - 1);
  let seen = 0;
  for (let index = 0; index < counts.length; index++) {
    seen += counts[index]!;
    if (seen > rank) {
      if (index === 0) return 0.05;
      if (index === LAST) return bucketLowerMs(LAST);
      return bucketLowerMs(index) * 2 ** 0.25;
    }
  }
  return bucketLowerMs(LAST);
}
