/**
 * V8 heap tuning for the long-running `serve` process (docs/performance.md, "Memory").
 *
 * Under sustained ingest the main thread promotes much of each request's short-lived data, and
 * V8's default heap growth lets the old generation swell to three or four times its live size
 * between full collections: peak RSS 426 MB for about 60 MB of live data. Growing it by half its
 * live size instead keeps the peak near 336 MB for 3 % of ingest throughput. The flag is read at
 * every full collection, so setting it at start-up applies to the process and its threads.
 */
import v8 from 'node:v8';

/** Heap growth after a full collection, as a percentage of the live size. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The node options `npm start` gives `sightline serve` (package.json's start script holds the
 * same, a unit test checks it; the benchmarks and the tests' server processes start with them
 * too). The main thread's young generation can only be sized when the process starts, and V8
 * grows it to 32 MB (16 MB semi-spaces) under any sustained load. Half that lowers the peak under
 * bench:ingest by about 12 MB at no measurable cost; a quarter by 30 MB, but for up to a fifth of
 * the throughput (docs/performance.md, "Memory").
 */
export const SERVE_NODE_OPTIONS = ['--max-semi-space-size=8'] as const;

/**
 * The environment `npm start` (and the container image) give `sightline serve`. glibc's malloc
 * gives each thread that allocates its own arena (up to eight per core); the server's threads
 * (writer, compression, libuv's pool for zlib) each kept tens of megabytes of freed buffers. Two
 * arenas: a 10-million-span Parquet export peaked 30-40 MB lower, ingest at about 4 % less
 * throughput (docs/performance.md, "Export"). Read by glibc when the process starts, so it has
 * to be in the environment node starts with; other C libraries ignore it.
 */
export const SERVE_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/**
 * Applies the server's heap growth setting, unless the operator passed their own to node
 * (`--heap-growing-percent=N`), and clears any semi-space size once it has sized the main
 * thread's heap: as a V8 flag it would override the young generation each worker thread is
 * given (the span writer's `resourceLimits`).
 */
export function tuneHeapForService(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): void {
  setFlags('--max-semi-space-size=0');
  if (execArgv.some((argument) => /^--heap[-_]growing[-_]percent\b/.test(argument))) return;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
