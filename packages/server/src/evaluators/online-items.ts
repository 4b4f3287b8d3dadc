/**
 * What an online rule's evaluator reads of the item it sampled (docs/online-evaluation.md,
 * "What an evaluator sees"): a span as itself; a trace as its root span, with the whole trace's
 * cost; a session as its turns (each trace's root input and output), the first input and the
 * last output. Undefined when the item was deleted since it was sampled.
 */
import type { CostsRepository } from '../db/repositories/costs-repository.js';
import type { RuleTarget } from '../db/repositories/online-eval-repository.js';
import type { SessionsRepository } from '../db/repositories/sessions-repository.js';
import type { SpansRepository } from '../db/repositories/spans-repository.js';
import type { EvaluationItem } from './code-evaluators.js';
import { spanItem } from './evaluators-service.js';

/** Turns of a session a judge reads: the last ones, when it has more. */
export const SESSION_TURNS_LIMIT = 50;

export type OnlineItemLoader = (target: { kind: RuleTarget; rowid: number }) => Promise<EvaluationItem | undefined>;

export function createOnlineItemLoader({
  spans,
  sessions,
  costs,
}: {
  spans: Pick<SpansRepository, 'findById' | 'listOfTrace'>;
  sessions: Pick<SessionsRepository, 'traces' | 'rootIo'>;
  costs: Pick<CostsRepository, 'spanCosts' | 'traceTotals'>;
}): OnlineItemLoader {
  return async (target) => {
    if (target.kind === 'span') {
      const span = await spans.findById(target.rowid);
      return span ? spanItem(span, (await costs.spanCosts([span.id])).get(span.id)?.totalCost ?? null) : undefined;
    }
    if (target.kind === 'trace') {
      // The root is among a trace's first spans by start time; a trace without one is read by its first span.
      const first = await spans.listOfTrace(target.rowid, 50);
      const root = first.find((span) => span.parentId === null) ?? first[0];
      return root ? spanItem(root, (await costs.traceTotals([target.rowid])).get(target.rowid)?.totalCost ?? null) : undefined;
    }
    const traces = (await sessions.traces([target.rowid])).slice(-SESSION_TURNS_LIMIT);
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
}
