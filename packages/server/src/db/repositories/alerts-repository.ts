/**
 * SQL for alert rules and their history (docs/alerts.md). The alert job's writes (a check's
 * value; a state change with its history row; a delivery's outcome) are compiled here and run by
 * the caller in one transaction: on SQLite by the writer thread (db/writer/statement-writes-sqlite.ts
 * says why), on PostgreSQL on a connection.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { CompiledStatement } from '../writer/statement-writes-sqlite.js';

export type AlertState = 'ok' | 'firing';
export type AlertComparator = '>' | '>=' | '<' | '<=';

export type AlertChannel = { type: 'webhook'; url: string; format: 'json' | 'slack' } | { type: 'email'; to: string[] };

export interface AlertRuleFields {
  name: string;
  metric: string;
  annotationName: string | null;
  annotationLabel: string | null;
  filter: string;
  comparator: AlertComparator;
  threshold: number;
  windowSeconds: number;
  channels: AlertChannel[];
  enabled: boolean;
  mutedUntil: string | null;
}

export interface AlertRuleRecord extends AlertRuleFields {
  id: number;
  projectId: number;
  state: AlertState;
  lastValue: number | null;
  lastCheckedAt: string | null;
  lastDeliveryAt: string | null;
  lastDeliveryError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An enabled rule with its project's name, as the job checks it. */
export interface CheckedRule extends AlertRuleRecord {
  projectName: string;
}

export interface AlertEventRecord {
  id: number;
  ruleId: number;
  firedAt: string;
  firedValue: number;
  resolvedAt: string | null;
  resolvedValue: number | null;
  muted: boolean;
}

type RuleRow = {
  id: number;
  project_id: number;
  name: string;
  metric: string;
  annotation_name: string | null;
  annotation_label: string | null;
  filter: string;
  comparator: string;
  threshold: number;
  window_seconds: number;
  channels: string;
  enabled: number;
  muted_until: string | null;
  state: string;
  last_value: number | null;
  last_checked_at: string | null;
  last_delivery_at: string | null;
  last_delivery_error: string | null;
  created_at: string;
  updated_at: string;
};

function parseChannels(text: string): AlertChannel[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as AlertChannel[]) : [];
  } catch {
    return [];
  }
}

