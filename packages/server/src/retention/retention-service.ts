/**
 * Retention policies (docs/retention.md): per project, a maximum age in days and a maximum number
 * of traces, either or both; both null keeps everything. Knows nothing of HTTP. The deleting
 * itself is the retention job's (retention-job.ts).
 */
import { InvalidInputError } from '@sightline/common';
import type { RetentionPolicyRecord, RetentionRepository } from '../db/repositories/retention-repository.js';
import type { Identifier } from '../shared/identifier.js';

/** The largest accepted max_days (a century) and max_traces: beyond them a policy means nothing. */
export const MAX_RETENTION_DAYS = 36_500;
export const MAX_RETENTION_TRACES = 1_000_000_000_000;

/** A project's policy as the API shows it: a project without a row keeps everything and has no runs. */
export interface RetentionView {
  projectId: number;
  policy: RetentionPolicyRecord | null;
  /** When the retention job last finished a run on this server's database (any project). */
  jobLastRunAt: string | null;
}

/** A new policy: an absent field keeps its current value (null for a new policy). */
export interface RetentionInput {
  maxDays?: number | null | undefined;
  maxTraces?: number | null | undefined;
}

export interface RetentionServiceDependencies {
  retention: RetentionRepository;
  /** Resolves a project by id or name (404 otherwise): the query layer's. */
  resolveProject: (identifier: Identifier) => Promise<{ id: number }>;
  now?: () => string;
}

function bound(value: number | null | undefined, field: string, max: number): number | null | undefined {
  if (value === null || value === undefined) return value;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new InvalidInputError(`${field} must be a whole number from 1 to ${max}, or null to remove the bound`);
  }
  return value;
}

/** Reads the job's last run record (JSON in job_state); null when there is none or it is unreadable. */
export function parseLastRun(value: string | undefined): { finishedAt: string } | null {
  if (value === undefined) return null;
  try {
    const parsed = JSON.parse(value) as { finished_at?: unknown };
    return typeof parsed.finished_at === 'string' ? { finishedAt: parsed.finished_at } : null;
  } catch {
    return null;
  }
}

export type RetentionService = ReturnType<typeof createRetentionService>;

/** The retention policies service. */
export function createRetentionService({ retention, resolveProject, now = () => new Date().toISOString() }: RetentionServiceDependencies) {
  const view = async (projectId: number): Promise<RetentionView> => ({
    projectId,
    policy: (await retention.findPolicy(projectId)) ?? null,
    jobLastRunAt: parseLastRun(await retention.readLastRun())?.finishedAt ?? null,
  });

  return {
    /** The project's policy and what the job last did to it; 404 for an unknown project. */
    async get(identifier: Identifier): Promise<RetentionView> {
      return view((await resolveProject(identifier)).id);
    },

    /** Sets the project's bounds; 422 for a bound that is not a whole number from 1 up. */
    async set(identifier: Identifier, input: RetentionInput): Promise<RetentionView> {
      const maxDays = bound(input.maxDays, 'max_days', MAX_RETENTION_DAYS);
      const maxTraces = bound(input.maxTraces, 'max_traces', MAX_RETENTION_TRACES);
      const project = await resolveProject(identifier);
      const current = await retention.findPolicy(project.id);
      await retention.upsertPolicy(
        project.id,
        {
          maxDays: maxDays === undefined ? (current?.maxDays ?? null) : maxDays,
          maxTraces: maxTraces === undefined ? (current?.maxTraces ?? null) : maxTraces,
        },
        now(),
      );
      return view(project.id);
    },
  };
}
