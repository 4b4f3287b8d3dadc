/**
 * Sessions (docs/sessions.md): the traces that share a `session.id`, recorded by the ingest
 * writers. Lists, one session with its traces, deletes; and the lookup of a session by
 * ProjectSession id or session.id text that annotations and the trace filter share.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import type {
  SessionsRepository,
  SessionSort,
  RootIo,
  SessionRecord,
  SessionTokens,
  SessionTraceRecord,
} from '../db/repositories/sessions-repository.js';
import type { Identifier } from '../shared/identifier.js';
import type { SortOrder } from '../shared/cursor.js';
import type { CostTotals, CostsRepository } from '../db/repositories/costs-repository.js';
import type { ProjectsService } from '../projects/projects-service.js';

/** A session with its traces (start order), token sums and the turns' first input and last output. */
export interface SessionView extends SessionRecord {
  traces: SessionTraceRecord[];
  tokens: SessionTokens;
  /** Sums over the priced LLM spans of its traces; null when none has a price (docs/costs.md). */
  cost: CostTotals | null;
  /** `input.value` of the root span of the first trace, if any. */
  firstInput: string | null;
  /** `output.value` of the root span of the last trace, if any. */
  lastOutput: string | null;
}

export interface SessionListParams {
  limit: number;
  order?: SortOrder | undefined;
  sort?: SessionSort | undefined;
  fromId?: number | undefined;
  /** Only sessions with a trace of this user.id. */
  userId?: string | undefined;
}

/** Most identifiers one bulk delete may name. */
export const MAX_DELETE_IDENTIFIERS = 1000;

const NO_TOKENS: SessionTokens = { prompt: 0, completion: 0, total: 0, errors: 0 };

export type SessionsService = ReturnType<typeof createSessionsService>;

export function createSessionsService(deps: { sessions: SessionsRepository; costs: CostsRepository; projects: ProjectsService }) {
  const { sessions, costs, projects } = deps;

  /**
   * The session named by a ProjectSession id or a session.id text. A session.id lives in one
   * project; when several projects hold it, the text is ambiguous (409) unless `projectId` narrows it.
   */
  const resolve = async (identifier: Identifier, projectId?: number): Promise<SessionRecord> => {
    if (identifier.rowId !== null) {
      const session = await sessions.findById(identifier.rowId);
      if (session && (projectId === undefined || session.projectId === projectId)) return session;
    }
    const found = await sessions.findBySessionId(identifier.text, { projectId, limit: 2 });
    if (found.length === 0) throw new NotFoundError(`session ${JSON.stringify(identifier.text)} not found`);
    if (found.length > 1) {
      throw new ConflictError(
        `session id ${JSON.stringify(identifier.text)} exists in several projects; use the session's id (ProjectSession) instead`,
      );
    }
    return found[0]!;
  };

  /** Traces, tokens and first input / last output of each session, with four queries whatever the page size. */
  const decorate = async (records: SessionRecord[]): Promise<SessionView[]> => {
    const ids = records.map((session) => session.id);
    const [traces, tokens, sessionCosts] = await Promise.all([sessions.traces(ids), sessions.tokens(ids), costs.sessionTotals(ids)]);
    const bySession = new Map<number, SessionTraceRecord[]>();
    for (const trace of traces) {
      const list = bySession.get(trace.sessionRowid);
      if (list) list.push(trace);
      else bySession.set(trace.sessionRowid, [trace]);
    }
    const ends = new Set<number>();
    for (const list of bySession.values()) ends.add(list[0]!.id).add(list[list.length - 1]!.id);
    const io: Map<number, RootIo> = await sessions.rootIo([...ends]);
    return records.map((session) => {
      const list = bySession.get(session.id) ?? [];
      const first = list[0];
      const last = list[list.length - 1];
      return {
        ...session,
        traces: list,
        tokens: tokens.get(session.id) ?? NO_TOKENS,
        cost: sessionCosts.get(session.id) ?? null,
        firstInput: first ? (io.get(first.id)?.input ?? null) : null,
        lastOutput: last ? (io.get(last.id)?.output ?? null) : null,
      };
    });
  };

  return {
    resolve,

    /** Sessions of the project in id order (ascending unless `order=desc`), from the cursor's row; fetches limit + 1. */
    async list(projectIdentifier: Identifier, params: SessionListParams): Promise<SessionView[]> {
      const project = await projects.resolve(projectIdentifier);
      const rows = await sessions.list({
        projectId: project.id,
        order: params.order ?? 'asc',
        sort: params.sort ?? 'id',
        fromId: params.fromId,
        userId: params.userId?.trim() || undefined,
        limit: params.limit + 1,
      });
      return decorate(rows);
    },

    /** One session with its traces; 404 when unknown, 409 when a session.id text is in several projects. */
    async get(identifier: Identifier): Promise<SessionView> {
      return (await decorate([await resolve(identifier)]))[0]!;
    },

    /** Deletes a session and its traces; 404 when unknown. */
    async delete(identifier: Identifier): Promise<void> {
      const session = await resolve(identifier);
      await sessions.deleteByIds([session.id]);
    },

    /**
     * Deletes every named session and their traces; unknown ones are skipped (as Phoenix does).
     * All identifiers must be of one kind (all ids or all session.id texts), as in Phoenix.
     */
    async deleteMany(identifiers: Identifier[]): Promise<void> {
      if (identifiers.length === 0) throw new InvalidInputError('session_identifiers must not be empty');
      if (identifiers.length > MAX_DELETE_IDENTIFIERS)
        throw new InvalidInputError(`too many session_identifiers: ${identifiers.length} (at most ${MAX_DELETE_IDENTIFIERS})`);
      const byId = identifiers.filter((identifier) => identifier.rowId !== null);
      if (byId.length > 0 && byId.length < identifiers.length)
        throw new InvalidInputError('session_identifiers must be all session ids or all session.id texts, not a mix');
      const ids: number[] = [];
      for (const identifier of identifiers) {
        try {
          ids.push((await resolve(identifier)).id);
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
        }
      }
      await sessions.deleteByIds([...new Set(ids)]);
    },
  };
}