const toRule = (row: RuleRow): AlertRuleRecord => ({
  id: Number(row.id),
  projectId: Number(row.project_id),
  name: row.name,
  metric: row.metric,
  annotationName: row.annotation_name,
  annotationLabel: row.annotation_label,
  filter: row.filter,
  comparator: row.comparator as AlertComparator,
  threshold: Number(row.threshold),
  windowSeconds: Number(row.window_seconds),
  channels: parseChannels(row.channels),
  enabled: Number(row.enabled) === 1,
  mutedUntil: row.muted_until,
  state: row.state === 'firing' ? 'firing' : 'ok',
  lastValue: row.last_value === null ? null : Number(row.last_value),
  lastCheckedAt: row.last_checked_at,
  lastDeliveryAt: row.last_delivery_at,
  lastDeliveryError: row.last_delivery_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const columns = (fields: Partial<AlertRuleFields>) => ({
  ...(fields.name !== undefined ? { name: fields.name } : {}),
  ...(fields.metric !== undefined ? { metric: fields.metric } : {}),
  ...(fields.annotationName !== undefined ? { annotation_name: fields.annotationName } : {}),
  ...(fields.annotationLabel !== undefined ? { annotation_label: fields.annotationLabel } : {}),
  ...(fields.filter !== undefined ? { filter: fields.filter } : {}),
  ...(fields.comparator !== undefined ? { comparator: fields.comparator } : {}),
  ...(fields.threshold !== undefined ? { threshold: fields.threshold } : {}),
  ...(fields.windowSeconds !== undefined ? { window_seconds: fields.windowSeconds } : {}),
  ...(fields.channels !== undefined ? { channels: JSON.stringify(fields.channels) } : {}),
  ...(fields.enabled !== undefined ? { enabled: fields.enabled ? 1 : 0 } : {}),
  ...(fields.mutedUntil !== undefined ? { muted_until: fields.mutedUntil } : {}),
});

export type AlertsRepository = ReturnType<typeof createAlertsRepository>;

export function createAlertsRepository(db: Kysely<DB>) {
  return {
    /** Creates the rule, in state ok; undefined when the project has a rule of that name. */
    async insert(projectId: number, fields: AlertRuleFields, userId: number | null, now: string): Promise<number | undefined> {
      const row = await db
        .insertInto('alert_rules')
        .values({
          project_id: projectId,
          name: fields.name,
          metric: fields.metric,
          annotation_name: fields.annotationName,
          annotation_label: fields.annotationLabel,
          filter: fields.filter,
          comparator: fields.comparator,
          threshold: fields.threshold,
          window_seconds: fields.windowSeconds,
          channels: JSON.stringify(fields.channels),
          enabled: fields.enabled ? 1 : 0,
          muted_until: fields.mutedUntil,
          state: 'ok',
          last_value: null,
          last_checked_at: null,
          last_delivery_at: null,
          last_delivery_error: null,
          user_id: userId,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row ? Number(row.id) : undefined;
    },

    /** Changes the rule; false when the new name is another rule's of the project. */
    async update(id: number, projectId: number, fields: Partial<AlertRuleFields>, now: string): Promise<boolean> {
      if (fields.name !== undefined) {
        const taken = await db
          .selectFrom('alert_rules')
          .select('id')
          .where('project_id', '=', projectId)
          .where('name', '=', fields.name)
          .where('id', '<>', id)
          .executeTakeFirst();
        if (taken) return false;
      }
      await db
        .updateTable('alert_rules')
        .set({ ...columns(fields), updated_at: now })
        .where('id', '=', id)
        .execute();
      return true;
    },

    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('alert_rules').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async findById(id: number): Promise<AlertRuleRecord | undefined> {
      const row = await db.selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRule(row) : undefined;
    },

    /** A project's rules by id from `fromId` (inclusive). */
    async list(projectId: number, query: { limit: number; fromId?: number | undefined }): Promise<AlertRuleRecord[]> {
      let select = db.selectFrom('alert_rules').selectAll().where('project_id', '=', projectId);
      if (query.fromId !== undefined) select = select.where('id', '>=', query.fromId);
      return (await select.orderBy('id').limit(query.limit).execute()).map(toRule);
    },

    /** Every enabled rule of a project not being deleted, from `afterId` on, by id. */
    async enabled(afterId: number, limit: number): Promise<CheckedRule[]> {
      const rows = await db
        .selectFrom('alert_rules as r')
        .innerJoin('projects as p', 'p.id', 'r.project_id')
        .selectAll('r')
        .select('p.name as project_name')
        .where('r.enabled', '=', 1)
        .where('p.deleted_at', 'is', null)
        .where('r.id', '>', afterId)
        .orderBy('r.id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...toRule(row), projectName: row.project_name }));
    },

    /** A rule's firings, newest first, from `fromId` (inclusive) down. */
    async history(ruleId: number, query: { limit: number; fromId?: number | undefined }): Promise<AlertEventRecord[]> {
      let select = db.selectFrom('alert_events').selectAll().where('rule_id', '=', ruleId);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        ruleId: Number(row.rule_id),
        firedAt: row.fired_at,
        firedValue: Number(row.fired_value),
        resolvedAt: row.resolved_at,
        resolvedValue: row.resolved_value === null ? null : Number(row.resolved_value),
        muted: Number(row.muted) === 1,
      }));
    },

    /**
     * A check's outcome as statements for one transaction: the value and time always; with
     * `change`, the new state (only from the state it was read in, so a second writer's change is
     * never repeated) and its history row (a new firing, or the open one resolved).
     */
    checkStatements(
      rule: { id: number; state: AlertState },
      value: number | null,
      at: string,
      change: { to: AlertState; muted: boolean } | null,
    ): CompiledStatement[] {
      const statements: CompiledStatement[] = [];
      statements.push(
        db
          .updateTable('alert_rules')
          .set({ last_value: value, last_checked_at: at, ...(change ? { state: change.to } : {}) })
          .where('id', '=', rule.id)
          .where('state', '=', rule.state)
          .compile(),
      );
      if (change?.to === 'firing') {
        statements.push(
          db
            .insertInto('alert_events')
            .values({
              rule_id: rule.id,
              fired_at: at,
              fired_value: value ?? 0,
              resolved_at: null,
              resolved_value: null,
              muted: change.muted ? 1 : 0,
            })
            .compile(),
        );
      } else if (change?.to === 'ok') {
        statements.push(
          db
            .updateTable('alert_events')
            .set({ resolved_at: at, resolved_value: value })
            .where('rule_id', '=', rule.id)
            .where('resolved_at', 'is', null)
            .compile(),
        );
      }
      return statements;
    },

    /** The outcome of the latest delivery of a rule's notifications (error null: every channel took it). */
    deliveryStatements(ruleId: number, at: string, error: string | null): CompiledStatement[] {
      return [db.updateTable('alert_rules').set({ last_delivery_at: at, last_delivery_error: error }).where('id', '=', ruleId).compile()];
    },
  };
}
