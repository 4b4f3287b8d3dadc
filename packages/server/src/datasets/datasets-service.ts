/**
 * Datasets (docs/datasets.md): uploads that create a dataset, append to it, or make it equal to
 * the examples sent (a declarative update), each writing one new immutable version; reads of any
 * version; deletion. Knows nothing of HTTP: routes decode ids, this throws domain errors.
 *
 * The examples of an upload (a JSON body or a file) arrive as a stream and are written in batches
 * as they arrive, each in its own short transaction, into a pending version that readers do not
 * see; one last transaction completes it. A failed upload deletes what it wrote. One upload at a
 * time per dataset (docs/datasets.md, "Uploads").
 */
import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import { isUniqueViolation } from '../db/errors.js';
import type {
  DatasetRecord,
  DatasetVersionRecord,
  DatasetsRepository,
  NewRevision,
  PendingVersion,
  StoredExampleText,
} from '../db/repositories/datasets-repository.js';
import type { DatasetSplitsRepository } from '../db/repositories/dataset-splits-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { Identifier } from '../shared/identifier.js';
import { resolveSplitFilter } from './dataset-splits-service.js';
import { requireDataset as findDataset } from './require-dataset.js';

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

/**
 * One example of an upload whose documents are JSON text already (a JSON body, read as tokens:
 * json-examples.ts), the text JSON.stringify gives: stored as it is, never parsed.
 */
export interface ExampleText {
  input: string;
  output: string;
  metadata: string;
  externalId: string | null;
  sourceSpanId: string | null;
}

export interface UploadInput {
  action: UploadAction;
  name: string;
  description: string | null;
  metadata: Json;
  /**
   * The examples as they arrive (a JSON body or a file, never held whole): written in batches.
   * An error thrown by the stream fails the upload, which then stores nothing, and is rethrown as it is.
   */
  examples: AsyncIterable<ExampleInput> | AsyncIterable<ExampleText>;
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

export interface DatasetsServiceOptions {
  /** A pending version whose upload wrote nothing for this long is abandoned (its upload died or stalled). */
  idleTimeoutMs?: number;
  /** Examples per batch of a streamed upload. */
  batchExamples?: number;
  /** Bytes of JSON per batch of a streamed upload (few rows when they are large). */
  batchBytes?: number;
  /** Reports a failure to delete what a failed upload wrote (it is retried by the next cleanup). */
  onCleanupError?: (error: unknown) => void;
  /** Called when a dataset was deleted, so that its rows are removed soon (starts the dataset-deletions job). */
  onDeleted?: () => void;
}

const MAX_NAME_LENGTH = 256;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
// Rows a batch holds while it waits for its transaction survive the young generation's collections
// when batches are large, and then pile up as garbage in the old one: 250 kept the peak RSS of a
// 50 MB upload near idle where 1,000 did not (docs/performance.md, "Dataset upload").
const DEFAULT_BATCH_EXAMPLES = 250;
const DEFAULT_BATCH_BYTES = 4 * 1024 * 1024;
/** Rows deleted per statement when removing a failed upload, so that no statement holds the database long. */
const DELETE_CHUNK = 1000;
/** Examples read per page to index the current examples of an update. */
const INDEX_PAGE = 2000;
/**
 * Examples read per query for a read or a download: a few milliseconds of the database each (on
 * SQLite the event loop waits for every query), and the event loop runs other requests between pages.
 */
const READ_PAGE = 2000;

/**
 * Examples created or deleted by one upload from which the planner's statistics are refreshed
 * before it answers (PostgreSQL; datasets repository, refreshExampleStatistics).
 */
const REFRESH_STATISTICS_AFTER = 10_000;

/**
 * An example with its documents serialised once (for the insert, the batch size and the content
 * hash). It keeps no reference to the parsed objects, so that they die young: what a batch holds
 * while it waits for its transaction is a few strings per row (docs/performance.md, "Dataset upload").
 */
type Prepared = ExampleText;

/** The content of an example as one hash: JSON text has no raw line break, so the joined texts are unambiguous. */
const contentHash = (texts: { input: string; output: string; metadata: string }) =>
  createHash('sha256').update(`${texts.input}\n${texts.output}\n${texts.metadata}`).digest('base64');

function prepare(example: ExampleInput | ExampleText): Prepared {
  if (typeof example.input === 'string') return example as ExampleText;
  return {
    externalId: example.externalId,
    sourceSpanId: example.sourceSpanId,
    input: JSON.stringify(example.input),
    output: JSON.stringify(example.output),
    metadata: JSON.stringify(example.metadata),
  };
}

const KEPT_BY_ID = 1;
const KEPT_BY_CONTENT = 2;

/**
 * The examples a dataset holds at the version an update starts from, as ids, external ids and
 * content hashes: what an update matches the examples sent against, bounded by the dataset's
 * size and not by the upload's. Marks each one matched (kept) as the upload goes.
 */
class CurrentExamples {
  private readonly ids: number[] = [];
  private readonly hashes: string[] = [];
  private readonly byExternalId = new Map<string, number>();
  /** Indexes of the examples with this content, in id order (one number for the usual single one). */
  private readonly byHash = new Map<string, number | number[]>();
  private kept = new Uint8Array(0);

