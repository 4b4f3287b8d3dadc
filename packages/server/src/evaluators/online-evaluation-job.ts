/**
 * The online evaluation job (docs/online-evaluation.md): reads what each enabled rule of each
 * project picks, samples it, and has the rule's evaluators judge it; results are span, trace or
 * session annotations named after the evaluator.
 *
 * Exactly once, across restarts and replicas:
 * - Reading: each rule has a durable cursor (span row ids; for sessions, their end time). A scan
 *   reads the spans past it up to a horizon, and in one transaction inserts the sampled items
 *   into the ledger (one row per rule, item and evaluator, unique) and moves the cursor. A crash
 *   before the commit reads the same spans again; after it, never. The horizon is the newest
 *   span row id seen at least `settleMs` ago: on PostgreSQL a row id handed out before another's
 *   may commit after it, and waiting lets it commit before the cursor passes it (on SQLite one
 *   writer commits in id order, so the horizon is the newest id).
 * - Evaluating: an item is evaluated while pending, and its annotation (keyed by evaluator name,
 *   target and `online-rule:<id>`, so a repeat overwrites) is written in the same transaction that
 *   marks it done. A crash in between evaluates it again and writes the same one annotation. Within
 *   a run, an item taken for evaluation is held until its outcome is written, so that no later
 *   read of the ledger takes it again.
 * - One replica runs the job at a time (the job runner's lease), and a run's evaluations end
 *   before it returns.
 *
 * Provider failures that may pass (5xx, silence) are retried with backoff; an item still failing
 * after `attempts` is marked failed, listed on the rule's page, and can be retried from there.
 * Nothing here runs on the ingest path: ingest only writes spans, as before.
 */
import { UnavailableError } from '@sightline/common';
import type {
  RuleTarget,
  ItemOutcome,
  ItemRecord,
  NewItem,
  OnlineEvalRepository,
  OnlineRuleRecord,
  ScannedSpan,
} from '../db/repositories/online-eval-repository.js';
import type { EvaluatorRecord, EvaluatorsRepository } from '../db/repositories/evaluators-repository.js';
import type { CompiledStatement } from '../db/writer/statement-writes-sqlite.js';
import type { Job } from '../jobs/job-runner.js';
import { storedFilterParser } from '../spans/span-condition.js';
import type { EvaluationItem } from './code-evaluators.js';
import { type EvaluationOutcome, type EvaluatorDefinition, parseDefinition } from './evaluators-service.js';
import type { JudgeCost } from './judge-cost.js';
import { type OnlineItemLoader, targetKey } from './online-items.js';
import { inSample } from './sampling.js';

export const ONLINE_EVALUATION_JOB = 'online-evaluations';
/** How long a session rule waits without a new turn by default (minutes). */
export const DEFAULT_SESSION_IDLE_MINUTES = 30;
/** How far back a session rule looks again for sessions whose spans arrived late (ns): 10 minutes. */
const SESSION_LOOKBACK_NANOS = 10n * 60n * 1_000_000_000n;

/** Runs compiled statements in one transaction (the SQLite writer thread, or a PostgreSQL transaction). */
export type RunStatements = (statements: CompiledStatement[]) => Promise<void>;

export interface OnlineEvaluationJobOptions {
  rules: OnlineEvalRepository;
  evaluators: Pick<EvaluatorsRepository, 'findByIds'>;
  loadItems: OnlineItemLoader;
  runStatements: RunStatements;
  evaluate: (definition: EvaluatorDefinition, item: EvaluationItem, signal: AbortSignal) => Promise<EvaluationOutcome>;
  judgeCost: JudgeCost;
  /** Adds evaluated items to an annotation queue (an item there already is left as it is). */
  addToQueue: (queueId: number, items: { kind: RuleTarget; rowid: number }[]) => Promise<void>;
  intervalMs?: number;
  /** How often a run reads new spans while it evaluates (ms). */
  scanEveryMs?: number;
  /** Longest a run goes on while there is work, before it hands the lease back (ms). */
  runBudgetMs?: number;
  /** How old the newest row id must be before the cursor passes it (ms); 0 on SQLite. */
  settleMs: number;
  /** Spans read per rule group per scan. */
  scanBatch?: number;
  /** Items taken from the ledger at once. */
  evaluateBatch?: number;
  /** Least time between two reads of the ledger for due items (ms). */
  refillEveryMs?: number;
  /** Evaluations in flight at once. */
  concurrency?: number;
  /** Attempts of an evaluation that fails for a reason that may pass. */
  attempts?: number;
  /** Wait before the second attempt (ms), doubled for each one after, up to five minutes. */
  retryDelayMs?: number;
  /** Outcomes written per transaction. */
  writeBatch?: number;
  /** Longest an outcome waits for others to be written with (ms). */
  flushMs?: number;
  now?: () => number;
}

