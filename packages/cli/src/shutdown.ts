/**
 * Stopping a service on SIGTERM or SIGINT within a bound (docs/deployment.md, "Shutdown and
 * crashes"): the service drains, then the process exits 0; past the bound, or on a second
 * signal, it exits 1 without waiting further. A service that reports it can no longer work is
 * stopped the same way and exits 1, so that a supervisor starts it again.
 */

export interface StopOnSignalsOptions {
  /** Prefix of the lines written to stderr, e.g. `sightline monitor`. */
  name: string;
  /** Stops listening, lets in-flight requests finish, commits what is queued, closes the database. */
  close(): Promise<void>;
  timeoutSeconds: number;
  /** The variable that sets the bound, named in the message when it is reached. */
  timeoutVariable: string;
  /** Resolves when the service can no longer work (its writer thread stopped). */
  failed?: Promise<Error>;
}

/** Installs the SIGTERM and SIGINT handlers of a running service. */
export function stopOnSignals(options: StopOnSignalsOptions): void {
  const say = (text: string) => process.stderr.write(`${options.name}: ${text}\n`);
  let stopping = false;
  /** Drains within the bound, then exits with `code` (1 past the bound or if draining fails). */
  const drain = (code: number) => {
    stopping = true;
    const timer = setTimeout(() => {
      say(`not stopped after ${options.timeoutSeconds} s (${options.timeoutVariable}), exiting; unanswered requests were not stored`);
      process.exit(1);
    }, options.timeoutSeconds * 1000);
    options.close().then(
      () => {
        clearTimeout(timer);
        process.exit(code);
      },
      (error: unknown) => {
        say(`stopping failed: ${(error as Error)?.message ?? String(error)}`);
        process.exit(1);
      },
    );
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // An operator who signals twice wants the process gone now.
      say(`${signal} received again, exiting without waiting`);
      process.exit(1);
    }
    say(`${signal} received, finishing in-flight requests and queued writes (at most ${options.timeoutSeconds} s)`);
    drain(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  void options.failed?.then((error) => {
    if (stopping) return;
    say(`${error.message}; stopping (exit code 1) so that it can be started again; nothing acknowledged is lost`);
    drain(1);
  });
}
