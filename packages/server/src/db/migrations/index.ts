/** The ordered migration set; the same steps run on SQLite and PostgreSQL. */
import type { Migration } from 'kysely';
import type { Dialect } from '../../config.js';
import * as traces from './0001-traces.js';
import * as auth from './0002-auth.js';
import * as queryIndexes from './0003-query-indexes.js';
import * as passwordReset from './0004-password-reset.js';
import * as errorKindIndex from './0005-error-kind-index.js';
import * as prompts from './0007-prompts.js';
import * as datasets from './0008-datasets.js';
import * as experiments from './0009-experiments.js';
import * as experimentProjects from './0010-experiment-projects.js';
import * as sessions from './0011-sessions.js';
import * as annotations from './0012-annotations.js';
import * as costs from './0013-costs.js';
import * as retention from './0014-retention.js';
import * as annotationConfigs from './0015-annotation-configs.js';
import * as secrets from './0016-secrets.js';
import * as rateLimits from './0017-rate-limits.js';
import * as datasetUploads from './0018-dataset-uploads.js';
import * as longAttributes from './0019-long-attributes.js';
import * as traceUsers from './0020-trace-users.js';
import * as spanIdsPerTrace from './0021-span-ids-per-trace.js';
import * as timePartitions from './0022-time-partitions.js';
import * as spanSecondIndexes from './0023-span-second-indexes.js';
import * as projectDeletion from './0024-project-deletion.js';
import * as datasetExampleCounts from './0025-dataset-example-counts.js';
import * as datasetDeletion from './0026-dataset-deletion.js';
import * as experimentDeletion from './0027-experiment-deletion.js';
import * as datasetLabelsAndSplits from './0028-dataset-labels-and-splits.js';
import * as experimentTags from './0029-experiment-tags.js';
import * as spanLogEvents from './0031-span-log-events.js';
import * as evaluators from './0032-evaluators.js';
import * as sessionStartOrder from './0033-session-start-order.js';
import * as onlineEvaluation from './0034-online-evaluation.js';
import * as annotationQueues from './0035-annotation-queues.js';
import * as onlineRuleQueues from './0036-online-rule-queues.js';
import * as fullTextSearch from './0037-full-text-search.js';
import * as alerts from './0039-alerts.js';
import * as savedViews from './0040-saved-views.js';
import * as experimentTraceIndexes from './0042-experiment-trace-indexes.js';
import * as scheduledExports from './0043-scheduled-exports.js';
import * as dashboards from './0044-dashboards.js';
import * as searchIndexFile from './0045-search-index-file.js';
import * as summaryRollups from './0046-summary-rollups.js';
import * as spanCostsForeignKeys from './0047-span-costs-foreign-keys.js';
import * as spanSearchVectors from './0048-span-search-vectors.js';
import * as spanSearchPending from './0049-span-search-pending.js';

export interface MigrationContext {
  dialect: Dialect;
}

/** Every migration by name, bound to the dialect it runs on. */
export function migrations(context: MigrationContext): Record<string, Migration> {
  return {
    '0001-traces': { up: traces.up(context) },
    '0002-auth': { up: auth.up(context) },
    '0003-query-indexes': { up: queryIndexes.up(context) },
    '0004-password-reset': { up: passwordReset.up(context) },
    '0005-error-kind-index': { up: errorKindIndex.up(context) },
    '0007-prompts': { up: prompts.up(context) },
    '0008-datasets': { up: datasets.up(context) },
    '0009-experiments': { up: experiments.up(context) },
    '0010-experiment-projects': { up: experimentProjects.up(context) },
    '0011-sessions': { up: sessions.up(context) },
    '0012-annotations': { up: annotations.up(context) },
    '0013-costs': { up: costs.up(context) },
    '0014-retention': { up: retention.up(context) },
    '0015-annotation-configs': { up: annotationConfigs.up(context) },
    '0016-secrets': { up: secrets.up(context) },
    '0017-rate-limits': { up: rateLimits.up(context) },
    '0018-dataset-uploads': { up: datasetUploads.up(context) },
    '0019-long-attributes': { up: longAttributes.up(context) },
    '0020-trace-users': { up: traceUsers.up(context) },
    '0021-span-ids-per-trace': { up: spanIdsPerTrace.up(context) },
    '0022-time-partitions': { up: timePartitions.up(context) },
    '0023-span-second-indexes': { up: spanSecondIndexes.up(context) },
    '0024-project-deletion': { up: projectDeletion.up(context) },
    '0025-dataset-example-counts': { up: datasetExampleCounts.up(context) },
    '0026-dataset-deletion': { up: datasetDeletion.up(context) },
    '0027-experiment-deletion': { up: experimentDeletion.up(context) },
    '0028-dataset-labels-and-splits': { up: datasetLabelsAndSplits.up(context) },
    '0029-experiment-tags': { up: experimentTags.up(context) },
    '0031-span-log-events': { up: spanLogEvents.up(context) },
    '0032-evaluators': { up: evaluators.up(context) },
    '0033-session-start-order': { up: sessionStartOrder.up(context) },
    '0034-online-evaluation': { up: onlineEvaluation.up(context) },
    '0035-annotation-queues': { up: annotationQueues.up(context) },
    '0036-online-rule-queues': { up: onlineRuleQueues.up() },
    '0037-full-text-search': { up: fullTextSearch.up(context) },
    '0039-alerts': { up: alerts.up(context) },
    '0040-saved-views': { up: savedViews.up(context) },
    '0042-experiment-trace-indexes': { up: experimentTraceIndexes.up(context) },
    '0043-scheduled-exports': { up: scheduledExports.up(context) },
    '0044-dashboards': { up: dashboards.up(context) },
    '0045-search-index-file': { up: searchIndexFile.up(context) },
    '0046-summary-rollups': { up: summaryRollups.up(context) },
    '0047-span-costs-foreign-keys': { up: spanCostsForeignKeys.up(context) },
    '0048-span-search-vectors': { up: spanSearchVectors.up(context) },
    '0049-span-search-pending': { up: spanSearchPending.up(context) },
  };
}
