/**
 * What an online rule's evaluator reads of the items it sampled (docs/online-evaluation.md,
 * "What an evaluator sees"): a span as itself; a trace as its root span, with the whole trace's
 * cost; a session as its turns (each trace's root input and output), the first input and the
 * last output. Items are loaded a tick's worth at a time: one read of their spans and one of
 * their costs, each span read once whatever number of rules and evaluators sampled it.
 */
import type { CostsRepository } from '../db/repositories/costs-repository.js';
import type { RuleTarget } from '../db/repositories/online-eval-repository.js';
import type { SessionsRepository } from '../db/repositories/sessions-repository.js';
import type { SpanRecord, SpansRepository } from '../db/repositories/spans-repository.js';
import type { EvaluationItem } from './code-evaluators.js';
import { spanItem } from './evaluators-service.js';

/** Turns of a session a judge reads: the last ones, when it has more. */
export const SESSION_TURNS_LIMIT = 50;

export interface OnlineTarget {
  kind: RuleTarget;
  rowid: number;
  /** The span the rule read (the span, or the trace's root); null for a session, or a trace whose root is to be found. */
  spanRowid: number | null;
}

export const targetKey = (target: Pick<OnlineTarget, 'kind' | 'rowid'>) => `${target.kind}:${target.rowid}`;

/** The items of the targets by `targetKey`; a target deleted since it was sampled is absent. */
export type OnlineItemLoader = (targets: OnlineTarget[]) => Promise<Map<string, EvaluationItem>>;

export function createOnlineItemLoader({
  spans,
  sessions,
  costs,
}: {
  spans: Pick<SpansRepository, 'findByIds' | 'listOfTrace'>;
  sessions: Pick<SessionsRepository, 'traces' | 'rootIo'>;
  costs: Pick<CostsRepository, 'spanCosts' | 'traceTotals'>;
}): OnlineItemLoader {
  const sessionItem = async (rowid: number): Promise<EvaluationItem | undefined> => {
    const traces = (await sessions.traces([rowid])).slice(-SESSION_TURNS_LIMIT);
    if (traces.length === 0) return undefined;
    const io = await sessions.rootIo(traces.map((trace) => trace.id));
    const conversation = traces.map((trace) => io.get(trace.id) ?? { input: null, output: null });
    const totals = await costs.traceTotals(traces.map((trace) => trace.id));
    const cost = traces.reduce<number | null>((sum, trace) => {
      const traceCost = totals.get(trace.id)?.totalCost;
      return traceCost === undefined || traceCost === null ? sum : (sum ?? 0) + traceCost;
    }, null);
    const start = BigInt(traces[0]!.startTime);
    const end = traces.reduce((latest, trace) => (BigInt(trace.endTime) > latest ? BigInt(trace.endTime) : latest), start);
    return {
      input: conversation[0]?.input ?? null,
      output: conversation.at(-1)?.output ?? null,
      reference: undefined,
      metadata: { turns: traces.length },
      latencyMs: Number((end - start) / 1_000_000n),
      totalTokens: null,
      costUsd: cost,
      conversation,
    };
  };

  return async (targets) => {
    const items = new Map<string, EvaluationItem>();
    const unique = new Map(targets.map((target) => [targetKey(target), target]));
    const spanIds = new Set<number>();
    for (const target of unique.values()) if (target.kind !== 'session' && target.spanRowid !== null) spanIds.add(target.spanRowid);
    const spanById = new Map((await spans.findByIds([...spanIds])).map((span) => [span.id, span]));
    const spanTargets = [...unique.values()].filter((target) => target.kind === 'span');
    const traceTargets = [...unique.values()].filter((target) => target.kind === 'trace');
    const spanCosts = await costs.spanCosts(spanTargets.map((target) => target.rowid));
    const traceCosts = await costs.traceTotals(traceTargets.map((target) => target.rowid));
    for (const target of unique.values()) {
      const key = targetKey(target);
      if (target.kind === 'session') {
        const item = await sessionItem(target.rowid);
        if (item) items.set(key, item);
        continue;
      }
      let span: SpanRecord | undefined = target.spanRowid === null ? undefined : spanById.get(target.spanRowid);
      if (!span && target.kind === 'trace') {
        // The root is among a trace's first spans by start time; a trace without one is read by its first span.
        const first = await spans.listOfTrace(target.rowid, 50);
        span = first.find((each) => each.parentId === null) ?? first[0];
      }
      if (!span) continue;
      const cost = target.kind === 'span' ? spanCosts.get(target.rowid)?.totalCost : traceCosts.get(target.rowid)?.totalCost;
      items.set(key, spanItem(span, cost ?? null));
    }
    return items;
  };
}
