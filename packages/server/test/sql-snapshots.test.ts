/**
 * The SQL every repository method runs, checked in as packages/server/src/db/sql/<dialect>.snap.sql
 * so that a query change shows in review (docs/architecture.md, "Where SQL lives"). The runner
 * (@sightline/common/testing) drives each method once on a real, migrated database of each
 * dialect, captures the statements through Kysely's log hook, and compares them with the file;
 * `SIGHTLINE_UPDATE_SQL_SNAPSHOTS=1 node scripts/run-tests.mjs packages/server/test/sql-snapshots.test.ts`
 * rewrites the files.
 */
import path from 'node:path';
import { describeSqlSnapshots, type SqlScenario } from '@sightline/common/testing';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { attachSearchIndex } from '../src/db/search-index/search-index-file.js';
import { createRepositories, type Repositories } from '../src/db/repositories/index.js';
import { createStatementRunner } from '../src/db/statement-runner.js';
import type { DB } from '../src/db/schema.js';
import type { SpanCondition } from '../src/db/repositories/span-condition-sql.js';

const NOW = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-02T00:00:00.000Z';

/** Every filter of an annotation list at once. */
const annotationQuery = {
  projectId: 1,
  targets: ['ab'],
  identifiers: ['i'],
  includeNames: ['n'],
  excludeNames: ['x'],
  fromId: 5,
  limit: 10,
};

/** Every condition of a filtered annotation delete at once. */
const annotationDeleteFilter = {
  projectId: 1,
  name: 'n',
  identifier: 'i',
  annotatorKind: 'HUMAN' as const,
  createdFrom: NOW,
  createdBefore: LATER,
  userId: 1,
};

const annotationFields = {
  name: 'n',
  annotatorKind: 'HUMAN' as const,
  label: 'l',
  score: 1,
  explanation: 'e',
  metadata: { a: 1 },
  identifier: 'i',
  source: 'API' as const,
  userId: null,
};

/** An annotation queue item for the target lookups. */
const queueItem = {
  id: 1,
  queueId: 1,
  kind: 'trace' as const,
  targetRowid: 1,
  traceRowid: 1,
  projectId: 1,
  source: 'manual' as const,
  status: 'pending' as const,
  lockedBy: null,
  lockedUntil: null,
  completedBy: null,
  completedAt: null,
  note: null,
  createdAt: NOW,
};

/** Each repository method with sample arguments, in an order that leaves rows for the next ones; `sqliteOnly` are no-ops on PostgreSQL. */
/** A span condition for the window metrics' filtered statements: `name == 'x'`. */
const NAME_IS_X: SpanCondition = { kind: 'compare', field: { kind: 'column', column: 'name' }, op: '==', value: 'x' };

