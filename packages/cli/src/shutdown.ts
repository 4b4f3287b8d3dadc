/**
 * Stopping a service on SIGTERM or SIGINT within a bound (docs/deployment.md, "Shutdown and
 * crashes"): the service drains, then the process exits 0; past the bound, or on a second
 * signal, it exits 1 without waiting further.
 */

export interface StopOnSignalsOptions {
  /** Prefix of the lines written to stderr, e.g. `sightline monitor`. */
  name: string;
  /** Stops listening, lets in-flight requests finish, commits what is queued, closes the database. */
  close(): Promise<void>;
  timeoutSeconds: number;
  /** The variable that sets the bound, named in the message when it is reached. */
  timeoutVariable: string;
}

/** Installs the SIGTERM and SIGINT handlers of a running service. */
export function stopOnSignals(options: StopOnSignalsOptions): void {
  const say = (text: string) => process.stderr.write(`${options.name}: ${text}\n`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // An operator who signals twice wants the process gone now.
      say(`${signal} received again, exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    say(`${signal} received, finishing in-flight requests and queued writes (at most ${options.timeoutSeconds} s)`);
    const timer = setTimeout(() => {
      say(`not stopped after ${options.timeoutSeconds} s (${options.timeoutVariable}), exiting; unanswered requests were not stored`);
      process.exit(1);
    }, options.timeoutSeconds * 1000);
    options.close().then(
      () => {
        clearTimeout(timer);
        process.exit(0);
      },
      (error: unknown) => {
        say(`stopping failed: ${(error as Error)?.message ?? String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
