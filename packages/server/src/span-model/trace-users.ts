/**
 * Which user a trace belongs to, for the span list's `attribute=user.id:` filter (docs/api.md,
 * "Indexes"). Ingest keeps `traces.user_id`: the key of the `user.id` its spans carry, or MIXED
 * when they carry several or one that has no key. A filter on a user then reads the spans of that
 * user's traces (and of the mixed ones) and tests each, instead of walking the whole project.
 *
 * One index entry per trace rather than per span: an index on every span's user.id cost 19% of
 * ingest throughput with 5,000 users, as each insert dirtied another page (docs/performance.md).
 *
 * The keys only narrow the search: the filter's exact test (same JSON type, numbers by value)
 * still runs on every span found, so a trace's key may name more users than it holds, never fewer.
 */
import { USER_ID } from './conventions/attribute-names.js';

/** The attribute whose value a trace records. */
export const USER_ID_ATTRIBUTE = USER_ID;

/** traces.user_id of a trace whose spans name several users, or a value without a key. */
export const MIXED_USERS = '*';

/** Longer strings are keyed MIXED rather than copied into the index. */
const MAX_KEY_LENGTH = 256;

/** Integers up to this magnitude are keyed as their decimal text (both databases render them alike). */
const MAX_KEYED_INTEGER = 1e15;

/**
 * The key of one span's `user.id` value: a string (up to 256 UTF-16 units) as itself, an integer
 * as its decimal text, any other scalar MIXED; null for no value or a list (a filter never
 * matches a list).
 */
export function userKeyOf(value: unknown): string | null {
  if (value === undefined || value === null || typeof value === 'object') return null;
  if (typeof value === 'string') return value.length <= MAX_KEY_LENGTH ? value : MIXED_USERS;
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < MAX_KEYED_INTEGER) return String(value);
  return MIXED_USERS;
}

/** The key of a trace given the keys of two of its spans (or of the trace so far and a new batch). */
export function mergeUserKeys(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null || a === b) return a;
  return MIXED_USERS;
}

/**
 * traces.user_id values whose traces may hold a span matching any candidate: each candidate's own
 * text (a string also when a key would have been MIXED, as a migrated database may have keyed it
 * by value), integers as decimal text, and always MIXED.
 */
export function userKeysMatching(candidates: (string | number | boolean)[]): string[] {
  const keys = new Set<string>([MIXED_USERS]);
  for (const candidate of candidates) {
    if (typeof candidate === 'string') keys.add(candidate);
    else if (typeof candidate === 'number' && Number.isInteger(candidate) && Math.abs(candidate) < MAX_KEYED_INTEGER)
      keys.add(String(candidate));
  }
  return [...keys];
}

/**
 * Most traces a user filter reads whole. A user with more has their traces read a few at a time
 * in time order (db/user-trace-pages.ts), up to MAX_USER_TRACES_BY_TIME.
 */
export const MAX_USER_TRACES_READ = 100;

/**
 * Most traces a user filter reads by time. A user with more is common enough that walking the
 * project in list order fills a page soon (at least one span in 40 at 10M spans), while the list of
 * their traces' bounds would take longer to read than the walk.
 */
export const MAX_USER_TRACES_BY_TIME = 50_000;