function scenario(r: Repositories, dialect: string, db: Kysely<DB>): SqlScenario {
  // Compiled statements run as the job runs them on PostgreSQL: in a transaction of their own.
  const run = createStatementRunner(db, undefined);
  const postgresOnly: SqlScenario = [
    ['jobLeases.withLease', () => r.jobLeases.withLease('snapshot', async () => 1)],
    ['datasets.refreshExampleStatistics', () => r.datasets.refreshExampleStatistics()],
    ['searchVectors.queued', () => r.searchVectors.queued()],
    ['searchVectors.indexQueued', () => r.searchVectors.indexQueued(10, async (spans) => spans.map(() => null))],
    ['searchVectors.lastAnalyzed', () => r.searchVectors.lastAnalyzed()],
    ['searchVectors.analyze', () => r.searchVectors.analyze()],
  ];
  const sqliteOnly: SqlScenario = [
    ['retention.incrementalVacuumEnabled', () => r.retention.incrementalVacuumEnabled()],
    ['retention.freePages', () => r.retention.freePages()],
    ['retention.incrementalVacuum', () => r.retention.incrementalVacuum(10)],
  ];
  return [
    ['health.ping', () => r.health.ping()],
    ['users.isEmpty', () => r.users.isEmpty()],
    [
      'users.insert',
      () =>
        r.users.insert(
          { email: 'a@example.com', username: 'a', role: 'admin', authMethod: 'LOCAL', passwordHash: 'h', passwordSalt: 's' },
          NOW,
        ),
    ],
    ['users.findActiveById', () => r.users.findActiveById(1)],
    ['users.findByEmail', () => r.users.findByEmail('a@example.com')],
    ['users.findByUsername', () => r.users.findByUsername('a')],
    ['users.findByOauth2Identity', () => r.users.findByOauth2Identity('idp', 'sub')],
    ['users.findByLdapUniqueId', () => r.users.findByLdapUniqueId('uuid')],
    ['users.listActive', () => r.users.listActive(10, 5)],
    ['users.lockActiveAdmins', () => r.users.lockActiveAdmins()],
    ['users.countActiveAdmins', () => r.users.countActiveAdmins()],
    ['users.update', () => r.users.update(1, { username: 'b', passwordNeedsReset: false }, NOW)],
    ['users.linkOauth2Identity', () => r.users.linkOauth2Identity(1, 'idp', 'sub', NOW)],
    ['users.syncLdapUser', () => r.users.syncLdapUser(1, { email: 'c@example.com', role: 'member', ldapUniqueId: 'uuid' }, NOW)],
    [
      'apiKeys.insert',
      () => r.apiKeys.insert({ kind: 'user', userId: 1, createdBy: 1, name: 'k', description: null, keyHash: 'kh', expiresAt: null }, NOW),
    ],
    ['apiKeys.findByHash', () => r.apiKeys.findByHash('kh')],
    ['apiKeys.findById', () => r.apiKeys.findById(1)],
    ['apiKeys.listSystem', () => r.apiKeys.listSystem()],
    ['apiKeys.listForUser', () => r.apiKeys.listForUser(1)],
    ['apiKeys.listUserKeys', () => r.apiKeys.listUserKeys(10, 5)],
    ['apiKeys.countAll', () => r.apiKeys.countAll()],
    ['apiKeys.touch', () => r.apiKeys.touch(1, NOW)],
    ['loginSessions.createSession', () => r.loginSessions.createSession('s1', 1, NOW, LATER)],
    ['loginSessions.insertToken', () => r.loginSessions.insertToken('j1', 's1', 'refresh', NOW, LATER)],
    ['loginSessions.findToken', () => r.loginSessions.findToken('j1')],
    ['loginSessions.markUsed', () => r.loginSessions.markUsed('j1', NOW)],
    ['loginSessions.revokeSession', () => r.loginSessions.revokeSession('s1', NOW)],
    ['loginSessions.revokeUserSessions', () => r.loginSessions.revokeUserSessions(1, NOW)],
    [
      'loginFailures.recordAttempt',
      () => r.loginFailures.recordAttempt('a@example.com', { now: NOW, windowStart: NOW, lockUntil: LATER, lockAt: 5 }),
    ],
    ['loginFailures.clear', () => r.loginFailures.clear('a@example.com')],
    ['rateLimits.hit', () => r.rateLimits.hit('POST /auth/login 127.0.0.1', 1_000, 60_000)],
    ['rateLimits.deleteStartedBefore', () => r.rateLimits.deleteStartedBefore(500)],
    ['passwordResets.replace', () => r.passwordResets.replace(1, 'th', NOW, LATER)],
    ['passwordResets.find', () => r.passwordResets.find('th')],
    ['passwordResets.markUsed', () => r.passwordResets.markUsed('th', NOW)],
    ['projects.insert', () => r.projects.insert('p', null, NOW)],
    ['projects.findById', () => r.projects.findById(1)],
    ['projects.findByName', () => r.projects.findByName('p')],
    ['projects.list', () => r.projects.list({ limit: 10, fromId: 5, nameContains: 'p' })],
    ['projects.list (without experiment projects)', () => r.projects.list({ limit: 10, excludeExperimentProjects: true })],
    ['projects.updateDescription', () => r.projects.updateDescription(1, 'd', NOW)],
    [
      'traces.list',
      () =>
        r.traces.list({ projectId: 1, startTime: 1n, endTime: 2n, sort: 'start_time', order: 'desc', from: { key: 3n, id: 4 }, limit: 10 }),
    ],
    ['traces.list (of a user)', () => r.traces.list({ projectId: 1, userId: 'u1', sort: 'start_time', order: 'desc', limit: 10 })],
    ['traces.list (latency)', () => r.traces.list({ projectId: 1, sort: 'latency_ms', order: 'asc', limit: 10 })],
    [
      'traces.list (full-text search and a condition)',
      () =>
        r.traces.list({
          projectId: 1,
          search: { phrases: [{ words: ['refund'], prefix: false }] },
          condition: { kind: 'compare', field: { kind: 'column', column: 'span_kind' }, op: '==', value: 'LLM' },
          sort: 'start_time',
          order: 'desc',
          limit: 10,
        }),
    ],
    ['traces.findById', () => r.traces.findById(1)],
    ['traces.stats', () => r.traces.stats([1, 2])],
    ['traces.tokenTotalsByTraceId', () => r.traces.tokenTotalsByTraceId(['ab', 'cd'])],
    [
      'spans.list',
      () =>
        r.spans.list(
          {
            projectId: 1,
            traceIds: ['ab'],
            spanIds: ['cd'],
            parentId: null,
            names: ['n'],
            spanKinds: ['LLM'],
            statusCodes: ['ERROR'],
            startTime: 1n,
            endTime: 2n,
            attributes: [{ key: 'user.id', candidates: ['u', 1, true] }],
          },
          { limit: 10, order: 'desc', from: { key: 3n, id: 4 } },
        ),
    ],
    [
      'spans.list (full-text search: a phrase and a prefix, and a condition)',
      () =>
        r.spans.list(
          {
            projectId: 1,
            search: {
              phrases: [
                { words: ['退', '款'], prefix: false },
                { words: ['ref'], prefix: true },
              ],
            },
            condition: { kind: 'compare', field: { kind: 'column', column: 'latency_ms' }, op: '>', value: 5 },
          },
          { limit: 10, order: 'desc' },
        ),
    ],
    [
      'spans.list (one kind: on SQLite by start second, db/start-seconds.ts)',
      () => r.spans.list({ projectId: 1, spanKinds: ['LLM'] }, { limit: 10, order: 'desc', from: { key: 3n, id: 4 } }),
    ],
    [
      'spans.list (two names in a time range: a scan per name on SQLite)',
      () => r.spans.list({ projectId: 1, names: ['a', 'b'], startTime: 1n, endTime: 2n }, { limit: 10, order: 'asc' }),
    ],
    [
      'spans.query (every condition form, orphans as roots)',
      () =>
        r.spans.query(
          {
            projectId: 1,
            startTime: 1n,
            endTime: 2n,
            roots: 'orphans',
            condition: {
              kind: 'or',
              items: [
                {
                  kind: 'and',
                  items: [
                    { kind: 'compare', field: { kind: 'column', column: 'span_kind' }, op: '==', value: 'LLM' },
                    { kind: 'compare', field: { kind: 'column', column: 'latency_ms' }, op: '>', value: 1000 },
                    { kind: 'contains', field: { kind: 'column', column: 'status_message' }, needle: 'error' },
                    { kind: 'in', field: { kind: 'column', column: 'trace_id' }, values: ['ab'] },
                    { kind: 'not', item: { kind: 'missing', field: { kind: 'column', column: 'parent_id' } } },
                  ],
                },
                {
                  kind: 'and',
                  items: [
                    { kind: 'compare', field: { kind: 'attribute', key: 'llm.model_name' }, op: '==', value: 'gpt-4o' },
                    { kind: 'compare', field: { kind: 'attribute', key: 'm.s' }, op: '!=', value: 'x' },
                    { kind: 'compare', field: { kind: 'attribute', key: 'llm.token_count.total' }, op: '>=', value: 100 },
                    { kind: 'compare', field: { kind: 'attribute', key: 'llm.provider' }, op: '<', value: 'b' },
                    { kind: 'in', field: { kind: 'attribute', key: 'm.b' }, values: [true, 1] },
                    { kind: 'contains', field: { kind: 'attribute', key: 'llm.system' }, needle: 'ai' },
                    { kind: 'missing', field: { kind: 'attribute', key: 'user.id' } },
                    { kind: 'annotation', name: 'q', label: 'good', score: { op: '>', value: 0.5 }, present: 'score' },
                    { kind: 'annotation', name: 'q', labelNotIn: ['bad'] },
                  ],
                },
              ],
            },
          },
          10,
          1000,
        ),
    ],
    ['spans.query (root spans without a parent id)', () => r.spans.query({ projectId: 1, roots: 'no-parent' }, 10, 1000)],
    ['spans.findById', () => r.spans.findById(1)],
    ['spans.findByIds', () => r.spans.findByIds([1, 2])],
    ['spans.findBySpanId', () => r.spans.findBySpanId('cd')],
    ['spans.listOfTrace', () => r.spans.listOfTrace(1, 10)],
    ['savedViews.upsert', () => r.savedViews.upsert({ projectId: 1, userId: null, name: 'v', page: 'traces', query: 'q=a' }, NOW)],
    ['savedViews.list', () => r.savedViews.list(1, { limit: 10, fromId: 5 })],
    ['savedViews.delete', () => r.savedViews.delete(1, 2)],
    ['spans.recentAttributeKeys', () => r.spans.recentAttributeKeys(1, 2000, 500)],
    ['spans.summariesOfTraces', () => r.spans.summariesOfTraces([1, 2], { rootsOnly: true })],
    ['spans.rowidsBySpanId', () => r.spans.rowidsBySpanId(['cd'])],
    ['spans.anyInProject', () => r.spans.anyInProject(1, ['cd'])],
    ['spans.anyInTrace', () => r.spans.anyInTrace(1)],
    ['traces.findByTraceId', () => r.traces.findByTraceId('ab')],
    ['traces.list (sessions)', () => r.traces.list({ projectId: 1, sessionRowids: [1, 2], sort: 'start_time', order: 'desc', limit: 10 })],
    ['sessions.list', () => r.sessions.list({ projectId: 1, order: 'asc', sort: 'id', fromId: 5, limit: 10 })],
    ['sessions.list (desc)', () => r.sessions.list({ projectId: 1, order: 'desc', sort: 'id', limit: 10 })],
    ['sessions.list (by start)', () => r.sessions.list({ projectId: 1, order: 'desc', sort: 'start_time', fromId: 1, limit: 10 })],
    ['sessions.list (of a user)', () => r.sessions.list({ projectId: 1, order: 'desc', sort: 'id', userId: 'u1', limit: 10 })],
    ['sessions.list (by last activity)', () => r.sessions.list({ projectId: 1, order: 'desc', sort: 'end_time', fromId: 1, limit: 10 })],
    ['sessions.findById', () => r.sessions.findById(1)],
    ['sessions.anyInProject', () => r.sessions.anyInProject(1, ['s'])],
    ['traces.rowidsByTraceId', () => r.traces.rowidsByTraceId(['ab'])],
    ['traces.anyInProject', () => r.traces.anyInProject(1, ['ab'])],
    // No trace, session or span exists here: the foreign key refuses each upsert, but its statement is still recorded.
    ['annotations.upsert (span)', () => r.annotations.upsert({ kind: 'span', rowid: 1 }, annotationFields, NOW).catch(() => undefined)],
    ['annotations.upsert (trace)', () => r.annotations.upsert({ kind: 'trace', rowid: 1 }, annotationFields, NOW).catch(() => undefined)],
    [
      'annotations.upsert (session)',
      () => r.annotations.upsert({ kind: 'session', rowid: 1 }, annotationFields, NOW).catch(() => undefined),
    ],
    [
      'annotations.upsert (document)',
      () => r.annotations.upsert({ kind: 'document', rowid: 1, position: 2 }, annotationFields, NOW).catch(() => undefined),
    ],
    ['annotations.list (trace)', () => r.annotations.list('trace', annotationQuery)],
    ['annotations.list (session)', () => r.annotations.list('session', annotationQuery)],
    ['annotations.listDocuments', () => r.annotations.listDocuments(1)],
    ['annotations.labelCounts', () => r.annotations.labelCounts(1, 1n, 2n)],
    [
      'traces.list (annotation filters)',
      () =>
        r.traces.list({
          projectId: 1,
          annotations: [
            { name: 'n', label: 'l' },
            { name: 's', score: { op: '>=', value: 0.5 } },
          ],
          sort: 'start_time',
          order: 'desc',
          limit: 10,
        }),
    ],
    [
      'spans.list (annotation filters)',
      () =>
        r.spans.list(
          { projectId: 1, annotations: [{ name: 'n' }, { name: 'n', label: 'l' }, { name: 's', score: { op: '<', value: 1 } }] },
          { limit: 10, order: 'desc' },
        ),
    ],
    [
      'annotationConfigs.insert',
      () =>
        r.annotationConfigs.insert(
          {
            name: 'c',
            type: 'CATEGORICAL',
            description: null,
            optimizationDirection: 'MAXIMIZE',
            values: [{ label: 'good', score: 1 }],
            lowerBound: null,
            upperBound: null,
            threshold: null,
          },
          NOW,
        ),
    ],
    ['annotationConfigs.findById', () => r.annotationConfigs.findById(1)],
    ['annotationConfigs.findByName', () => r.annotationConfigs.findByName('c')],
    ['annotationConfigs.findByNames', () => r.annotationConfigs.findByNames(['c', 'd'])],
    ['annotationConfigs.existingIds', () => r.annotationConfigs.existingIds([1, 2])],
    [
      'annotationConfigs.update',
      () =>
        r.annotationConfigs.update(
          1,
          {
            name: 'c',
            type: 'CONTINUOUS',
            description: 'd',
            optimizationDirection: 'MAXIMIZE',
            values: [],
            lowerBound: 0,
            upperBound: 1,
            threshold: null,
          },
          LATER,
        ),
    ],
    ['annotationConfigs.assign', () => r.annotationConfigs.assign(1, [1])],
    ['annotationConfigs.assignedIds', () => r.annotationConfigs.assignedIds(1)],
    ['annotationConfigs.list', () => r.annotationConfigs.list({ fromId: 5, limit: 10 })],
    ['annotationConfigs.list (project)', () => r.annotationConfigs.list({ projectId: 1, limit: 10 })],
    ['annotationConfigs.unassign', () => r.annotationConfigs.unassign(1, [1])],
    ['annotationConfigs.delete', () => r.annotationConfigs.delete(1)],
    ['sessions.findBySessionId', () => r.sessions.findBySessionId('s', { limit: 2 })],
    ['sessions.findBySessionId (project)', () => r.sessions.findBySessionId('s', { projectId: 1, limit: 2 })],
    ['sessions.traces', () => r.sessions.traces([1, 2])],
    ['sessions.tokens', () => r.sessions.tokens([1, 2])],
    ['sessions.rootIo', () => r.sessions.rootIo([1, 2])],
    [
      'annotations.list (span)',
      () =>
        r.annotations.list('span', {
          projectId: 1,
          targets: ['cd'],
          identifiers: ['i'],
          includeNames: ['n'],
          excludeNames: ['x'],
          fromId: 5,
          limit: 10,
        }),
    ],
    ['projectMetrics.byKind', () => r.projectMetrics.byKind({ projectId: 1, startTime: 1n, endTime: 2n })],
    ['projectMetrics.byModel', () => r.projectMetrics.byModel({ projectId: 1 })],
    [
      'projectMetrics.byModel (a time range: on SQLite by start second)',
      () => r.projectMetrics.byModel({ projectId: 1, startTime: 1n, endTime: 2n }),
    ],
    ['projectMetrics.byBucket', () => r.projectMetrics.byBucket({ projectId: 1 }, { origin: 0n, width: 60_000_000_000n })],
    ['projectMetrics.traceCounts', () => r.projectMetrics.traceCounts({ projectId: 1 }, { origin: 0n, width: 60_000_000_000n })],
    ['projectMetrics.rootLatency', () => r.projectMetrics.rootLatency({ projectId: 1 })],
    ['prompts.ensurePrompt', () => r.prompts.ensurePrompt({ name: 'p', description: null, metadata: { a: 1 } }, NOW)],
    ['prompts.findPromptById', () => r.prompts.findPromptById(1)],
    ['prompts.findPromptByName', () => r.prompts.findPromptByName('p')],
    ['prompts.listPrompts', () => r.prompts.listPrompts({ limit: 10, fromId: 5 })],
    [
      'prompts.insertVersion',
      () =>
        r.prompts.insertVersion(
          1,
          {
            description: null,
            templateType: 'CHAT',
            templateFormat: 'MUSTACHE',
            template: { type: 'chat', messages: [{ role: 'user', content: 'hi' }] },
            invocationParameters: { type: 'openai', openai: {} },
            modelProvider: 'OPENAI',
            modelName: 'm',
            tools: null,
            responseFormat: null,
            userId: 1,
          },
          NOW,
        ),
    ],
    ['prompts.listVersions', () => r.prompts.listVersions(1, { limit: 10, fromId: 5 })],
    ['prompts.findVersion', () => r.prompts.findVersion(1)],
    ['prompts.latestVersion', () => r.prompts.latestVersion(1)],
    ['prompts.setTag', () => r.prompts.setTag({ promptId: 1, versionId: 1, name: 't', description: null, userId: 1, now: NOW })],
    ['prompts.versionByTag', () => r.prompts.versionByTag(1, 't')],
    ['prompts.listTags', () => r.prompts.listTags(1, { limit: 10, fromId: 5 })],
    ['prompts.deleteTag', () => r.prompts.deleteTag(1, 't')],
    ['prompts.updatePrompt', () => r.prompts.updatePrompt(1, { description: 'd', metadata: { b: 2 } }, LATER)],
    ['prompts.deletePrompt', () => r.prompts.deletePrompt(1)],
    ['datasets.insertDataset', () => r.datasets.insertDataset({ name: 'd', description: null, metadata: {} }, NOW)],
    ['datasets.findByNameForUpload', () => r.datasets.findByNameForUpload('d')],
    ['datasets.insertVersion', () => r.datasets.insertVersion({ datasetId: 1, description: null, metadata: {} }, NOW, { pending: true })],
    ['datasets.pendingVersion', () => r.datasets.pendingVersion(1)],
    ['datasets.keepVersionAlive', () => r.datasets.keepVersionAlive(1, LATER, NOW)],
    ['datasets.completeVersion', () => r.datasets.completeVersion(1, LATER, NOW, 1)],
    ['datasets.findById', () => r.datasets.findById(1)],
    ['datasets.findByName', () => r.datasets.findByName('d')],
    ['datasets.list', () => r.datasets.list({ limit: 10, fromId: 5, name: 'd' })],
    ['datasets.findVersion', () => r.datasets.findVersion(1, 1)],
    ['datasets.latestVersion', () => r.datasets.latestVersion(1)],
    ['datasets.listVersions', () => r.datasets.listVersions(1, { limit: 10, fromId: 5 })],
    ['datasets.maxExampleId', () => r.datasets.maxExampleId(1)],
    ['datasets.insertExamples', () => r.datasets.insertExamples(1, [{ externalId: 'e', sourceSpanId: null }], NOW)],
    [
      'datasets.insertRevisions',
      () => r.datasets.insertRevisions(1, [{ exampleId: 1, kind: 'CREATE', input: '{}', output: '{}', metadata: '{}' }], NOW),
    ],
    ['datasets.examplesWithExternalIds', () => r.datasets.examplesWithExternalIds(1, ['e', 'f'])],
    ['datasets.exampleTextsAt', () => r.datasets.exampleTextsAt(1, 1, 0, 100)],
    ['datasets.exampleIdsAt', () => r.datasets.exampleIdsAt(1, 1, 0, 100)],
    ['datasets.examplesAt (ids)', () => r.datasets.examplesAt(1, 1, [1, 2])],
    ['datasets.exampleCounts', () => r.datasets.exampleCounts([1])],
    [
      'datasets.insertVersion (a second one)',
      () => r.datasets.insertVersion({ datasetId: 1, description: null, metadata: {} }, NOW, { pending: true }),
    ],
    ['datasets.insertDeleteRevisions', () => r.datasets.insertDeleteRevisions(2, 1, [1], LATER)],
    ['datasets.abandonedVersions', () => r.datasets.abandonedVersions(LATER, 100)],
    ['datasets.giveUpVersion', () => r.datasets.giveUpVersion(2, LATER)],
    ['datasets.giveUpVersion (own)', () => r.datasets.giveUpVersion(2, null)],
    ['datasets.deleteExamplesCreatedBy', () => r.datasets.deleteExamplesCreatedBy(2, 1000)],
    ['datasets.deleteRevisionsOf', () => r.datasets.deleteRevisionsOf(2, 1000)],
    ['datasets.deletePendingVersion', () => r.datasets.deletePendingVersion(2)],
    ['datasets.deleteDatasetWithoutVersions', () => r.datasets.deleteDatasetWithoutVersions(1)],
    ['datasets.touch', () => r.datasets.touch(1, LATER)],
    ['datasetLabels.insert', () => r.datasetLabels.insert({ name: 'l', description: null, color: '#00cc88', userId: 1 }, NOW)],
    ['datasetLabels.findById', () => r.datasetLabels.findById(1)],
    ['datasetLabels.list', () => r.datasetLabels.list({ limit: 10, fromId: 5 })],
    ['datasetLabels.update', () => r.datasetLabels.update(1, { name: 'm', color: '#112233', description: 'd' }, LATER)],
    ['datasetLabels.existingIds', () => r.datasetLabels.existingIds([1, 2])],
    ['datasetLabels.apply', () => r.datasetLabels.apply(1, [1])],
    ['datasetLabels.listForDataset', () => r.datasetLabels.listForDataset(1, { limit: 10, fromId: 5 })],
    ['datasetLabels.keepOnly', () => r.datasetLabels.keepOnly(1, [1])],
    ['datasetLabels.keepOnly (none)', () => r.datasetLabels.keepOnly(1, [])],
    ['datasetLabels.remove', () => r.datasetLabels.remove(1, [1])],
    ['datasetLabels.delete', () => r.datasetLabels.delete(1)],
    [
      'datasetSplits.insert',
      () => r.datasetSplits.insert({ name: 's', description: null, color: '#33c5e8', metadata: {}, userId: 1 }, NOW),
    ],
    ['datasetSplits.findById', () => r.datasetSplits.findById(1)],
    ['datasetSplits.findByIdsOrNames', () => r.datasetSplits.findByIdsOrNames([1], ['s'])],
    ['datasetSplits.update', () => r.datasetSplits.update(1, { name: 't', description: 'd', color: '#000000', metadata: { a: 1 } }, LATER)],
    ['datasetSplits.examplesOfDataset', () => r.datasetSplits.examplesOfDataset(1, [1, 2])],
    ['datasetSplits.addExamples', () => r.datasetSplits.addExamples(1, [1])],
    ['datasetSplits.exampleCount', () => r.datasetSplits.exampleCount(1, 1)],
    ['datasets.exampleTextsAt (splits)', () => r.datasets.exampleTextsAt(1, 1, 0, 100, [1])],
    ['datasets.exampleIdsAt (splits)', () => r.datasets.exampleIdsAt(1, 1, 0, 100, [1])],
    ['datasetSplits.removeExamples', () => r.datasetSplits.removeExamples(1, [1])],
    ['datasetSplits.delete', () => r.datasetSplits.delete(1)],
    [
      'experiments.insert',
      () =>
        r.experiments.insert(
          {
            datasetId: 1,
            datasetVersionId: 1,
            name: 'e',
            description: null,
            metadata: {},
            repetitions: 2,
            projectName: 'p-e',
            userId: null,
          },
          NOW,
        ),
    ],
    ['experiments.insertExamples', () => r.experiments.insertExamples(1, [1])],
    ['experiments.findById', () => r.experiments.findById(1)],
    ['experiments.update', () => r.experiments.update(1, { name: 'e2', description: null, metadata: { a: 1 } }, LATER)],
    [
      'experimentTags.upsert',
      () => r.experimentTags.upsert({ experimentId: 1, datasetId: 1, name: 'baseline', description: null, userId: 1 }, NOW),
    ],
    ['experimentTags.listForExperiment', () => r.experimentTags.listForExperiment(1, { limit: 10, fromName: 'a' })],
    ['experimentTags.findInDataset', () => r.experimentTags.findInDataset(1, 1)],
    ['experimentTags.removeFromExperiment', () => r.experimentTags.removeFromExperiment(1, 1, 'baseline')],
    ['jobState.write', () => r.jobState.write('j', '1')],
    ['jobState.read', () => r.jobState.read('j')],
    [
      'evaluators.insert',
      () =>
        r.evaluators.insert({ name: 'exact', description: null, kind: 'CODE', definition: '{"type":"exact_match"}', userId: null }, NOW),
    ],
    ['evaluators.findById', () => r.evaluators.findById(1)],
    ['evaluators.findIdByName', () => r.evaluators.findIdByName('exact')],
    ['evaluators.list', () => r.evaluators.list({ limit: 10, fromName: 'a' })],
    ['evaluators.nameOf', () => r.evaluators.nameOf(1)],
    ['evaluators.update', () => r.evaluators.update(1, { name: 'exact2', description: 'd' }, LATER)],
    [
      'evaluators.addVersion',
      () => r.evaluators.addVersion(1, 1, { definition: '{"type":"json_valid"}', kind: 'CODE', userId: null }, LATER),
    ],
    ['evaluators.versions', () => r.evaluators.versions(1, { limit: 10, fromVersion: 2 })],
    ['evaluators.versionNumber', () => r.evaluators.versionNumber(1, 1)],
    ['evaluators.attach', () => r.evaluators.attach(1, 1, null, NOW)],
    ['evaluators.attachedTo', () => r.evaluators.attachedTo([1])],
    ['evaluators.runsAfter', () => r.evaluators.runsAfter(0, 10)],
    ['evaluators.findByIds', () => r.evaluators.findByIds([1])],
    [
      'onlineEval.insert',
      () =>
        r.onlineEval.insert(
          1,
          {
            name: 'rule',
            target: 'span',
            filter: '',
            samplingRate: 0.5,
            sessionIdleMinutes: null,
            rateLimitPerMinute: 10,
            dailyCostLimitUsd: 1,
            enabled: true,
            queueId: null,
            queueScoreBelow: null,
          },
          [1],
          '0',
          null,
          NOW,
        ),
    ],
    ['onlineEval.update', () => r.onlineEval.update(1, { name: 'rule2', samplingRate: 0.25 }, [1], LATER)],
    ['onlineEval.startBackfill', () => r.onlineEval.startBackfill(1, 1n, 2n, LATER)],
    ['onlineEval.rewindSessionCursor', () => r.onlineEval.rewindSessionCursor(1, '0:0', LATER)],
    ['onlineEval.findById', () => r.onlineEval.findById(1)],
    ['onlineEval.list', () => r.onlineEval.list(1, { limit: 10, fromId: 1 })],
    ['onlineEval.enabled', () => r.onlineEval.enabled()],
    ['onlineEval.maxSpanId', () => r.onlineEval.maxSpanId()],
    [
      'onlineEval.scanSpans',
      () =>
        r.onlineEval.scanSpans(
          1,
          0,
          10,
          [
            { condition: null, rootsOnly: false },
            { condition: null, rootsOnly: true },
          ],
          10,
        ),
    ],
    [
      'onlineEval.scanSpansByTime',
      () => r.onlineEval.scanSpansByTime(1, { startTime: 0n, id: 0 }, 10n, { condition: null, rootsOnly: true }, 10),
    ],
    ['onlineEval.scanIdleSessions', () => r.onlineEval.scanIdleSessions(1, 1, { endTime: 0n, id: 0 }, 10n, 10)],
    [
      'onlineEval.enqueueStatements',
      () =>
        run(
          r.onlineEval.enqueueStatements(
            [{ ruleId: 1, evaluatorId: 1, targetKind: 'span', targetRowid: 1, targetKey: 'ab', spanRowid: 1 }],
            { ruleId: 1, column: 'cursor', from: '0', to: '10' },
            NOW,
          ),
        ),
    ],
    ['onlineEval.due', () => r.onlineEval.due(1, NOW, 10)],
    [
      'onlineEval.outcomeStatements',
      () =>
        run(
          r.onlineEval.outcomeStatements(
            [
              {
                item: {
                  id: 1,
                  ruleId: 1,
                  evaluatorId: 1,
                  targetKind: 'span',
                  targetRowid: 1,
                  targetKey: 'ab',
                  spanRowid: 1,
                  status: 'pending',
                  attempts: 0,
                  nextAttemptAt: NOW,
                  error: null,
                  evaluatorVersion: null,
                  costUsd: null,
                  createdAt: NOW,
                  finishedAt: null,
                },
                outcome: {
                  status: 'done',
                  evaluatorVersion: 1,
                  costUsd: 0.001,
                  annotation: { target: { kind: 'span', rowid: 1 }, fields: annotationFields },
                },
              },
            ],
            NOW,
          ),
        ),
    ],
    ['onlineEval.finishedSince', () => r.onlineEval.finishedSince(1, NOW)],
    ['onlineEval.counts', () => r.onlineEval.counts(1)],
    ['onlineEval.totalCost', () => r.onlineEval.totalCost(1)],
    ['onlineEval.oldestPending', () => r.onlineEval.oldestPending(1)],
    ['onlineEval.recentLags', () => r.onlineEval.recentLags(1, 10)],
    ['onlineEval.items', () => r.onlineEval.items(1, 'failed', { limit: 10, fromId: 5 })],
    ['onlineEval.retryFailed', () => r.onlineEval.retryFailed(1, 10, NOW)],
    ['onlineEval.delete', () => r.onlineEval.delete(1)],
    [
      'scheduledExports.insert',
      () =>
        r.scheduledExports.insert(
          1,
          { name: 'export', target: 'span', filter: "span_kind == 'LLM'", format: 'parquet', intervalMinutes: 60, enabled: true },
          '0',
          NOW,
          null,
          NOW,
        ),
    ],
    ['scheduledExports.update', () => r.scheduledExports.update(1, { name: 'export2', enabled: false }, LATER, LATER)],
    ['scheduledExports.findById', () => r.scheduledExports.findById(1)],
    ['scheduledExports.list', () => r.scheduledExports.list(1, { limit: 10, fromId: 1 })],
    ['scheduledExports.due', () => r.scheduledExports.due(LATER, 10)],
    ['scheduledExports.maxSpanId', () => r.scheduledExports.maxSpanId()],
    [
      'scheduledExports.arrivedSpans (spans of a condition)',
      () =>
        r.scheduledExports.arrivedSpans(
          1,
          { afterId: 0, upToId: 10 },
          { condition: { kind: 'compare', field: { kind: 'column', column: 'span_kind' }, op: '==', value: 'LLM' }, rootsOnly: false },
          10,
        ),
    ],
    [
      'scheduledExports.arrivedSpans (roots of traces with a span of a condition)',
      () =>
        r.scheduledExports.arrivedSpans(
          1,
          { afterId: 0, upToId: 10 },
          { condition: { kind: 'compare', field: { kind: 'column', column: 'trace_id' }, op: '==', value: 'ab' }, rootsOnly: true },
          10,
        ),
    ],
    [
      'scheduledExports.finishRunStatements',
      () =>
        run(
          r.scheduledExports.finishRunStatements(
            {
              exportId: 1,
              startedAt: NOW,
              finishedAt: NOW,
              rowCount: 1,
              file: 'p/e/f.parquet',
              byteCount: 10,
              error: null,
              cursorFrom: '0',
              cursorTo: '10',
            },
            true,
            LATER,
          ),
        ),
    ],
    ['scheduledExports.runs', () => r.scheduledExports.runs(1, { limit: 10, fromId: 5 })],
    ['scheduledExports.delete', () => r.scheduledExports.delete(1)],
    [
      'spans.list (an export: a condition within a window)',
      () =>
        r.spans.list(
          {
            projectId: 1,
            condition: { kind: 'contains', field: { kind: 'attribute', key: 'user.id' }, needle: 'a' },
            through: { key: 5n, id: 6 },
          },
          { limit: 10, order: 'asc', from: { key: 3n, id: 4 } },
        ),
    ],
    ['spans.windowEnd', () => r.spans.windowEnd({ projectId: 1, startTime: 1n, endTime: 2n }, { key: 3n, id: 4 }, 5000)],
    [
      'traces.list (an export: traces with a span of a condition, within a window)',
      () =>
        r.traces.list({
          projectId: 1,
          condition: { kind: 'compare', field: { kind: 'column', column: 'name' }, op: '==', value: 'tool' },
          through: { key: 5n, id: 6 },
          sort: 'start_time',
          order: 'asc',
          from: { key: 3n, id: 4 },
          limit: 10,
        }),
    ],
    ['traces.windowEnd', () => r.traces.windowEnd({ projectId: 1 }, undefined, 5000)],
    ['traces.findByIds', () => r.traces.findByIds([1, 2])],
    ['traces.exportDetails', () => r.traces.exportDetails([1, 2])],
    [
      'alerts.insert',
      () =>
        r.alerts.insert(
          1,
          {
            name: 'alert',
            metric: 'error_rate',
            annotationName: null,
            annotationLabel: null,
            filter: '',
            comparator: '>',
            threshold: 0.5,
            windowSeconds: 600,
            channels: [{ type: 'email', to: ['a@example.com'] }],
            enabled: true,
            mutedUntil: null,
          },
          1,
          NOW,
        ),
    ],
    ['alerts.update', () => r.alerts.update(1, 1, { name: 'alert2', threshold: 0.25, mutedUntil: LATER }, LATER)],
    ['alerts.findById', () => r.alerts.findById(1)],
    ['alerts.list', () => r.alerts.list(1, { limit: 10, fromId: 1 })],
    ['alerts.enabled', () => r.alerts.enabled(0, 10)],
    [
      'alerts.checkStatements',
      () =>
        run([
          ...r.alerts.checkStatements({ id: 1, state: 'ok' }, 0.75, NOW, { to: 'firing', muted: false }),
          ...r.alerts.checkStatements({ id: 1, state: 'firing' }, 0.1, LATER, { to: 'ok', muted: false }),
        ]),
    ],
    ['alerts.deliveryStatements', () => run(r.alerts.deliveryStatements(1, LATER, 'webhook http://127.0.0.1: answered HTTP 500'))],
    ['alerts.history', () => r.alerts.history(1, { limit: 10, fromId: 5 })],
    ['alerts.delete', () => r.alerts.delete(1)],
    ['windowMetrics.spanTotals', () => r.windowMetrics.spanTotals({ projectId: 1, startTime: 0n, endTime: 10n, condition: NAME_IS_X })],
    [
      'windowMetrics.latencyPercentile',
      () => r.windowMetrics.latencyPercentile({ projectId: 1, startTime: 0n, endTime: 10n, condition: null }, 0.95),
    ],
    [
      'windowMetrics.cost',
      () =>
        Promise.all([null, NAME_IS_X].map((condition) => r.windowMetrics.cost({ projectId: 1, startTime: 0n, endTime: 10n, condition }))),
    ],
    [
      'windowMetrics.annotationTotals',
      () => r.windowMetrics.annotationTotals({ projectId: 1, startTime: 0n, endTime: 10n, condition: null }, 'quality', 'good'),
    ],
    ...(() => {
      const range = { projectIds: [1, 2], startMinute: 0, endMinute: 1440, bucketMinutes: 60 };
      const whole = { ...range, bucketMinutes: null };
      return [
        ['rollups.fromRollups', () => r.rollups.fromRollups(range, 'model', true)],
        ['rollups.fromRollups (no group)', () => r.rollups.fromRollups(whole, null, false)],
        ['rollups.fromSpans', () => r.rollups.fromSpans(range, { kind: 'attribute', key: 'metadata.tenant' }, NAME_IS_X, true)],
        ['rollups.fromSpans (session)', () => r.rollups.fromSpans(whole, { kind: 'session' }, null, false)],
        ['rollups.costsFromRollups', () => r.rollups.costsFromRollups(range, 'model')],
        ['rollups.spanCount', () => r.rollups.spanCount(1, 100, 200)],
        ['rollups.totals', () => r.rollups.totals(1, null, 200)],
        ['rollups.costs', () => r.rollups.costs(range, { kind: 'rollup', column: 'model' }, NAME_IS_X)],
        ['rollups.costs (user)', () => r.rollups.costs(whole, { kind: 'user' }, NAME_IS_X)],
        ['rollups.annotations', () => r.rollups.annotations(range, 'quality', 'good', { kind: 'annotation_label' }, null)],
      ] as [string, () => Promise<unknown>][];
    })(),
    ['dashboards.insert', () => r.dashboards.insert({ projectId: 1, userId: null, name: 'd', widgets: '[]' }, NOW)],
    ['dashboards.findById', () => r.dashboards.findById(1)],
    ['dashboards.findByName', () => r.dashboards.findByName(1, 'Overview')],
    ['dashboards.list', () => r.dashboards.list(1, { limit: 10, fromId: 5 })],
    ['dashboards.list (global)', () => r.dashboards.list(null, { limit: 10 })],
    ['dashboards.update', () => r.dashboards.update(1, { name: 'e', widgets: '[]' }, LATER)],
    ['dashboards.delete', () => r.dashboards.delete(1)],
    ['evaluators.detach', () => r.evaluators.detach(1, 1)],
    ['evaluators.delete', () => r.evaluators.delete(1)],
    ['annotationQueues.insert', () => r.annotationQueues.insert({ name: 'q', description: null, instructions: 'i', createdBy: 1 }, NOW)],
    ['annotationQueues.findById', () => r.annotationQueues.findById(1)],
    ['annotationQueues.findByName', () => r.annotationQueues.findByName('q')],
    ['annotationQueues.list', () => r.annotationQueues.list({ limit: 10, fromName: 'a' })],
    ['annotationQueues.update', () => r.annotationQueues.update(1, { name: 'q2', description: 'd', instructions: null }, LATER)],
    // Config 1 is deleted by now: the insert's foreign key fails; the statements are still recorded.
    ['annotationQueues.setConfigs', () => r.annotationQueues.setConfigs(1, [1]).catch(() => undefined)],
    ['annotationQueues.configIds', () => r.annotationQueues.configIds(1)],
    ['annotationQueues.setReviewers', () => r.annotationQueues.setReviewers(1, [1])],
    ['annotationQueues.reviewers', () => r.annotationQueues.reviewers(1)],
    ['annotationQueues.activeUserIds', () => r.annotationQueues.activeUserIds([1, 2])],
    ['annotationQueues.usernames', () => r.annotationQueues.usernames([1])],
    ['annotationQueues.targetsByRowid (span)', () => r.annotationQueues.targetsByRowid('span', [1])],
    ['annotationQueues.targetsByRowid (trace)', () => r.annotationQueues.targetsByRowid('trace', [1])],
    ['annotationQueues.targetsByRowid (session)', () => r.annotationQueues.targetsByRowid('session', [1])],
    ['annotationQueues.spansInProject', () => r.annotationQueues.spansInProject(2, ['cd'])],
    ['annotationQueues.tracesById', () => r.annotationQueues.tracesById(['ab'], 2)],
    ['annotationQueues.sessionsInProject', () => r.annotationQueues.sessionsInProject(1, ['s'])],
    ['annotationQueues.experimentExists', () => r.annotationQueues.experimentExists(1)],
    ['annotationQueues.experimentRunTraces', () => r.annotationQueues.experimentRunTraces(1, 0, 10)],
    [
      'annotationQueues.insertItems',
      () =>
        r.annotationQueues.insertItems(
          1,
          [
            { kind: 'span', targetRowid: 1, traceRowid: 1, projectId: 1 },
            { kind: 'session', targetRowid: 1, traceRowid: null, projectId: 1 },
          ],
          'manual',
          NOW,
        ),
    ],
    ['annotationQueues.counts', () => r.annotationQueues.counts([1])],
    ['annotationQueues.lockedCount', () => r.annotationQueues.lockedCount(1, NOW)],
    ['annotationQueues.listItems', () => r.annotationQueues.listItems(1, { limit: 10, fromId: 1, status: 'pending' })],
    ['annotationQueues.findItem', () => r.annotationQueues.findItem(1, 1)],
    ['annotationQueues.claim', () => r.annotationQueues.claim(1, 1, NOW, LATER)],
    ['annotationQueues.claim (after an item)', () => r.annotationQueues.claim(1, 1, NOW, LATER, 1)],
    ['annotationQueues.heldItem', () => r.annotationQueues.heldItem(1, 1, NOW)],
    ['annotationQueues.heldItem (auth off)', () => r.annotationQueues.heldItem(1, null, NOW)],
    ['annotationQueues.lock', () => r.annotationQueues.lock(1, 1, LATER)],
    ['annotationQueues.release', () => r.annotationQueues.release(1)],
    ['annotationQueues.complete', () => r.annotationQueues.complete(1, { status: 'done', by: 1, at: NOW, note: 'n' })],
    ['annotationQueues.completedBy', () => r.annotationQueues.completedBy(1, 1, { limit: 10, from: { completedAt: LATER, id: 5 } })],
    [
      'annotationQueues.targetKeys',
      () => r.annotationQueues.targetKeys([{ ...queueItem, kind: 'span' }, queueItem, { ...queueItem, kind: 'session' }]),
    ],
    ['annotationQueues.annotationsOf', () => r.annotationQueues.annotationsOf('span', [1], 'annotation-queue:1')],
    ['annotationQueues.deleteNote', () => r.annotationQueues.deleteNote('trace', 1, 'annotation-queue:1')],
    ['annotationQueues.deleteItems', () => r.annotationQueues.deleteItems(1, [1, 2])],
    ['annotationQueues.delete', () => r.annotationQueues.delete(1)],
    ['experiments.listForDataset', () => r.experiments.listForDataset(1, { limit: 10, fromId: 5 })],
    ['experiments.counts', () => r.experiments.counts([1])],
    ['experiments.hasExample', () => r.experiments.hasExample(1, 1)],
    [
      'experiments.upsertRun',
      () =>
        r.experiments.upsertRun(
          { experimentId: 1, exampleId: 1, repetitionNumber: 1, output: {}, startTime: NOW, endTime: NOW, traceId: null, error: null },
          NOW,
        ),
    ],
    ['experiments.findRun', () => r.experiments.findRun(1, 1, 1)],
    ['experiments.findRunById', () => r.experiments.findRunById(1)],
    ['experiments.listRuns', () => r.experiments.listRuns(1, { limit: 10, fromId: 1 })],
    [
      'experiments.upsertEvaluation',
      () =>
        r.experiments.upsertEvaluation(
          {
            runId: 1,
            name: 'q',
            annotatorKind: 'CODE',
            label: 'l',
            score: 1,
            explanation: null,
            metadata: {},
            traceId: null,
            error: null,
            startTime: NOW,
            endTime: NOW,
          },
          NOW,
        ),
    ],
    ['experiments.evaluationsOf', () => r.experiments.evaluationsOf([1])],
    ['experiments.summaries', () => r.experiments.summaries([1, 2])],
    ['experiments.exampleIds', () => r.experiments.exampleIds(1, { limit: 10, fromExampleId: 1 })],
    [
      'experiments.comparedExampleIds (regressed)',
      () => r.experiments.comparedExampleIds(1, [2, 3], { kind: 'regressed', name: 'correct' }, { limit: 10, fromExampleId: 1 }),
    ],
    ['experiments.comparedExampleIds (failed)', () => r.experiments.comparedExampleIds(1, [2], { kind: 'failed' }, { limit: 10 })],
    [
      'experiments.exampleIdsByDelta (regressed)',
      () => r.experiments.exampleIdsByDelta(1, [2, 3], 'correct', { kind: 'regressed', name: 'correct' }, { limit: 10, offset: 20 }),
    ],
    ['experiments.runsOn', () => r.experiments.runsOn([1, 2], [1, 2])],
    ['experiments.examplesWithSuccessfulRuns', () => r.experiments.examplesWithSuccessfulRuns(1, { limit: 10, fromExampleId: 1 })],
    ['experiments.runsMissingEvaluations', () => r.experiments.runsMissingEvaluations(1, ['q', 'r'], { limit: 10, fromRunId: 1 })],
    ['experiments.markDeleted', () => r.experiments.markDeleted(1, LATER)],
    ['experiments.deletedExperiments', () => r.experiments.deletedExperiments(1)],
    ['experiments.purgeRuns', () => r.experiments.purgeRuns(1, 1000)],
    ['experiments.purgeExampleSet', () => r.experiments.purgeExampleSet(1, 1000)],
    ['experiments.purgeExperiment', () => r.experiments.purgeExperiment(1)],
    ['datasets.markDeleted', () => r.datasets.markDeleted(1, LATER)],
    ['datasets.deletedDatasets', () => r.datasets.deletedDatasets(1)],
    ['datasets.purgeExamples', () => r.datasets.purgeExamples(1, 500)],
    ['datasets.purgeDataset', () => r.datasets.purgeDataset(1)],
    [
      'costs.syncBuiltIns',
      () =>
        r.costs.syncBuiltIns(
          [
            {
              name: 'm',
              provider: 'p',
              namePattern: '^m$',
              inputPerMillion: 1,
              outputPerMillion: 2,
              cacheReadPerMillion: null,
              cacheWritePerMillion: null,
            },
          ],
          NOW,
        ),
    ],
    ['costs.listModels', () => r.costs.listModels()],
    ['costs.findModel', () => r.costs.findModel(1)],
    [
      'costs.insertModel',
      () =>
        r.costs.insertModel(
          {
            name: 'o',
            provider: null,
            namePattern: '^o$',
            inputPerMillion: 1,
            outputPerMillion: 2,
            cacheReadPerMillion: 0.5,
            cacheWritePerMillion: null,
          },
          NOW,
        ),
    ],
    [
      'costs.updateModel',
      () =>
        r.costs.updateModel(
          2,
          {
            name: 'o',
            provider: null,
            namePattern: '^o',
            inputPerMillion: 1,
            outputPerMillion: 2,
            cacheReadPerMillion: null,
            cacheWritePerMillion: null,
          },
          LATER,
        ),
    ],
    ['costs.writeJobState', () => r.costs.writeJobState('w', '1')],
    ['costs.readJobState', () => r.costs.readJobState('w')],
    ['costs.maxSpanId', () => r.costs.maxSpanId()],
    ['costs.spansWithTokens', () => r.costs.spansWithTokens(0, 10)],
    [
      'costs.storeSpanCosts',
      () =>
        r.costs.storeSpanCosts(
          [
            {
              spanRowid: 1,
              traceRowid: 1,
              projectId: 1,
              modelId: 1,
              startTime: '1',
              promptCost: 0.1,
              completionCost: 0.2,
              totalCost: 0.3,
              rollupValues: { span_kind: 'LLM', name: 'n', model: 'm', status: 'OK' },
            },
          ],
          { name: 'w', value: '1' },
          { rollups: true },
        ),
    ],
    ['costs.traceTotals', () => r.costs.traceTotals([1])],
    ['costs.spanCosts', () => r.costs.spanCosts([1])],
    ['costs.spanCostsOfTrace', () => r.costs.spanCostsOfTrace(1, 10)],
    ['costs.sessionTotals', () => r.costs.sessionTotals([1])],
    ['costs.projectTotals', () => r.costs.projectTotals(1, { startTime: 1n, endTime: 2n })],
    ['costs.deleteModel', () => r.costs.deleteModel(2)],
    ['secrets.upsert', () => r.secrets.upsert({ key: 'K', ciphertext: 'c', nonce: 'n', updatedAt: NOW })],
    ['secrets.find', () => r.secrets.find('K')],
    ['secrets.listKeys', () => r.secrets.listKeys()],
    ['secrets.delete', () => r.secrets.delete('K')],
    ['retention.upsertPolicy', () => r.retention.upsertPolicy(1, { maxDays: 2, maxTraces: null }, NOW)],
    ['retention.findPolicy', () => r.retention.findPolicy(1)],
    ['retention.listActivePolicies', () => r.retention.listActivePolicies()],
    ['retention.nthNewestTrace', () => r.retention.nthNewestTrace(1, 10)],
    ['retention.oldestTracesBefore', () => r.retention.oldestTracesBefore(1, { startTime: 5n, id: 3 }, 100)],
    ['retention.deleteTraces', () => r.retention.deleteTraces([1, 2])],
    ['retention.deleteSessionsWithoutTraces', () => r.retention.deleteSessionsWithoutTraces([1, 2])],
    ['retention.recordRun', () => r.retention.recordRun(1, { at: LATER, traces: 3, spans: 6 })],
    ['retention.deleteRollupsBefore', () => r.retention.deleteRollupsBefore(1, 1000)],
    ['retention.writeLastRun', () => r.retention.writeLastRun('{}')],
    ['retention.readLastRun', () => r.retention.readLastRun()],
    [
      'spans.list (a long-value filter, finished on the merged attributes)',
      () =>
        r.spans.list(
          {
            projectId: 1,
            attributes: [
              { key: 'input.value', candidates: ['x'.repeat(65)] },
              { key: 'user.id', candidates: ['u'] },
            ],
          },
          { limit: 10, order: 'desc' },
        ),
    ],
    ['longAttributes.progress', () => r.longAttributes.progress()],
    ['longAttributes.unconverted', () => r.longAttributes.unconverted(0, 10, 5)],
    ['longAttributes.store', () => r.longAttributes.store([{ id: 1, attributes: '{}', longAttributes: Buffer.from([1, 3, 0]) }], 10)],
    [
      'spanLogEvents.insert',
      () =>
        r.spanLogEvents.insert(
          [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 'gen_ai.choice', time: '1', attributes: '{}' }],
          NOW,
        ),
    ],
    ['spanLogEvents.attachable', () => r.spanLogEvents.attachable(10)],
    [
      'spanLogEvents.attach',
      () =>
        r.spanLogEvents.attach(
          [{ spanRowid: 1, spanStartTime: '1', spanKind: 'LLM', attributes: '{}', longAttributes: null, events: '[]' }],
          [1],
          NOW,
        ),
    ],
    ...(dialect === 'sqlite' ? sqliteOnly : postgresOnly),
    ['apiKeys.delete', () => r.apiKeys.delete(1)],
    ['apiKeys.deleteForUser', () => r.apiKeys.deleteForUser(1)],
    ['users.markDeleted', () => r.users.markDeleted(1, NOW)],
    ['annotations.deleteMatching (span, every filter)', () => r.annotations.deleteMatching('span', annotationDeleteFilter, 1000)],
    ['annotations.deleteMatching (trace)', () => r.annotations.deleteMatching('trace', { projectId: 1, name: 'n' }, 1000)],
    ['annotations.deleteMatching (session)', () => r.annotations.deleteMatching('session', { projectId: 1 }, 1000)],
    ['traces.placesByIds', () => r.traces.placesByIds([1, 2])],
    ['traces.moveToProject', () => r.traces.moveToProject([1, 2], 1)],
    ['sessions.upsertWindow', () => r.sessions.upsertWindow(1, 'moved', '1', '2')],
    ['sessions.linkTraces', () => r.sessions.linkTraces([1, 2], 1)],
    ['sessions.deleteEmpty', () => r.sessions.deleteEmpty([1, 2])],
    ['spans.deleteById', () => r.spans.deleteById(1)],
    ['traces.deleteById', () => r.traces.deleteById(1)],
    ['sessions.deleteByIds', () => r.sessions.deleteByIds([1, 2])],
    ['projects.markDeleted', () => r.projects.markDeleted(1, NOW)],
    ['retention.deletedProjects', () => r.retention.deletedProjects()],
    ['retention.purgeProject', () => r.retention.purgeProject(1)],
  ];
}

