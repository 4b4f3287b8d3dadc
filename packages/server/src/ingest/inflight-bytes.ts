/**
 * The byte budget of request bodies being received and decoded at once
 * (SERVICE_INGEST_MAX_INFLIGHT_BYTES, docs/ingest.md "Overload"). The span queue bounds what
 * waits for the writer; this bounds what is still on its way there, so many large bodies
 * arriving together cannot grow the heap without limit.
 */

/** One request's share of the budget. */
export interface BodyAdmission {
  /** Counts `bytes` more of the body (streamed in, or decompressed); throws the refusal past the budget. */
  grow(bytes: number): void;
  /** Gives the request's bytes back; later calls do nothing. */
  release(): void;
}

/** A shared budget of bytes; refusals are built by `refusal` (a 503 with Retry-After). */
export class InflightBytes {
  private used = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly refusal: () => Error,
  ) {}

  /** Bytes held by requests now. */
  get inUse(): number {
    return this.used;
  }

  /** Admits a body of `bytes` (0 when its length is not known yet); throws the refusal past the budget. */
  admit(bytes: number): BodyAdmission {
    let held = 0;
    let released = false;
    const grow = (more: number) => {
      if (released || more <= 0) return;
      // A body alone is always admitted (the body size limit bounds it), so one large export
      // is served rather than refused forever.
      if (this.used > held && this.used + more > this.maxBytes) throw this.refusal();
      this.used += more;
      held += more;
    };
    grow(bytes);
    return {
      grow,
      release: () => {
        if (released) return;
        released = true;
        this.used -= held;
        held = 0;
      },
    };
  }
}
