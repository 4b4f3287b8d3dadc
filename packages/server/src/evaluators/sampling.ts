/**
 * Deterministic sampling (docs/online-evaluation.md, "Sampling"): an item is in a rule's sample
 * when a hash of its id falls below the rate, so the same item is in or out whichever replica
 * reads it, however often, and a rule at 10 % evaluates a subset of what a rule at 20 % does
 * (rules at one rate see the same items, which makes their evaluators comparable).
 */

/** FNV-1a, 32 bits, over the id's UTF-16 code units: fast, and spreads sequential ids as well as random ones. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  // A final avalanche (murmur3's fmix32): FNV alone leaves ids that differ in their last character close together.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** Whether the item of this id is in a sample at `rate` (0 < rate ≤ 1). */
export function inSample(id: string, rate: number): boolean {
  if (rate >= 1) return true;
  return fnv1a(id) / 0x1_0000_0000 < rate;
}
