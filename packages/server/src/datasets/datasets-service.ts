/**
 * Datasets (docs/datasets.md): uploads that create a dataset, append to it, or make it equal to
 * the examples sent (a declarative update), each writing one new immutable version; reads of any
 * version; deletion. Knows nothing of HTTP: routes decode ids, this throws domain errors.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import { isUniqueViolation } from '../db/errors.js';
import type {
  DatasetRecord,
  DatasetVersionRecord,
  DatasetsRepository,
  ExampleRecord,
  NewRevision,
} from '../db/repositories/datasets-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { Identifier } from '../query/identifier.js';

export const UPLOAD_ACTIONS = ['create', 'append', 'update'] as const;
export type UploadAction = (typeof UPLOAD_ACTIONS)[number];

type Json = Record<string, unknown>;

/** One example of an upload. */
export interface ExampleInput {
  input: Json;
  output: Json;
  metadata: Json;
  /** The caller's stable id of the example (Phoenix's `example_ids`), if any. */
  externalId: string | null;
  /** The span the example was made from, if any. */
  sourceSpanId: string | null;
}

export interface UploadInput {
  action: UploadAction;
  name: string;
  description: string | null;
  metadata: Json;
  examples: ExampleInput[];
}

export interface UploadResult {
  dataset: DatasetRecord;
  version: DatasetVersionRecord;
  created: number;
  updated: number;
  deleted: number;
}

export interface DatasetWithCount extends DatasetRecord {
  exampleCount: number;
}

const MAX_NAME_LENGTH = 256;

/** The content of an example, for matching the examples of an update without ids. */
const contentKey = (example: { input: Json; output: Json; metadata: Json }) =>
  JSON.stringify([example.input, example.output, example.metadata]);

export type DatasetsService = ReturnType<typeof createDatasetsService>;