export interface OnlineTickResult {
  /** Ledger rows inserted (items sampled × evaluators). */
  sampled: number;
  /** Items that ended done, failed or skipped. */
  finished: number;
  /** Run again at once: the tick found work (more may be waiting), rather than after the interval. */
  more: boolean;
}

const MAX_RETRY_DELAY_MS = 5 * 60_000;
const nanosOf = (ms: number) => BigInt(Math.floor(ms)) * 1_000_000n;

/** A `time:id` keyset cursor. */
function keyset(text: string | null): { time: bigint; id: number } {
  const [time, id] = (text ?? '0:0').split(':');
  try {
    return { time: BigInt(time ?? '0'), id: Number(id ?? 0) || 0 };
  } catch {
    return { time: 0n, id: 0 };
  }
}

/** The UTC day an ISO time falls on, as its first instant. */
const dayStart = (ms: number) => new Date(Math.floor(ms / 86_400_000) * 86_400_000).toISOString();

export function createOnlineEvaluationJob(options: OnlineEvaluationJobOptions): Job & {
  runOnce(signal?: AbortSignal): Promise<OnlineTickResult>;
} {
  const {
    rules: repository,
    evaluators,
    loadItems,
    runStatements,
    evaluate,
    judgeCost,
    addToQueue,
    intervalMs = 1000,
    scanEveryMs = 500,
    runBudgetMs = 10_000,
    settleMs,
    scanBatch = 50_000,
    evaluateBatch = 2000,
    refillEveryMs = 100,
    concurrency = 16,
    attempts = 4,
    retryDelayMs = 2000,
    writeBatch = 100,
    flushMs = 250,
    now = Date.now,
  } = options;

  /** Newest span row ids seen, with when: the horizon is the newest one seen `settleMs` ago. */
  const seen: { at: number; id: number }[] = [];
  const horizon = async (): Promise<number | undefined> => {
    const at = now();
    seen.push({ at, id: await repository.maxSpanId() });
    let found: number | undefined;
    while (seen.length > 0 && seen[0]!.at <= at - settleMs) {
      found = seen[0]!.id;
      if (seen.length === 1 || seen[1]!.at > at - settleMs) break;
      seen.shift();
    }
    return found;
  };

  /** A rule's filter, parsed (checked when the rule was saved). */
  const conditionOf = storedFilterParser();

  const itemsOf = (rule: OnlineRuleRecord, spans: ScannedSpan[], index: number): NewItem[] => {
    const items: NewItem[] = [];
    for (const span of spans) {
      if (!span.matches[index]) continue;
      const target =
        rule.target === 'trace'
          ? { targetKind: 'trace' as const, targetRowid: span.traceRowid, targetKey: span.traceId, spanRowid: span.id }
          : { targetKind: 'span' as const, targetRowid: span.id, targetKey: span.spanId, spanRowid: span.id };
      if (!inSample(target.targetKey, rule.samplingRate)) continue;
      for (const evaluatorId of rule.evaluatorIds) items.push({ ruleId: rule.id, evaluatorId, ...target });
    }
    return items;
  };

  /** Reads new spans for the span and trace rules, grouped by project and cursor (one scan serves every rule at the same place). */
  const scanLive = async (live: OnlineRuleRecord[], upTo: number, at: string): Promise<{ sampled: number; more: boolean }> => {
    const groups = new Map<string, OnlineRuleRecord[]>();
    for (const rule of live) {
      const key = `${rule.projectId}:${rule.cursor}`;
      const list = groups.get(key) ?? [];
      if (list.length === 0) groups.set(key, list);
      list.push(rule);
    }
    let sampled = 0;
    let more = false;
    for (const group of groups.values()) {
      const after = Number(group[0]!.cursor) || 0;
      if (after >= upTo) continue;
      const spans = await repository.scanSpans(
        group[0]!.projectId,
        after,
        upTo,
        group.map((rule) => ({ condition: conditionOf(rule.filter), rootsOnly: rule.target === 'trace' })),
        scanBatch,
      );
      const full = spans.length === scanBatch;
      more ||= full;
      const to = String(full ? spans.at(-1)!.id : upTo);
      const statements: CompiledStatement[] = [];
      group.forEach((rule, index) => {
        const items = itemsOf(rule, spans, index);
        sampled += items.length;
        statements.push(...repository.enqueueStatements(items, { ruleId: rule.id, column: 'cursor', from: rule.cursor, to }, at));
      });
      await runStatements(statements);
    }
    return { sampled, more };
  };

  /** A backfill's next batch: spans that started in the window, read by start time. */
  const scanBackfill = async (rule: OnlineRuleRecord, at: string): Promise<{ sampled: number; more: boolean }> => {
    const after = keyset(rule.backfillCursor);
    const spans = await repository.scanSpansByTime(
      rule.projectId,
      { startTime: after.time, id: after.id },
      BigInt(rule.backfillUntil ?? '0'),
      { condition: conditionOf(rule.filter), rootsOnly: rule.target === 'trace' },
      scanBatch,
    );
    const full = spans.length === scanBatch;
    const last = spans.at(-1);
    const items = itemsOf(rule, spans, 0);
    await runStatements(
      repository.enqueueStatements(
        items,
        { ruleId: rule.id, column: 'backfill_cursor', from: rule.backfillCursor, to: full && last ? `${last.startTime}:${last.id}` : null },
        at,
      ),
    );
    return { sampled: items.length, more: full };
  };

  /** Reads the sessions that went idle since the rule's cursor. */
  const scanSessions = async (rule: OnlineRuleRecord, at: string): Promise<{ sampled: number; more: boolean }> => {
    const idleNanos = nanosOf((rule.sessionIdleMinutes ?? DEFAULT_SESSION_IDLE_MINUTES) * 60_000);
    const upTo = nanosOf(now()) - idleNanos;
    const cursor = keyset(rule.cursor);
    const from = cursor.time > SESSION_LOOKBACK_NANOS ? cursor.time - SESSION_LOOKBACK_NANOS : 0n;
    if (from >= upTo) return { sampled: 0, more: false };
    const sessions = await repository.scanIdleSessions(rule.id, rule.projectId, { endTime: from, id: 0 }, upTo, scanBatch);
    const full = sessions.length === scanBatch;
    const items: NewItem[] = [];
    for (const session of sessions) {
      if (!inSample(session.sessionId, rule.samplingRate)) continue;
      for (const evaluatorId of rule.evaluatorIds)
        items.push({
          ruleId: rule.id,
          evaluatorId,
          targetKind: 'session',
          targetRowid: session.id,
          targetKey: session.sessionId,
          spanRowid: null,
        });
    }
    // Not sampled is not in the ledger, so a full batch of sessions left out would be read again: move past them.
    const last = sessions.at(-1);
    const to = full && last ? `${last.endTime}:${last.id}` : `${upTo}:0`;
    const next = keyset(to).time < cursor.time ? rule.cursor : to;
    await runStatements(repository.enqueueStatements(items, { ruleId: rule.id, column: 'cursor', from: rule.cursor, to: next }, at));
    return { sampled: items.length, more: full && next !== rule.cursor };
  };

  /** Today's spending per rule, read once a day per rule and then kept up by this process. */
  const spentToday = new Map<number, { day: string; usd: number }>();
  const spending = async (rule: OnlineRuleRecord): Promise<number> => {
    const day = dayStart(now());
    const known = spentToday.get(rule.id);
    if (known?.day === day) return known.usd;
    const usd = (await repository.finishedSince(rule.id, day)).costUsd;
    spentToday.set(rule.id, { day, usd });
    return usd;
  };
  const spend = (ruleId: number, usd: number) => {
    const known = spentToday.get(ruleId);
    if (known) known.usd += usd;
  };

  /**
   * Each evaluator version's definition, parsed and checked once, not once per item: checking a
   * judge's template was about 1 % of the main thread at 850 evaluations a second
   * (docs/performance.md, "Online evaluation"). A version's definition never changes.
   */
  const definitions = new Map<string, EvaluatorDefinition | Error>();
  const definitionOf = (evaluator: EvaluatorRecord): EvaluatorDefinition | Error => {
    const key = `${evaluator.id}:${evaluator.version.version}`;
    let parsed = definitions.get(key);
    if (parsed === undefined) {
      try {
        parsed = parseDefinition(JSON.parse(evaluator.version.definition)).definition;
      } catch (error) {
        parsed = error instanceof Error ? error : new Error(String(error));
      }
      if (definitions.size >= 256) definitions.clear();
      definitions.set(key, parsed);
    }
    return parsed;
  };

  /** Evaluates one item (loaded: undefined when it was deleted since it was sampled); its outcome (never throws). */
  const judge = async (
    item: ItemRecord,
    rule: OnlineRuleRecord,
    evaluator: EvaluatorRecord,
    loaded: EvaluationItem | undefined,
    signal: AbortSignal,
  ): Promise<ItemOutcome> => {
    const version = evaluator.version.version;
    const definition = definitionOf(evaluator);
    if (definition instanceof Error) {
      return { status: 'failed', error: `the evaluator's definition is no longer valid: ${definition.message}`, evaluatorVersion: version };
    }
    const target = { kind: item.targetKind, rowid: item.targetRowid };
    if (!loaded)
      return { status: 'skipped', error: `the ${item.targetKind} was deleted before it was evaluated`, evaluatorVersion: version };
    const started = now();
    try {
      const outcome = await evaluate(definition, loaded, signal);
      const costUsd = outcome.audit && definition.type === 'llm_judge' ? await judgeCost(definition.model, outcome.audit) : null;
      if (costUsd !== null) spend(rule.id, costUsd);
      return {
        status: 'done',
        evaluatorVersion: version,
        costUsd,
        annotation: {
          target,
          fields: {
            name: evaluator.name,
            annotatorKind: evaluator.kind,
            label: outcome.label,
            score: outcome.score,
            explanation: outcome.explanation,
            metadata: {
              rule: { id: rule.id, name: rule.name },
              evaluator: { id: evaluator.id, name: evaluator.name, version },
              latency_ms: now() - started,
              ...(costUsd !== null ? { cost_usd: costUsd } : {}),
              ...(outcome.audit ? { audit: outcome.audit } : {}),
            },
            identifier: `online-rule:${rule.id}`,
            source: 'API',
            userId: null,
          },
        },
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Only what may pass is retried: a provider's 5xx or silence. A refused request (no key, an unknown model) fails alike every time.
      if (error instanceof UnavailableError && item.attempts + 1 < attempts && !signal.aborted) {
        const delay = Math.min(retryDelayMs * 2 ** item.attempts, MAX_RETRY_DELAY_MS);
        return { status: 'pending', error: message, nextAttemptAt: new Date(now() + delay).toISOString() };
      }
      return { status: 'failed', error: message, evaluatorVersion: version };
    }
  };

  /**
   * Routes to their rules' review queues the items evaluated to go there, before their outcomes
   * are written: a crash in between evaluates them again and adds nothing twice.
   */
  const route = async (outcomes: { item: ItemRecord; outcome: ItemOutcome }[], rules: Map<number, OnlineRuleRecord>) => {
    const byQueue = new Map<number, { kind: RuleTarget; rowid: number }[]>();
    for (const { item, outcome } of outcomes) {
      const rule = rules.get(item.ruleId);
      if (outcome.status !== 'done' || !rule || rule.queueId === null) continue;
      const score = outcome.annotation.fields.score;
      if (rule.queueScoreBelow !== null && !(score !== null && score < rule.queueScoreBelow)) continue;
      const list = byQueue.get(rule.queueId) ?? [];
      if (list.length === 0) byQueue.set(rule.queueId, list);
      list.push({ kind: item.targetKind, rowid: item.targetRowid });
    }
    for (const [queueId, items] of byQueue) await addToQueue(queueId, items);
  };

  /** Writes outcomes, a batch per transaction; an outcome whose write fails alone (its span deleted meanwhile) ends skipped. */
  const write = async (outcomes: { item: ItemRecord; outcome: ItemOutcome }[], rules: Map<number, OnlineRuleRecord>): Promise<void> => {
    if (outcomes.length === 0) return;
    await route(outcomes, rules);
    const at = new Date(now()).toISOString();
    try {
      await runStatements(repository.outcomeStatements(outcomes, at));
    } catch {
      for (const each of outcomes) {
        try {
          await runStatements(repository.outcomeStatements([each], at));
        } catch (error) {
          const reason = `its result could not be stored: ${(error as Error).message}`;
          const skipped = { status: 'skipped' as const, error: reason, evaluatorVersion: null };
          // A rule deleted meanwhile takes its ledger with it: nothing is left to mark.
          await runStatements(repository.outcomeStatements([{ item: each.item, outcome: skipped }], at)).catch(() => {});
        }
      }
    }
  };

  /**
   * The evaluations of one run, kept going while the run lasts (docs/online-evaluation.md, "Lag"):
   * up to `concurrency` in flight, refilled from the ledger as they finish, instead of a batch that
   * waited for its slowest judge call before the next scan. An item is taken until its outcome is
   * written, so a refill never takes it twice; what a stopped run leaves pending stays in the ledger.
   */
  const evaluations = (signal: AbortSignal) => {
    /** Items taken (evaluating, or waiting to be written), by id, and how many per rule. */
    const taken = new Set<number>();
    const takenByRule = new Map<number, number>();
    let active = 0;
    let finished = 0;
    let failure: unknown = null;
    let buffer: { item: ItemRecord; outcome: ItemOutcome }[] = [];
    let writing: Promise<void> = Promise.resolve();
    let flushedAt = now();
    let rules = new Map<number, OnlineRuleRecord>();
    let wake: (() => void) | null = null;
    const notify = () => {
      const resolve = wake;
      wake = null;
      resolve?.();
    };
    // Each call its own signal, all aborted through one listener on the run's: hundreds of calls
    // listening on one signal made every new listener's registration scan the others.
    const calls = new Set<AbortController>();
    const abortCalls = () => {
      for (const call of calls) call.abort();
    };
    signal.addEventListener('abort', abortCalls, { once: true });

    const take = (item: ItemRecord) => {
      taken.add(item.id);
      takenByRule.set(item.ruleId, (takenByRule.get(item.ruleId) ?? 0) + 1);
    };
    const release = (item: ItemRecord) => {
      taken.delete(item.id);
      takenByRule.set(item.ruleId, (takenByRule.get(item.ruleId) ?? 1) - 1);
    };
    /** Writes what is buffered, after what is being written; its items are released once written. */
    const flush = (): Promise<void> => {
      if (buffer.length > 0) {
        const batch = buffer;
        buffer = [];
        flushedAt = now();
        writing = writing
          .then(() => write(batch, rules))
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => {
            for (const { item } of batch) release(item);
            notify();
          });
      }
      return writing;
    };
    const finish = (item: ItemRecord, outcome: ItemOutcome) => {
      buffer.push({ item, outcome });
      if (outcome.status !== 'pending') finished++;
      // Written by the batch, or at least every `flushMs`: a result waits little for the others.
      if (buffer.length >= writeBatch) void flush();
    };

    let refilledAt = Number.NEGATIVE_INFINITY;
    /**
     * Takes the due items of each rule, within its rate and cost limits, up to the free places; how
     * many it took, or null when it is too soon after the last time (then the caller comes back).
     */
    const refill = async (enabled: OnlineRuleRecord[]): Promise<number | null> => {
      const free = concurrency - active;
      // Refilled a quarter of the places at a time, so that a finished call does not cost a round of reads.
      if (failure !== null || enabled.length === 0 || (active > 0 && free < Math.max(1, Math.floor(concurrency / 4)))) return 0;
      // And at most every `refillEveryMs`: code evaluators end at once, and reading the ledger after
      // each of them took a fifth of the main thread in bench:online-eval.
      const at = now();
      if (at - refilledAt < refillEveryMs) return null;
      refilledAt = at;
      rules = new Map(enabled.map((rule) => [rule.id, rule]));
      const perRule = Math.max(1, Math.ceil(Math.min(free, evaluateBatch) / enabled.length));
      const due: { rule: OnlineRuleRecord; items: ItemRecord[] }[] = [];
      for (const rule of enabled) {
        const mine = takenByRule.get(rule.id) ?? 0;
        let limit = perRule;
        if (rule.rateLimitPerMinute !== null) {
          const recent = await repository.finishedSince(rule.id, new Date(at - 60_000).toISOString());
          limit = Math.min(limit, Math.max(0, rule.rateLimitPerMinute - recent.count - mine));
        }
        if (limit === 0) continue;
        // The rule's taken items may be among the oldest due: read past them.
        const items = (await repository.due(rule.id, new Date(at).toISOString(), limit + mine))
          .filter((item) => !taken.has(item.id))
          .slice(0, limit);
        if (items.length > 0) due.push({ rule, items });
      }
      if (due.length === 0) return 0;
      const evaluatorIds = new Set(due.flatMap(({ items }) => items.map((item) => item.evaluatorId)));
      const evaluatorById = new Map((await evaluators.findByIds([...evaluatorIds])).map((e) => [e.id, e]));
      const work: { item: ItemRecord; rule: OnlineRuleRecord; evaluator: EvaluatorRecord }[] = [];
      let count = 0;
      for (const { rule, items } of due) {
        const overBudget = rule.dailyCostLimitUsd !== null && (await spending(rule)) >= rule.dailyCostLimitUsd;
        for (const item of items) {
          take(item);
          count++;
          const evaluator = evaluatorById.get(item.evaluatorId);
          if (!evaluator || !rule.evaluatorIds.includes(item.evaluatorId)) {
            finish(item, { status: 'skipped', error: 'the evaluator was removed from the rule', evaluatorVersion: null });
          } else if (overBudget) {
            finish(item, {
              status: 'skipped',
              error: `the rule's daily cost limit ($${rule.dailyCostLimitUsd}) was reached`,
              evaluatorVersion: null,
            });
          } else {
            work.push({ item, rule, evaluator });
          }
        }
      }
      const loaded = await loadItems(
        work.map(({ item }) => ({ kind: item.targetKind, rowid: item.targetRowid, spanRowid: item.spanRowid })),
      );
      // Stopped while reading: no call starts (the items stay pending for the next leader).
      if (signal.aborted) {
        for (const { item } of work) release(item);
        return count;
      }
      for (const { item, rule, evaluator } of work) {
        active++;
        const call = new AbortController();
        calls.add(call);
        void judge(item, rule, evaluator, loaded.get(targetKey({ kind: item.targetKind, rowid: item.targetRowid })), call.signal)
          .then(
            (outcome) => {
              // Stopped midway: the item stays pending, and the next leader evaluates it.
              if (signal.aborted) release(item);
              else finish(item, outcome);
            },
            (error: unknown) => {
              failure ??= error;
              release(item);
            },
          )
          .finally(() => {
            calls.delete(call);
            active--;
            notify();
          });
      }
      return count;
    };

    return {
      refill,
      get active() {
        return active;
      },
      get finished() {
        return finished;
      },
      /** Milliseconds until a refill may read the ledger again. */
      get refillIn() {
        return Math.max(0, refillEveryMs - (now() - refilledAt));
      },
      /** Writes the buffer when its oldest outcome has waited `flushMs`. */
      flushIfDue() {
        if (buffer.length > 0 && now() - flushedAt >= flushMs) void flush();
      },
      /** Resolves when an evaluation or a write ends, or after `ms`. */
      waitForChange(ms: number): Promise<void> {
        return new Promise((resolve) => {
          const timer = setTimeout(notify, Math.max(1, ms));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      },
      /** Lets the evaluations in flight end, writes every outcome; throws what a write or an evaluation threw. */
      async drain(): Promise<void> {
        while (active > 0) {
          await this.waitForChange(flushMs);
          this.flushIfDue();
        }
        await flush();
        signal.removeEventListener('abort', abortCalls);
        if (failure !== null) throw failure;
      },
    };
  };

  /** Reads new items of every enabled rule into the ledger. */
  const scan = async (enabled: OnlineRuleRecord[], signal: AbortSignal): Promise<{ sampled: number; more: boolean }> => {
    const at = new Date(now()).toISOString();
    let sampled = 0;
    let more = false;
    const live = enabled.filter((rule) => rule.target !== 'session');
    if (live.length > 0) {
      const upTo = await horizon();
      if (upTo !== undefined) {
        const scanned = await scanLive(live, upTo, at);
        sampled += scanned.sampled;
        more ||= scanned.more;
      }
    }
    for (const rule of enabled) {
      if (signal.aborted) break;
      const scanned =
        rule.target === 'session'
          ? await scanSessions(rule, at)
          : rule.backfillCursor !== null
            ? await scanBackfill(rule, at)
            : { sampled: 0, more: false };
      sampled += scanned.sampled;
      more ||= scanned.more;
    }
    return { sampled, more };
  };

  /**
   * One run: reads new items every `scanEveryMs` and keeps their evaluations going until there is
   * nothing left to do or the run has lasted `runBudgetMs` (then the runner starts the next one at
   * once), all under the job's lease; the evaluations in flight end before it returns.
   */
  const tick = async (signal: AbortSignal): Promise<OnlineTickResult> => {
    const started = now();
    let enabled = await repository.enabled();
    if (enabled.length === 0) return { sampled: 0, finished: 0, more: false };
    const pipeline = evaluations(signal);
    let sampled = 0;
    let outOfTime = false;
    try {
      let lastScan: number | null = null;
      let scanAgain = true;
      for (;;) {
        if (signal.aborted) break;
        let found = false;
        if (scanAgain || lastScan === null || now() - lastScan >= scanEveryMs) {
          // Rules edited, disabled or added since the last scan.
          if (lastScan !== null) enabled = await repository.enabled();
          const scanned = await scan(enabled, signal);
          lastScan = now();
          sampled += scanned.sampled;
          scanAgain = scanned.more;
          found ||= scanned.sampled > 0 || scanned.more;
        }
        if (signal.aborted) break;
        const took = await pipeline.refill(enabled);
        found ||= (took ?? 0) > 0;
        pipeline.flushIfDue();
        if (!found && took !== null && pipeline.active === 0) break;
        if (now() - started >= runBudgetMs) {
          outOfTime = true;
          break;
        }
        if (!scanAgain && !found) {
          const untilScan = scanEveryMs - (now() - lastScan);
          await pipeline.waitForChange(took === null ? Math.min(untilScan, pipeline.refillIn) : Math.min(flushMs, untilScan));
        }
      }
    } finally {
      await pipeline.drain();
    }
    // Busy (something sampled or finished, or out of time): go again at once rather than after the interval.
    return { sampled, finished: pipeline.finished, more: outOfTime || sampled > 0 || pipeline.finished > 0 };
  };

  let running: Promise<OnlineTickResult> | null = null;
  const runOnce = (signal: AbortSignal = new AbortController().signal): Promise<OnlineTickResult> => {
    running ??= tick(signal).finally(() => {
      running = null;
    });
    return running;
  };

  return {
    name: ONLINE_EVALUATION_JOB,
    description: "Evaluates what each project's online evaluation rules sample (docs/online-evaluation.md).",
    intervalMs,
    runOnce,
    async run(signal) {
      return (await runOnce(signal)).more ? 'more' : 'idle';
    },
  };
}
