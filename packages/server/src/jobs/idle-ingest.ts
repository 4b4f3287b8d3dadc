/** Waiting for idle ingest, shared by the background jobs that write through the span writer (retention, long-attributes conversion). */

/** What a job is given to wait for: resolves when the span queue has nothing waiting or being written. */
export type IngestIdle = () => Promise<void>;

/**
 * Waits until ingest is idle, but at most `limitMs` (ingest that never pauses must not stop the
 * job); resolves to how long it waited. Without `ingestIdle`, or with no time to wait, at once.
 */
export async function waitForIdleIngest(ingestIdle: IngestIdle | undefined, limitMs: number): Promise<number> {
  if (!ingestIdle || limitMs <= 0) return 0;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ingestIdle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)))]);
  clearTimeout(timer);
  return performance.now() - started;
}
