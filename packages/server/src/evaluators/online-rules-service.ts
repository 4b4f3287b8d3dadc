/**
 * Online evaluation rules (docs/online-evaluation.md): created, changed, backfilled and watched.
 * The job (online-evaluation-job.ts) does the evaluating; this checks what a rule may say and
 * reports how it is doing. Knows nothing of HTTP.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import type { EvaluatorsRepository } from '../db/repositories/evaluators-repository.js';
import type {
  ItemRecord,
  ItemStatus,
  OnlineEvalRepository,
  OnlineRuleFields,
  OnlineRuleRecord,
  RuleCounts,
  RuleTarget,
} from '../db/repositories/online-eval-repository.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { Identifier } from '../shared/identifier.js';
import { checkStoredFilter } from '../spans/span-condition.js';
import { DEFAULT_SESSION_IDLE_MINUTES } from './online-evaluation-job.js';

export const MAX_RULE_EVALUATORS = 10;
export const MAX_BACKFILL_HOURS = 24 * 7;
const MAX_NAME_LENGTH = 128;
const MAX_FILTER_LENGTH = 4096;
/** Finished evaluations the lag figures are taken over. */
const LAG_SAMPLE = 500;
/** Failed items put back in the queue per statement. */
const RETRY_BATCH = 1000;

export interface RuleInput {
  name?: string | undefined;
  target?: RuleTarget | undefined;
  filter?: string | undefined;
  samplingRate?: number | undefined;
  sessionIdleMinutes?: number | null | undefined;
  rateLimitPerMinute?: number | null | undefined;
  dailyCostLimitUsd?: number | null | undefined;
  enabled?: boolean | undefined;
  evaluators?: Identifier[] | undefined;
  /** The queue (its row id) what the rule evaluates goes to for review; null for none. */
  queueId?: number | null | undefined;
  queueScoreBelow?: number | null | undefined;
}

export interface RuleStats {
  counts: RuleCounts;
  costTodayUsd: number;
  costTotalUsd: number;
  /** Age of the oldest item waiting (seconds), 0 when none waits. */
  oldestPendingSeconds: number;
  /** From sampled to evaluated over the latest evaluations (seconds). */
  lagP50Seconds: number | null;
  lagP99Seconds: number | null;
  /** A backfill in progress. */
  backfilling: boolean;
}

export type OnlineRulesService = ReturnType<typeof createOnlineRulesService>;