/**
 * Span 'cd' of trace 'ab', so that lookups by span id run past the empty-table check
 * (db/span-ids.ts) and lookups by trace id past PostgreSQL's `trace_ids` (db/partitions.ts).
 */
async function storeSpanToLookUp(db: Kysely<DB>, dialect: string): Promise<void> {
  const project = await db
    .insertInto('projects')
    .values({ name: 'lookups', created_at: NOW, updated_at: NOW })
    .returning('id')
    .executeTakeFirstOrThrow();
  const trace = await db
    .insertInto('traces')
    .values({ project_id: project.id, trace_id: 'ab', start_time: 1n, end_time: 2n })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (dialect === 'postgres') await db.insertInto('trace_ids').values({ trace_id: 'ab', trace_rowid: trace.id }).execute();
  await db
    .insertInto('spans')
    .values({
      trace_rowid: trace.id,
      project_id: project.id,
      span_id: 'cd',
      name: 's',
      span_kind: 'LLM',
      start_time: 1n,
      end_time: 2n,
      status_code: 'OK',
      status_message: '',
      attributes: '{}',
      events: '[]',
    })
    .execute();
}

/**
 * Methods no scenario runs, and why: the day-partition methods of retention need a day's
 * partitions, which only the writer creates (test/db/time-partitions.test.ts and
 * partition-compaction.test.ts run them); each dialect's own methods run no statement on the other.
 */
