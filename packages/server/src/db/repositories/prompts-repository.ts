/**
 * SQL for prompts, their immutable versions and version tags (docs/prompts.md). JSON documents
 * are stored as text and parsed on the way out; a service that writes several rows runs these
 * methods inside `withTransaction` (db/repositories/index.ts). Deleting a prompt removes its versions and tags
 * (foreign keys cascade).
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB, PromptVersionTagsTable, PromptVersionsTable, PromptsTable } from '../schema.js';

export interface PromptRecord {
  id: number;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface PromptVersionRecord {
  id: number;
  promptId: number;
  description: string | null;
  templateType: string;
  templateFormat: string;
  template: unknown;
  invocationParameters: unknown;
  modelProvider: string;
  modelName: string;
  tools: unknown;
  responseFormat: unknown;
  userId: number | null;
  createdAt: string;
}

export interface PromptVersionTagRecord {
  id: number;
  promptId: number;
  name: string;
  description: string | null;
  versionId: number;
  createdAt: string;
  updatedAt: string;
}

/** A prompt to create: its name, description and metadata. */
export interface NewPrompt {
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
}

/** What a new version stores. */
export type NewPromptVersion = Omit<PromptVersionRecord, 'id' | 'promptId' | 'createdAt'>;

export interface PageQuery {
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
  /** Start at this id (inclusive), newest first. */
  fromId?: number | undefined;
}

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
const stringify = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

function toPrompt(row: Selectable<PromptsTable>): PromptRecord {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    metadata: parse(row.metadata) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toVersion(row: Selectable<PromptVersionsTable>): PromptVersionRecord {
  return {
    id: Number(row.id),
    promptId: Number(row.prompt_id),
    description: row.description,
    templateType: row.template_type,
    templateFormat: row.template_format,
    template: parse(row.template),
    invocationParameters: parse(row.invocation_parameters),
    modelProvider: row.model_provider,
    modelName: row.model_name,
    tools: parse(row.tools),
    responseFormat: parse(row.response_format),
    userId: row.user_id === null ? null : Number(row.user_id),
    createdAt: row.created_at,
  };
}

function toTag(row: Selectable<PromptVersionTagsTable>): PromptVersionTagRecord {
  return {
    id: Number(row.id),
    promptId: Number(row.prompt_id),
    name: row.name,
    description: row.description,
    versionId: Number(row.version_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type PromptsRepository = ReturnType<typeof createPromptsRepository>;

/** Prompts repository over a Kysely connection. */
export function createPromptsRepository(db: Kysely<DB>) {
  return {
    async findPromptById(id: number): Promise<PromptRecord | undefined> {
      const row = await db.selectFrom('prompts').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toPrompt(row);
    },

    async findPromptByName(name: string): Promise<PromptRecord | undefined> {
      const row = await db.selectFrom('prompts').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toPrompt(row);
    },

    /** Prompts newest first (id descending). */
    async listPrompts(query: PageQuery): Promise<PromptRecord[]> {
      let select = db.selectFrom('prompts').selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toPrompt);
    },

    /**
     * The prompt of that name, inserted first when there is none; concurrent callers share one
     * row (the insert does nothing on a taken name). An existing prompt is returned unchanged.
     */
    async ensurePrompt(prompt: NewPrompt, now: string): Promise<PromptRecord> {
      await db
        .insertInto('prompts')
        .values({
          name: prompt.name,
          description: prompt.description,
          metadata: JSON.stringify(prompt.metadata),
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .execute();
      return toPrompt(await db.selectFrom('prompts').selectAll().where('name', '=', prompt.name).executeTakeFirstOrThrow());
    },

    /** Appends a version to a prompt. */
    async insertVersion(promptId: number, version: NewPromptVersion, now: string): Promise<PromptVersionRecord> {
      const row = await db
        .insertInto('prompt_versions')
        .values({
          prompt_id: promptId,
          description: version.description,
          template_type: version.templateType,
          template_format: version.templateFormat,
          template: JSON.stringify(version.template),
          invocation_parameters: JSON.stringify(version.invocationParameters),
          model_provider: version.modelProvider,
          model_name: version.modelName,
          tools: stringify(version.tools),
          response_format: stringify(version.responseFormat),
          user_id: version.userId,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toVersion(row);
    },

    /** Versions of a prompt newest first. */
    async listVersions(promptId: number, query: PageQuery): Promise<PromptVersionRecord[]> {
      let select = db.selectFrom('prompt_versions').selectAll().where('prompt_id', '=', promptId).orderBy('id', 'desc').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toVersion);
    },

    async findVersion(id: number): Promise<PromptVersionRecord | undefined> {
      const row = await db.selectFrom('prompt_versions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toVersion(row);
    },

    /** The newest version of a prompt. */
    async latestVersion(promptId: number): Promise<PromptVersionRecord | undefined> {
      const row = await db
        .selectFrom('prompt_versions')
        .selectAll()
        .where('prompt_id', '=', promptId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toVersion(row);
    },

    /** The version a tag of the prompt names. */
    async versionByTag(promptId: number, tagName: string): Promise<PromptVersionRecord | undefined> {
      const row = await db
        .selectFrom('prompt_version_tags as t')
        .innerJoin('prompt_versions as v', 'v.id', 't.version_id')
        .selectAll('v')
        .where('t.prompt_id', '=', promptId)
        .where('t.name', '=', tagName)
        .executeTakeFirst();
      return row && toVersion(row);
    },

    /** Tags of a version newest first. */
    async listTags(versionId: number, query: PageQuery): Promise<PromptVersionTagRecord[]> {
      let select = db
        .selectFrom('prompt_version_tags')
        .selectAll()
        .where('version_id', '=', versionId)
        .orderBy('id', 'desc')
        .limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toTag);
    },

    /** Points the tag of the version's prompt at the version: creates it, or moves it (one upsert). */
    async setTag(tag: {
      promptId: number;
      versionId: number;
      name: string;
      description: string | null;
      userId: number | null;
      now: string;
    }): Promise<PromptVersionTagRecord> {
      const row = await db
        .insertInto('prompt_version_tags')
        .values({
          prompt_id: tag.promptId,
          name: tag.name,
          description: tag.description,
          version_id: tag.versionId,
          user_id: tag.userId,
          created_at: tag.now,
          updated_at: tag.now,
        })
        .onConflict((conflict) =>
          conflict.columns(['prompt_id', 'name']).doUpdateSet((eb) => ({
            version_id: eb.ref('excluded.version_id'),
            description: eb.ref('excluded.description'),
            user_id: eb.ref('excluded.user_id'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return toTag(row);
    },

    /** Removes the tag of that name from the prompt; false when there was none. */
    async deleteTag(promptId: number, name: string): Promise<boolean> {
      const result = await db
        .deleteFrom('prompt_version_tags')
        .where('prompt_id', '=', promptId)
        .where('name', '=', name)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Sets the given fields of the prompt (its versions never change). */
    async updatePrompt(
      id: number,
      fields: { description?: string | null | undefined; metadata?: Record<string, unknown> | undefined },
      now: string,
    ): Promise<PromptRecord | undefined> {
      const row = await db
        .updateTable('prompts')
        .set({
          updated_at: now,
          ...(fields.description !== undefined ? { description: fields.description } : {}),
          ...(fields.metadata !== undefined ? { metadata: JSON.stringify(fields.metadata) } : {}),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toPrompt(row);
    },

    /** Deletes the prompt with its versions and tags; false when it did not exist. */
    async deletePrompt(id: number): Promise<boolean> {
      const result = await db.deleteFrom('prompts').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