const nanos = (ms: number) => BigInt(Math.floor(ms)) * 1_000_000n;

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function createOnlineRulesService({
  rules,
  evaluators,
  projects,
  queueExists,
  now = () => Date.now(),
}: {
  rules: OnlineEvalRepository;
  evaluators: Pick<EvaluatorsRepository, 'findIdByName' | 'findById'>;
  projects: Pick<ProjectsService, 'resolve'>;
  /** Whether the annotation queue of this row id exists. */
  queueExists: (id: number) => Promise<boolean>;
  now?: () => number;
}) {
  const iso = () => new Date(now()).toISOString();

  const requireRule = async (id: number): Promise<OnlineRuleRecord> => {
    const rule = await rules.findById(id);
    if (!rule) throw new NotFoundError(`online evaluation rule ${id} not found`);
    return rule;
  };

  const evaluatorIds = async (identifiers: Identifier[]): Promise<number[]> => {
    if (identifiers.length === 0 || identifiers.length > MAX_RULE_EVALUATORS) {
      throw new InvalidInputError(`evaluators must name 1 to ${MAX_RULE_EVALUATORS} evaluators`);
    }
    const ids: number[] = [];
    for (const identifier of identifiers) {
      const id = identifier.rowId ?? (await evaluators.findIdByName(identifier.text));
      if (id === undefined || !(await evaluators.findById(id)))
        throw new InvalidInputError(`evaluator ${JSON.stringify(identifier.text)} not found`);
      if (!ids.includes(id)) ids.push(id);
    }
    return ids;
  };

  const checkQueue = async (fields: OnlineRuleFields): Promise<OnlineRuleFields> => {
    if (fields.queueId !== null && !(await queueExists(fields.queueId))) throw new InvalidInputError('queue_id names no annotation queue');
    if (fields.queueId === null && fields.queueScoreBelow !== null) {
      throw new InvalidInputError('queue_when_score_below needs a queue_id: it says which evaluated items go to the queue');
    }
    return fields;
  };

  /** The fields checked, whole (a rule's current fields with the changes over them). */
  const checked = (fields: OnlineRuleFields): OnlineRuleFields => {
    const name = fields.name.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH)
      throw new InvalidInputError(`name must be 1 to ${MAX_NAME_LENGTH} characters, not blank`);
    if (!['span', 'trace', 'session'].includes(fields.target)) throw new InvalidInputError('target must be span, trace or session');
    const filter = fields.filter.trim();
    if (filter.length > MAX_FILTER_LENGTH) throw new InvalidInputError(`filter must be at most ${MAX_FILTER_LENGTH} characters`);
    if (fields.target === 'session' && filter !== '') {
      throw new InvalidInputError(
        'a session rule takes no filter: it evaluates sessions once they have had no new turn for session_idle_minutes',
      );
    }
    checkStoredFilter(filter);
    if (!(fields.samplingRate > 0 && fields.samplingRate <= 1)) {
      throw new InvalidInputError('sampling_rate must be more than 0 and at most 1 (e.g. 0.1 evaluates one item in ten)');
    }
    if (fields.target !== 'session' && fields.sessionIdleMinutes !== null) {
      throw new InvalidInputError('session_idle_minutes applies to session rules only');
    }
    return { ...fields, name, filter };
  };

  const present = async (rule: OnlineRuleRecord) => ({
    rule,
    evaluators: (await Promise.all(rule.evaluatorIds.map((id) => evaluators.findById(id)))).flatMap((e) => (e ? [e] : [])),
  });

  return {
    async list(project: Identifier, query: { limit: number; fromId?: number | undefined }) {
      const { id } = await projects.resolve(project);
      return Promise.all((await rules.list(id, { limit: query.limit + 1, fromId: query.fromId })).map(present));
    },

    async get(id: number) {
      return present(await requireRule(id));
    },

    async create(
      project: Identifier,
      input: RuleInput & { name: string; target: RuleTarget; evaluators: Identifier[] },
      userId: number | null,
    ) {
      const { id: projectId } = await projects.resolve(project);
      const fields = checked({
        name: input.name,
        target: input.target,
        filter: input.filter ?? '',
        samplingRate: input.samplingRate ?? 1,
        sessionIdleMinutes:
          input.target === 'session' ? (input.sessionIdleMinutes ?? DEFAULT_SESSION_IDLE_MINUTES) : (input.sessionIdleMinutes ?? null),
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        dailyCostLimitUsd: input.dailyCostLimitUsd ?? null,
        enabled: input.enabled ?? true,
        queueId: input.queueId ?? null,
        queueScoreBelow: input.queueScoreBelow ?? null,
      });
      await checkQueue(fields);
      const ids = await evaluatorIds(input.evaluators);
      // From now on: spans past the newest one; sessions that go idle from now.
      const cursor = fields.target === 'session' ? `${nanos(now())}:0` : String(await rules.maxSpanId());
      const id = await rules.insert(projectId, fields, ids, cursor, userId, iso());
      if (id === undefined) throw new ConflictError(`the project has a rule named ${JSON.stringify(fields.name)} already`);
      return present(await requireRule(id));
    },

    async update(id: number, input: RuleInput) {
      const rule = await requireRule(id);
      if (input.target !== undefined && input.target !== rule.target) {
        throw new InvalidInputError("a rule's target cannot change: create another rule");
      }
      const fields = checked({
        name: input.name ?? rule.name,
        target: rule.target,
        filter: input.filter ?? rule.filter,
        samplingRate: input.samplingRate ?? rule.samplingRate,
        sessionIdleMinutes: input.sessionIdleMinutes === undefined ? rule.sessionIdleMinutes : input.sessionIdleMinutes,
        rateLimitPerMinute: input.rateLimitPerMinute === undefined ? rule.rateLimitPerMinute : input.rateLimitPerMinute,
        dailyCostLimitUsd: input.dailyCostLimitUsd === undefined ? rule.dailyCostLimitUsd : input.dailyCostLimitUsd,
        enabled: input.enabled ?? rule.enabled,
        queueId: input.queueId === undefined ? rule.queueId : input.queueId,
        queueScoreBelow: input.queueScoreBelow === undefined ? rule.queueScoreBelow : input.queueScoreBelow,
      });
      await checkQueue(fields);
      if (fields.target === 'session' && fields.sessionIdleMinutes === null) fields.sessionIdleMinutes = DEFAULT_SESSION_IDLE_MINUTES;
      const ids = input.evaluators === undefined ? undefined : await evaluatorIds(input.evaluators);
      if (!(await rules.update(id, fields, ids, iso()))) {
        throw new ConflictError(`the project has a rule named ${JSON.stringify(fields.name)} already`);
      }
      return present(await requireRule(id));
    },

    async delete(id: number): Promise<void> {
      if (!(await rules.delete(id))) throw new NotFoundError(`online evaluation rule ${id} not found`);
    },

    /** Evaluates what the rule would have picked in the last `hours` hours too (items it evaluated already are left alone). */
    async backfill(id: number, hours: number) {
      if (!(hours > 0 && hours <= MAX_BACKFILL_HOURS))
        throw new InvalidInputError(`hours must be more than 0 and at most ${MAX_BACKFILL_HOURS}`);
      const rule = await requireRule(id);
      const from = nanos(now() - hours * 3_600_000);
      if (rule.target === 'session') {
        const cursor = BigInt(rule.cursor.split(':')[0] || '0');
        if (from < cursor) await rules.rewindSessionCursor(id, `${from}:0`, iso());
      } else {
        await rules.startBackfill(id, from, nanos(now()), iso());
      }
      return present(await requireRule(id));
    },

    async stats(id: number): Promise<RuleStats> {
      const rule = await requireRule(id);
      const day = new Date(Math.floor(now() / 86_400_000) * 86_400_000).toISOString();
      const [counts, today, total, oldest, lags] = await Promise.all([
        rules.counts(id),
        rules.finishedSince(id, day),
        rules.totalCost(id),
        rules.oldestPending(id),
        rules.recentLags(id, LAG_SAMPLE),
      ]);
      const sorted = lags.sort((a, b) => a - b);
      const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms) / 1000);
      return {
        counts,
        costTodayUsd: today.costUsd,
        costTotalUsd: total,
        oldestPendingSeconds: oldest ? Math.max(0, (now() - Date.parse(oldest)) / 1000) : 0,
        lagP50Seconds: seconds(percentile(sorted, 50)),
        lagP99Seconds: seconds(percentile(sorted, 99)),
        backfilling: rule.backfillCursor !== null,
      };
    },

    /** The rule's items of one status, newest first (limit + 1 rows). */
    async items(id: number, status: ItemStatus, query: { limit: number; fromId?: number | undefined }): Promise<ItemRecord[]> {
      await requireRule(id);
      return rules.items(id, status, { limit: query.limit + 1, fromId: query.fromId });
    },

    /** Puts every failed item of the rule back in the queue; answers how many. */
    async retryFailed(id: number): Promise<number> {
      await requireRule(id);
      let total = 0;
      for (;;) {
        const moved = await rules.retryFailed(id, RETRY_BATCH, iso());
        total += moved;
        if (moved < RETRY_BATCH) return total;
      }
    },
  };
}
