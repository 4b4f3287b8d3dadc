/**
 * A store for @fastify/rate-limit that counts in the database instead of process memory, so
 * every replica behind a load balancer enforces one shared limit per client (docs/auth.md,
 * "Protection against guessing and forgery"; docs/deployment.md).
 */
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RateLimitsRepository } from '../db/repositories/rate-limits-repository.js';

/** How often expired buckets are deleted (by whichever replica counts a request then). */
const SWEEP_INTERVAL_MS = 60_000;

type Result = { current: number; ttl: number };

/** A store class over the repository; `onError` hears failures of the background sweep. */
export function databaseRateLimitStore(repository: RateLimitsRepository, onError?: (error: unknown) => void): FastifyRateLimitStoreCtor {
  let lastSweep = Date.now();
  let longestWindow = 0;
  const sweep = (now: number) => {
    if (now - lastSweep < SWEEP_INTERVAL_MS || longestWindow === 0) return;
    lastSweep = now;
    repository.deleteStartedBefore(now - longestWindow).catch((error: unknown) => onError?.(error));
  };

  class DatabaseStore implements FastifyRateLimitStore {
    constructor(
      _options: FastifyRateLimitOptions,
      private readonly prefix = '',
    ) {}

    incr(key: string, callback: (error: Error | null, result?: Result) => void, timeWindow: number): void {
      const now = Date.now();
      longestWindow = Math.max(longestWindow, timeWindow);
      repository.hit(this.prefix + key, now, timeWindow).then(
        ({ hits, windowStartedAt }) => {
          sweep(now);
          // Another replica's clock may run ahead or behind: never promise less than 1 ms or more than a window.
          const ttl = Math.min(timeWindow, Math.max(1, windowStartedAt + timeWindow - now));
          callback(null, { current: hits, ttl });
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      // The plugin passes the route as `routeInfo` (its typings say otherwise): one bucket per route and client, as its own stores keep.
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo ?? routeOptions;
      return new DatabaseStore(routeOptions as FastifyRateLimitOptions, `${String(route.method)} ${String(route.url)} `);
    }
  }
  return DatabaseStore;
}
