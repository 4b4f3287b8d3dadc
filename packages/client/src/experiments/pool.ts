/** A bounded pool: at most `concurrency` workers in flight over a list of items. */

/**
 * Runs `worker` on every item with at most `concurrency` in flight. The first worker that throws
 * stops the scheduling of new items; the pool waits for the ones in flight, then rethrows.
 * An aborted signal also stops scheduling (the caller decides what an abort means).
 */
export async function runPool<T>(
  items: Iterable<T>,
  concurrency: number,
  worker: (item: T, index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const iterator = items[Symbol.iterator]();
  let index = 0;
  let failure: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (failure === null && !signal?.aborted) {
      const next = iterator.next();
      if (next.done) return;
      const position = index++;
      try {
        await worker(next.value, position);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
