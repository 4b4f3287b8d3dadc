/**
 * A small time-bounded cache for credential checks. Entries live at most `ttlMs`, so a
 * revocation made by another process (the CLI, another replica) is seen within that time;
 * `clear()` makes a change made in this process take effect at once.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The live value of `key`, or undefined when absent or expired. */
  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` for `ttlMs`; a full cache is emptied first. */
  set(key: string, value: V, now = Date.now()): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
  }
}
