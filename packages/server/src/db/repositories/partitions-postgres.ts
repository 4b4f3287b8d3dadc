/**
 * Partition DDL of the PostgreSQL layout (docs/partitioning.md): creates a day's partitions of
 * each partitioned table. Creating a partition locks its parent exclusively for a moment, so it runs
 * in a transaction of its own, gives up after a few seconds rather than queue every reader behind
 * a long query, and takes an advisory lock so that replicas creating the same day take turns.
 */
import type pg from 'pg';
import { inPgTransaction } from '@sightline/common';
import { PARTITIONED_TABLES, partitionBounds, partitionName } from '../partitions.js';

/** pg_advisory_xact_lock key of partition DDL ("sightline.partitions"). */
const PARTITION_LOCK = 7_303_822_011;

/** Creates the `traces`, `spans` and `span_search_vectors` partitions of each day that does not have them yet. */
export async function createDayPartitions(pool: pg.Pool, days: Iterable<number>): Promise<void> {
  for (const day of days) {
    const { from, to } = partitionBounds(day);
    await inPgTransaction(pool, async (client) => {
      await client.query("SET LOCAL lock_timeout = '5s'");
      await client.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK]);
      for (const table of PARTITIONED_TABLES) {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${partitionName(table, day)} PARTITION OF ${table} FOR VALUES FROM (${from}) TO (${to})`,
        );
      }
    });
  }
}