  add(id: number, externalId: string | null, hash: string): void {
    const index = this.ids.length;
    this.ids.push(id);
    this.hashes.push(hash);
    if (externalId !== null) this.byExternalId.set(externalId, index);
    const same = this.byHash.get(hash);
    if (same === undefined) this.byHash.set(hash, index);
    else if (typeof same === 'number') this.byHash.set(hash, [same, index]);
    else same.push(index);
  }

  /** Called once every example is added. */
  seal(): void {
    this.kept = new Uint8Array(this.ids.length);
  }

  /** The example with the external id: its index, id and content hash, and how it was matched already (0: not yet). */
  withExternalId(externalId: string): { index: number; id: number; hash: string; keptBy: number } | undefined {
    const index = this.byExternalId.get(externalId);
    return index === undefined ? undefined : { index, id: this.ids[index]!, hash: this.hashes[index]!, keptBy: this.kept[index]! };
  }

  /** The first example with the content that no row of the upload matched yet. */
  withContent(hash: string): number | undefined {
    const same = this.byHash.get(hash);
    if (same === undefined) return undefined;
    if (typeof same === 'number') return this.kept[same] ? undefined : same;
    return same.find((index) => !this.kept[index]);
  }

  keep(index: number, by: number): void {
    this.kept[index] = by;
  }