const NOT_SNAPSHOTTED: Record<string, string[]> = {
  common: ['retention.dayPartitionsBefore', 'retention.projectsOfDay', 'retention.tryLockDayPartitions', 'retention.dropDayPartition'],
  sqlite: [
    'jobLeases.withLease',
    'datasets.refreshExampleStatistics',
    'searchVectors.queued',
    'searchVectors.indexQueued',
    'searchVectors.lastAnalyzed',
    'searchVectors.analyze',
  ],
  postgres: ['retention.incrementalVacuumEnabled', 'retention.freePages', 'retention.incrementalVacuum'],
};

/** The repositories whose every method the scenario must run on `dialect`. */
function covered(repositories: Repositories, dialect: string): Record<string, object> {
  const left = new Set([...NOT_SNAPSHOTTED.common!, ...(NOT_SNAPSHOTTED[dialect] ?? [])]);
  return Object.fromEntries(
    Object.entries(repositories).map(([name, repository]) => [
      name,
      Object.fromEntries(Object.entries(repository).filter(([method]) => !left.has(`${name}.${method}`))),
    ]),
  );
}

describeSqlSnapshots<DB>({
  folder: path.resolve(import.meta.dirname, '../src/db/sql'),
  names: { dirPrefix: 'sightline-test-', databasePrefix: 'sl_test' },
  sqliteAttach: attachSearchIndex,
  async prepare({ dialect, db, url }) {
    await migrateToLatest({ dialect, db, config: { dialect, url }, close: async () => {} } satisfies Database);
    await storeSpanToLookUp(db, dialect);
    const repositories = createRepositories(db, dialect);
    return { scenario: scenario(repositories, dialect, db), repositories: covered(repositories, dialect) };
  },
});
