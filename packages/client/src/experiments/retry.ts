/**
 * Retries with exponential backoff and jitter for the runner's HTTP calls (docs/experiments.md,
 * "Sightline's runner"): 429 and 503 (honouring Retry-After) and network errors are retried a
 * bounded number of times; any other answer is final.
 */

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** Delay before the first retry, doubled for each next one (default 200 ms). */
  baseDelayMs?: number;
  /** Ceiling of the exponential delay (default 10 s). */
  maxDelayMs?: number;
  /** Ceiling of a server's Retry-After (default 60 s), so a bad header cannot park the run. */
  maxRetryAfterMs?: number;
}

/** What the retry loop needs from its surroundings; tests inject their own clock and dice. */
export interface RetryEnvironment {
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 5, baseDelayMs: 200, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

/** Statuses that say "try again later" rather than "this request is wrong". */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (1 for the first retry): the server's Retry-After when it
 * gave one (capped), else "equal jitter" backoff, half fixed and half random, so many runners
 * that failed together do not come back together.
 */
export function backoffDelay(retry: number, options: RetryOptions = {}, retryAfterMs: number | null = null, random = Math.random): number {
  const settings = { ...DEFAULT_RETRY, ...options };
  if (retryAfterMs !== null)
    return Math.min(retryAfterMs, settings.maxRetryAfterMs) + Math.floor(random() * Math.min(settings.baseDelayMs, 100));
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}

/** Sleeps `ms`, waking early (rejecting with the signal's reason) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** True for a failure of the connection itself (refused, reset, DNS), which fetch reports as a TypeError. */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return false;
  return (
    error instanceof TypeError || /ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR/.test(String((error as { code?: unknown }).code ?? ''))
  );
}

/**
 * Calls `attempt` until it gives a response whose status is not 429/503, a network error stops
 * happening, or the attempts run out; returns the last response (the caller turns non-2xx into errors).
 */
export async function fetchWithRetry(
  attempt: () => Promise<Response>,
  options: RetryOptions = {},
  signal?: AbortSignal,
  environment: RetryEnvironment = {},
): Promise<Response> {
  const settings = { ...DEFAULT_RETRY, ...options };
  const wait = environment.sleep ?? sleep;
  const random = environment.random ?? Math.random;
  for (let number = 1; ; number++) {
    let response: Response;
    try {
      response = await attempt();
    } catch (error) {
      if (number >= settings.attempts || !isNetworkError(error) || signal?.aborted) throw error;
      await wait(backoffDelay(number, settings, null, random), signal);
      continue;
    }
    if (!RETRYABLE_STATUSES.has(response.status) || number >= settings.attempts) return response;
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    // The body is not needed; reading it frees the connection for the next attempt.
    await response.arrayBuffer().catch(() => undefined);
    await wait(backoffDelay(number, settings, retryAfter, random), signal);
  }
}