  /** The ids of the examples no row matched, in id order: they get DELETE revisions. */
  *unmatched(): Generator<number> {
    for (let index = 0; index < this.ids.length; index++) if (!this.kept[index]) yield this.ids[index]!;
  }
}

/** One upload under way. */
interface Upload {
  action: UploadAction;
  dataset: DatasetRecord;
  version: DatasetVersionRecord;
  /** The latest completed version when the upload started (what an update compares with), if any. */
  baseVersionId: number | null;
  /** Examples that version holds: with what the upload creates and deletes, the count of the new one. */
  baseCount: number;
  /** Examples of the dataset with a larger id were created by this upload (no other runs meanwhile). */
  maxExampleIdBefore: number;
  /** For an update of a dataset with a version: the examples it holds, to match against. */
  current: CurrentExamples | null;
  created: number;
  updated: number;
  deleted: number;
}

export type DatasetsService = ReturnType<typeof createDatasetsService>;

/** The datasets service over its repository. */
export function createDatasetsService({
  datasets,
  splits,
  withTransaction,
  now = () => new Date().toISOString(),
  options = {},
}: {
  datasets: DatasetsRepository;
  /** The splits examples may be filtered by (`split=`). */
  splits: DatasetSplitsRepository;
  withTransaction: WithTransaction;
  now?: () => string;
  options?: DatasetsServiceOptions;
}) {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const batchExamples = options.batchExamples ?? DEFAULT_BATCH_EXAMPLES;
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
  // A streamed upload writes at least this often while rows arrive, however slowly, so that only a
  // dead or stalled one is ever idle for idleTimeoutMs.
  const flushIntervalMs = idleTimeoutMs / 4;
  /** A pending version that wrote nothing since this time is abandoned. */
  const idleCutoff = () => new Date(Date.parse(now()) - idleTimeoutMs).toISOString();
  const inProgress = (name: string) =>
    new ConflictError(`an upload to dataset ${JSON.stringify(name)} is in progress; retry when it has finished`);

  /** The dataset a Dataset GlobalID or a name names; 404 otherwise. */
  const requireDataset = (identifier: Identifier): Promise<DatasetRecord> => findDataset(datasets, identifier);

  /** The version to read: the one named (it must belong to the dataset), else the latest. */
  const versionOf = async (dataset: DatasetRecord, versionId: number | undefined): Promise<DatasetVersionRecord> => {
    const version = versionId === undefined ? await datasets.latestVersion(dataset.id) : await datasets.findVersion(dataset.id, versionId);
    if (!version)
      throw new NotFoundError(
        versionId === undefined ? `dataset ${dataset.name} has no version` : `version not found in dataset ${dataset.name}`,
      );
    return version;
  };

  /**
   * Deletes what a pending version's upload wrote, in short statements: the examples it created
   * (their revisions cascade), its other revisions, the version, and the dataset if the upload had
   * created it. The caller has given the version up first, so its upload can write no more.
   */
  const deletePending = async (version: { id: number; datasetId: number }): Promise<void> => {
    // Between statements the event loop takes other requests (a SQLite statement resolves at once).
    while ((await datasets.deleteExamplesCreatedBy(version.id, DELETE_CHUNK)) > 0) await setImmediate();
    while ((await datasets.deleteRevisionsOf(version.id, DELETE_CHUNK)) > 0) await setImmediate();
    await datasets.deletePendingVersion(version.id);
    await datasets.deleteDatasetWithoutVersions(version.datasetId);
  };

  /** Deletes the pending versions whose uploads died (idle past the timeout), with their rows; returns how many. */
  const cleanUpAbandoned = async (): Promise<number> => {
    let count = 0;
    const cutoff = idleCutoff();
    for (const version of await datasets.abandonedVersions(cutoff, 100)) {
      // Another cleaner may take it first; both would only delete the same rows.
      if (!(await datasets.giveUpVersion(version.id, cutoff))) continue;
      await deletePending(version);
      count++;
    }
    return count;
  };

  /**
   * Starts an upload in the caller's transaction: finds or creates the dataset, refuses a second
   * upload while one is pending (409), and adds the version (pending for a stream).
   */
  const open = async (
    repository: DatasetsRepository,
    input: UploadInput,
    name: string,
    stamp: string,
    pending: boolean,
  ): Promise<Upload> => {
    let dataset = await repository.findByNameForUpload(name);
    const existed = dataset !== undefined;
    if (dataset) {
      if (await repository.pendingVersion(dataset.id)) throw inProgress(name);
      if (input.action === 'create') throw new ConflictError(`a dataset named ${JSON.stringify(name)} already exists`);
    }
    dataset ??= await repository.insertDataset({ name, description: input.description, metadata: input.metadata }, stamp);
    const base = existed ? await repository.latestVersion(dataset.id) : undefined;
    const maxExampleIdBefore = existed ? await repository.maxExampleId(dataset.id) : 0;
    const version = await repository.insertVersion(
      { datasetId: dataset.id, description: input.description, metadata: input.metadata },
      stamp,
      { pending },
    );
    return {
      action: input.action,
      dataset,
      version,
      baseVersionId: base?.id ?? null,
      baseCount: base?.exampleCount ?? 0,
      maxExampleIdBefore,
      current: null,
      created: 0,
      updated: 0,
      deleted: 0,
    };
  };

  /** Runs `start` again once when it met a unique violation (two uploads creating one name at once). */
  const withNameRetry = async <T>(action: UploadAction, name: string, start: () => Promise<T>): Promise<T> => {
    try {
      return await start();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Two uploads creating one name at once (two tabs, two replicas): the second finds the name
      // taken. create refuses a taken name anyway; append and update run again and meet the
      // dataset the other one created, as if they had come a moment later.
      if (action === 'create') throw new ConflictError(`a dataset named ${JSON.stringify(name)} already exists`);
      try {
        return await start();
      } catch (again) {
        if (isUniqueViolation(again))
          throw new ConflictError(`a dataset named ${JSON.stringify(name)} was created at the same time; retry`);
        throw again;
      }
    }
  };

  /** Indexes the examples an update starts from, page by page; `tick` runs between pages. */
  const loadCurrent = async (repository: DatasetsRepository, upload: Upload, tick: () => Promise<void>): Promise<void> => {
    if (upload.action !== 'update' || upload.baseVersionId === null) return;
    const current = new CurrentExamples();
    for (let afterId = 0; ; ) {
      const page = await repository.exampleTextsAt(upload.dataset.id, upload.baseVersionId, afterId, INDEX_PAGE);
      for (const row of page) current.add(row.id, row.externalId, contentHash(row));
      if (page.length < INDEX_PAGE) break;
      afterId = page[page.length - 1]!.id;
      await tick();
      // Indexing a big dataset takes many pages: the event loop takes other requests between them.
      await setImmediate();
    }
    current.seal();
    upload.current = current;
  };

  /**
   * Writes one batch of the upload: CREATE revisions for new examples; for an update, PATCH
   * revisions for matched examples whose values changed (and for a deleted example sent again by
   * its id). Refuses an example id repeated in the upload (422) or, on append, one the dataset holds (409).
   */
  const writeBatch = async (repository: DatasetsRepository, upload: Upload, batch: Prepared[], stamp: string): Promise<void> => {
    const seen = new Set<string>();
    const creates: Prepared[] = [];
    const revisions: NewRevision[] = [];
    const repeated = (id: string) => new InvalidInputError(`example_ids must not repeat an id: ${JSON.stringify(id)} is sent twice`);
    const patch = (exampleId: number, row: Prepared): NewRevision => ({
      exampleId,
      kind: 'PATCH',
      input: row.input,
      output: row.output,
      metadata: row.metadata,
    });
    for (const row of batch) {
      const externalId = row.externalId;
      if (externalId !== null) {
        if (seen.has(externalId)) throw repeated(externalId);
        seen.add(externalId);
      }
      const current = upload.current;
      if (current === null) {
        creates.push(row);
        continue;
      }
      if (externalId !== null) {
        const matched = current.withExternalId(externalId);
        if (matched === undefined) {
          creates.push(row);
          continue;
        }
        if (matched.keptBy === KEPT_BY_ID) throw repeated(externalId);
        if (matched.keptBy === KEPT_BY_CONTENT) {
          throw new InvalidInputError(
            `the example with id ${JSON.stringify(externalId)} was already matched by an earlier row of the same content`,
          );
        }
        current.keep(matched.index, KEPT_BY_ID);
        if (matched.hash !== contentHash(row)) {
          revisions.push(patch(matched.id, row));
          upload.updated++;
        }
        continue;
      }
      const index = current.withContent(contentHash(row));
      if (index === undefined) creates.push(row);
      else current.keep(index, KEPT_BY_CONTENT);
    }
    // Example ids the dataset may hold from before (or from an earlier batch of this upload).
    const externalIds = creates.flatMap((row) => (row.externalId === null ? [] : [row.externalId]));
    const revived = new Set<string>();
    for (const found of await repository.examplesWithExternalIds(upload.dataset.id, externalIds)) {
      if (found.id > upload.maxExampleIdBefore) throw repeated(found.externalId);
      if (upload.action !== 'update') {
        throw new ConflictError(`the dataset already holds an example with id ${JSON.stringify(found.externalId)}`);
      }
      // An update sending the id of an example deleted at an earlier version brings it back.
      const row = creates.find((candidate) => candidate.externalId === found.externalId)!;
      revisions.push(patch(found.id, row));
      revived.add(found.externalId);
    }
    const inserts = revived.size === 0 ? creates : creates.filter((row) => !revived.has(row.externalId!));
    const ids = await repository.insertExamples(upload.dataset.id, inserts, stamp);
    const created: NewRevision[] = inserts.map((row, index) => ({
      exampleId: ids[index]!,
      kind: 'CREATE',
      input: row.input,
      output: row.output,
      metadata: row.metadata,
    }));
    await repository.insertRevisions(upload.version.id, [...created, ...revisions], stamp);
    upload.created += creates.length;
  };

  /** The ids of the examples an update did not match, in chunks: each gets a DELETE revision. */
  function* unmatchedChunks(upload: Upload): Generator<number[]> {
    if (upload.current === null) return;
    let chunk: number[] = [];
    for (const id of upload.current.unmatched()) {
      chunk.push(id);
      if (chunk.length === batchExamples) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length > 0) yield chunk;
  }

  const resultOf = (upload: Upload): UploadResult => ({
    dataset: upload.dataset,
    version: upload.version,
    created: upload.created,
    updated: upload.updated,
    deleted: upload.deleted,
  });

  /**
   * The examples as they arrive: batches of 250 rows (fewer when
   * large), each in its own transaction into a pending version, so that no transaction waits on
   * the network and memory does not grow with the file. Completed in one last transaction;
   * anything that fails deletes what the upload wrote.
   */
  const uploadStream = async (input: UploadInput, name: string, examples: UploadInput['examples']): Promise<UploadResult> => {
    const iterator = (examples as AsyncIterable<ExampleInput | ExampleText>)[Symbol.asyncIterator]();
    let upload: Upload | null = null;
    try {
      // The first row first: a file whose header names unknown columns fails before anything is written.
      let next = await iterator.next();
      await cleanUpAbandoned();
      const stamp = now();
      const started = await withNameRetry(input.action, name, () => withTransaction((trx) => open(trx.datasets, input, name, stamp, true)));
      upload = started;
      let lastWrite = Date.now();
      const stopped = () =>
        new ConflictError(
          `the upload to dataset ${JSON.stringify(name)} was stopped: it wrote nothing for ${idleTimeoutMs / 1000} s, or the dataset was deleted`,
        );
      /** In every write: the version is still this upload's (not given up as idle, not deleted with its dataset). */
      const keepAlive = async (repository: DatasetsRepository) => {
        if (!(await repository.keepVersionAlive(started.version.id, now(), idleCutoff()))) throw stopped();
        lastWrite = Date.now();
      };
      await loadCurrent(datasets, started, async () => {
        if (Date.now() - lastWrite >= flushIntervalMs) await keepAlive(datasets);
      });
      let batch: Prepared[] = [];
      let bytes = 0;
      const flush = async () => {
        const rows = batch;
        batch = [];
        bytes = 0;
        // Rows already read (a spooled JSON body, a file's buffered chunk) arrive without waiting,
        // and a SQLite transaction resolves at once: the event loop takes other requests between batches.
        await setImmediate();
        await withTransaction(async (trx) => {
          await keepAlive(trx.datasets);
          await writeBatch(trx.datasets, started, rows, now());
        });
      };
      for (; !next.done; next = await iterator.next()) {
        const row = prepare(next.value);
        batch.push(row);
        bytes += row.input.length + row.output.length + row.metadata.length;
        if (batch.length >= batchExamples || bytes >= batchBytes || Date.now() - lastWrite >= flushIntervalMs) await flush();
      }
      if (batch.length > 0) await flush();
      for (const chunk of unmatchedChunks(started)) {
        await setImmediate();
        await withTransaction(async (trx) => {
          await keepAlive(trx.datasets);
          await trx.datasets.insertDeleteRevisions(started.version.id, started.baseVersionId!, chunk, now());
        });
        started.deleted += chunk.length;
      }
      await withTransaction(async (trx) => {
        const stamp = now();
        // Created examples include those an update brought back (deleted at the base version).
        const count = started.baseCount + started.created - started.deleted;
        if (!(await trx.datasets.completeVersion(started.version.id, stamp, idleCutoff(), count))) throw stopped();
        await trx.datasets.touch(started.dataset.id, stamp);
      });
      if (started.created + started.deleted >= REFRESH_STATISTICS_AFTER) {
        // The upload is stored: statistics that fail to refresh are autovacuum's to take later.
        await datasets.refreshExampleStatistics().catch(() => undefined);
      }
      return resultOf(started);
    } catch (error) {
      // Stops the parser of a file that is still arriving; the error it may throw on the way is not the one to report.
      await iterator.return?.().catch(() => undefined);
      if (upload !== null) {
        const version = { id: upload.version.id, datasetId: upload.dataset.id };
        try {
          await datasets.giveUpVersion(version.id, null);
          await deletePending(version);
        } catch (cleanupError) {
          // Left pending, invisible: the next upload or start-up deletes it (cleanUpAbandoned).
          options.onCleanupError?.(cleanupError);
        }
      }
      throw error;
    }
  };

  return {
    /**
     * Creates, appends to, or updates a dataset from the examples sent, as one new version.
     * create: 409 when the name is taken; append and update: an unknown name is created. 409 while
     * another upload to the dataset is being written. Stores nothing when it fails.
     */
    async upload(input: UploadInput): Promise<UploadResult> {
      const name = input.name.trim();
      if (name === '') throw new InvalidInputError('name must not be blank');
      if (name.length > MAX_NAME_LENGTH) throw new InvalidInputError(`name must be at most ${MAX_NAME_LENGTH} characters`);
      return uploadStream(input, name, input.examples);
    },

    /** Deletes the versions of uploads that died (no write for the idle timeout) with their rows; returns how many. */
    cleanUpAbandoned,

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

    /**
     * The examples as they read at a version (default the latest), exactly as that version held
     * them, in example order from `fromId`, page by page (a few thousand rows a query, so that
     * no read holds the database or the memory long); at most `limit` rows when given; with
     * `splits` (ids or names), only the examples in one of them. The dataset, version and splits
     * are checked before the first page is read (404, 422).
     */
    async examplePages(
      identifier: Identifier,
      version: Identifier | undefined,
      query: { fromId?: number | undefined; limit?: number | undefined; splits?: Identifier[] | undefined } = {},
    ): Promise<{
      dataset: DatasetRecord;
      version: DatasetVersionRecord;
      /** The names of the splits filtered by, when `splits` was given. */
      splitNames: string[] | undefined;
      pages: AsyncGenerator<StoredExampleText[]>;
    }> {
      const dataset = await requireDataset(identifier);
      if (version !== undefined && version.rowId === null)
        throw new InvalidInputError(`version_id ${JSON.stringify(version.text)} is not a dataset version id`);
      const chosen = await versionOf(dataset, version?.rowId ?? undefined);
      const filter = query.splits === undefined || query.splits.length === 0 ? undefined : await resolveSplitFilter(splits, query.splits);
      async function* pages(): AsyncGenerator<StoredExampleText[]> {
        let afterId = (query.fromId ?? 1) - 1;
        for (let left = query.limit ?? Number.POSITIVE_INFINITY; left > 0; ) {
          const size = Math.min(READ_PAGE, left);
          // A query that resolves at once (SQLite) continues in the same turn of the event loop:
          // without this, a reader that keeps pulling would run page after page in one turn.
          await setImmediate();
          const page = await datasets.exampleTextsAt(dataset.id, chosen.id, afterId, size, filter?.ids);
          if (page.length > 0) yield page;
          if (page.length < size) return;
          left -= page.length;
          afterId = page[page.length - 1]!.id;
        }
      }
      return { dataset, version: chosen, splitNames: filter?.names, pages: pages() };
    },

    /**
     * Deletes one example of the latest version (named by its node id or the caller's example id)
     * as a new version holding the others: a DELETE revision, so older versions still hold it and
     * experiments run on them keep their examples (docs/datasets.md, "Deleting an example").
     * One short transaction; 404 for an example the latest version does not hold, 409 while an
     * upload to the dataset is being written.
     */
    async deleteExample(identifier: Identifier, example: Identifier): Promise<{ dataset: DatasetRecord; version: DatasetVersionRecord }> {
      const dataset = await requireDataset(identifier);
      // A dead upload's pending version would hold the one pending slot a dataset has.
      await cleanUpAbandoned();
      const notFound = () =>
        new NotFoundError(`example ${JSON.stringify(example.text)} not found in dataset ${JSON.stringify(dataset.name)}`);
      try {
        return await withTransaction(async (trx) => {
          const repository = trx.datasets;
          if (await repository.pendingVersion(dataset.id)) throw inProgress(dataset.name);
          const latest = await repository.latestVersion(dataset.id);
          if (!latest) throw notFound();
          const exampleId = example.rowId ?? (await repository.examplesWithExternalIds(dataset.id, [example.text]))[0]?.id;
          if (exampleId === undefined || (await repository.examplesAt(dataset.id, latest.id, [exampleId])).length === 0) throw notFound();
          const stamp = now();
          // Written pending and completed in the same transaction: readers only ever see it complete.
          const version = await repository.insertVersion({ datasetId: dataset.id, description: null, metadata: {} }, stamp, {
            pending: true,
          });
          await repository.insertDeleteRevisions(version.id, latest.id, [exampleId], stamp);
          const exampleCount = latest.exampleCount - 1;
          if (!(await repository.completeVersion(version.id, stamp, idleCutoff(), exampleCount))) throw inProgress(dataset.name);
          await repository.touch(dataset.id, stamp);
          return { dataset, version: { ...version, exampleCount } };
        });
      } catch (error) {
        // An upload that started between the check and the insert took the dataset's pending slot first.
        if (isUniqueViolation(error)) throw inProgress(dataset.name);
        throw error;
      }
    },

    /**
     * Deletes the dataset with all its versions, examples and experiments: gone for readers at
     * once, its rows removed in short batches by the dataset-deletions job (docs/datasets.md,
     * "Deleting"). 409 while an upload to it is being written.
     */
    async delete(identifier: Identifier): Promise<void> {
      const dataset = await requireDataset(identifier);
      const pending: PendingVersion | undefined = await datasets.pendingVersion(dataset.id);
      if (pending && pending.lastWriteAt >= idleCutoff()) throw inProgress(dataset.name);
      if (!(await datasets.markDeleted(dataset.id, now()))) throw new NotFoundError(`dataset ${JSON.stringify(identifier.text)} not found`);
      options.onDeleted?.();
    },
  };
}