/** The datasets service over its repository. */
export function createDatasetsService({
  datasets,
  withTransaction,
  now = () => new Date().toISOString(),
}: {
  datasets: DatasetsRepository;
  withTransaction: WithTransaction;
  now?: () => string;
}) {
  /** The dataset a Dataset GlobalID or a name names; 404 otherwise. */
  const requireDataset = async (identifier: Identifier): Promise<DatasetRecord> => {
    const dataset =
      (identifier.rowId !== null ? await datasets.findById(identifier.rowId) : undefined) ?? (await datasets.findByName(identifier.text));
    if (!dataset) throw new NotFoundError(`dataset ${JSON.stringify(identifier.text)} not found`);
    return dataset;
  };

  /** The version to read: the one named (it must belong to the dataset), else the latest. */
  const versionOf = async (dataset: DatasetRecord, versionId: number | undefined): Promise<DatasetVersionRecord> => {
    const version = versionId === undefined ? await datasets.latestVersion(dataset.id) : await datasets.findVersion(dataset.id, versionId);
    if (!version)
      throw new NotFoundError(
        versionId === undefined ? `dataset ${dataset.name} has no version` : `version not found in dataset ${dataset.name}`,
      );
    return version;
  };

  /** The revisions an upload writes against what the dataset holds at its latest version. */
  const plan = (action: UploadAction, current: ExampleRecord[], sent: ExampleInput[]) => {
    const creates: ExampleInput[] = [];
    const revisions: NewRevision[] = [];
    let updated = 0;
    let deleted = 0;
    if (action !== 'update') return { creates: sent, revisions, updated, deleted };
    const byExternalId = new Map(current.filter((example) => example.externalId !== null).map((example) => [example.externalId!, example]));
    const byContent = new Map<string, ExampleRecord[]>();
    for (const example of current) {
      const key = contentKey(example);
      byContent.set(key, [...(byContent.get(key) ?? []), example]);
    }
    const kept = new Set<number>();
    for (const example of sent) {
      const matched =
        example.externalId !== null
          ? byExternalId.get(example.externalId)
          : byContent.get(contentKey(example))?.find((candidate) => !kept.has(candidate.id));
      if (!matched || kept.has(matched.id)) {
        creates.push(example);
        continue;
      }
      kept.add(matched.id);
      if (contentKey(matched) !== contentKey(example)) {
        revisions.push({ exampleId: matched.id, kind: 'PATCH', input: example.input, output: example.output, metadata: example.metadata });
        updated++;
      }
    }
    for (const example of current) {
      if (kept.has(example.id)) continue;
      revisions.push({ exampleId: example.id, kind: 'DELETE', input: example.input, output: example.output, metadata: example.metadata });
      deleted++;
    }
    return { creates, revisions, updated, deleted };
  };

  return {
    /**
     * Creates, appends to, or updates a dataset from the examples sent, as one new version in one
     * transaction. create: 409 when the name is taken; append and update: an unknown name is created.
     */
    async upload(input: UploadInput): Promise<UploadResult> {
      const name = input.name.trim();
      if (name === '') throw new InvalidInputError('name must not be blank');
      if (name.length > MAX_NAME_LENGTH) throw new InvalidInputError(`name must be at most ${MAX_NAME_LENGTH} characters`);
      const externalIds = input.examples.map((example) => example.externalId).filter((id): id is string => id !== null);
      if (new Set(externalIds).size !== externalIds.length) throw new InvalidInputError('example_ids must not repeat an id');
      const stamp = now();
      const attempt = () =>
        withTransaction(async (trx) => {
          let dataset = await trx.datasets.findByName(name);
          if (dataset && input.action === 'create') throw new ConflictError(`a dataset named ${JSON.stringify(name)} already exists`);
          const current = dataset ? await examplesOfLatest(trx.datasets, dataset.id) : [];
          if (dataset && input.action === 'append') {
            const taken = new Set(current.map((example) => example.externalId).filter((id) => id !== null));
            const clash = externalIds.find((id) => taken.has(id));
            if (clash !== undefined) throw new ConflictError(`the dataset already holds an example with id ${JSON.stringify(clash)}`);
          }
          dataset ??= await trx.datasets.insertDataset({ name, description: input.description, metadata: input.metadata }, stamp);
          const { creates, revisions, updated, deleted } = plan(input.action, current, input.examples);
          const version = await trx.datasets.insertVersion(
            { datasetId: dataset.id, description: input.description, metadata: input.metadata },
            stamp,
          );
          const ids = await trx.datasets.insertExamples(dataset.id, creates, stamp);
          const created = creates.map((example, index) => ({
            exampleId: ids[index]!,
            kind: 'CREATE' as const,
            input: example.input,
            output: example.output,
            metadata: example.metadata,
          }));
          await trx.datasets.insertRevisions(version.id, [...created, ...revisions], stamp);
          await trx.datasets.touch(dataset.id, stamp);
          return { dataset, version, created: creates.length, updated, deleted };
        });
      try {
        return await attempt();
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Two uploads creating one name at once (two tabs, two replicas): the second finds the name
        // taken. create refuses a taken name anyway; append and update run again and meet the
        // dataset the other one created, as if they had come a moment later.
        if (input.action === 'create') throw new ConflictError(`a dataset named ${JSON.stringify(name)} already exists`);
        try {
          return await attempt();
        } catch (again) {
          if (isUniqueViolation(again))
            throw new ConflictError(`a dataset named ${JSON.stringify(name)} was created at the same time; retry`);
          throw again;
        }
      }
    },

    /** One dataset with its example count at the latest version. */
    async get(identifier: Identifier): Promise<DatasetWithCount> {
      const dataset = await requireDataset(identifier);
      return { ...dataset, exampleCount: (await datasets.exampleCounts([dataset.id])).get(dataset.id) ?? 0 };
    },

    /** Datasets newest first (limit + 1 rows), with their example counts. */
    async list(query: { limit: number; fromId?: number | undefined; name?: string | undefined }): Promise<DatasetWithCount[]> {
      const rows = await datasets.list({ limit: query.limit + 1, fromId: query.fromId, name: query.name });
      const counts = await datasets.exampleCounts(rows.map((row) => row.id));
      return rows.map((row) => ({ ...row, exampleCount: counts.get(row.id) ?? 0 }));
    },

    /** Versions newest first (limit + 1 rows). */
    async versions(identifier: Identifier, query: { limit: number; fromId?: number | undefined }): Promise<DatasetVersionRecord[]> {
      const dataset = await requireDataset(identifier);
      return datasets.listVersions(dataset.id, { limit: query.limit + 1, fromId: query.fromId });
    },

    /** The examples as they read at a version (default the latest), exactly as that version held them. */
    async examples(
      identifier: Identifier,
      version?: Identifier,
    ): Promise<{ dataset: DatasetRecord; version: DatasetVersionRecord; examples: ExampleRecord[] }> {
      const dataset = await requireDataset(identifier);
      if (version !== undefined && version.rowId === null)
        throw new InvalidInputError(`version_id ${JSON.stringify(version.text)} is not a dataset version id`);
      const chosen = await versionOf(dataset, version?.rowId ?? undefined);
      return { dataset, version: chosen, examples: await datasets.examplesAt(dataset.id, chosen.id) };
    },

    /** Deletes the dataset with all its versions and examples. */
    async delete(identifier: Identifier): Promise<void> {
      const dataset = await requireDataset(identifier);
      if (!(await datasets.deleteDataset(dataset.id))) throw new NotFoundError(`dataset ${JSON.stringify(identifier.text)} not found`);
    },
  };
}

/** The examples at the dataset's latest version (none when it has no version yet). */
async function examplesOfLatest(datasets: DatasetsRepository, datasetId: number): Promise<ExampleRecord[]> {
  const latest = await datasets.latestVersion(datasetId);
  return latest ? datasets.examplesAt(datasetId, latest.id) : [];
}
