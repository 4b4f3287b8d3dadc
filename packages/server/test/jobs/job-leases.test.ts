/**
 * Two replicas on one PostgreSQL database never run the same background job at the same time
 * (docs/architecture.md, "Adding a background job"): two runners, each over its own connection
 * pool as two processes have, take the job's lease from the real advisory-lock repository. And
 * two servers on one database list their jobs at GET /v1/system/jobs, for admins and system keys only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDataAccess } from '../../src/db/repositories/index.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startJobRunner, type Job } from '../../src/jobs/job-runner.js';
import type { RunningServer } from '../../src/server.js';
import { ApiClient, AUTH_ENV, expectStatus, memberAndSystemClients } from '../helpers/auth.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { startServerOn } from '../helpers/server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('background jobs on two replicas [postgres]', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
  });
  after(async () => {
    await database.drop();
  });

  it('never run one job on both at once, and both run it over time', async () => {
    const open = (): Database => openDatabase({ dialect: 'postgres', url: database.url! });
    const [a, b] = [open(), open()];
    await migrateToLatest(a);
    let inFlight = 0;
    let mostAtOnce = 0;
    const ranOn = new Set<string>();
    const job = (replica: string): Job => ({
      name: 'exclusive-test',
      description: 'holds its lease 20 ms per run',
      intervalMs: 1,
      firstDelayMs: 0,
      async run() {
        inFlight++;
        mostAtOnce = Math.max(mostAtOnce, inFlight);
        ranOn.add(replica);
        await sleep(20);
        inFlight--;
        return 'idle';
      },
    });
    const runners = [
      startJobRunner([job('a')], { leases: createDataAccess(a).repositories.jobLeases }),
      startJobRunner([job('b')], { leases: createDataAccess(b).repositories.jobLeases }),
    ];
    try {
      await sleep(1500);
      const statuses = runners.map((runner) => runner.status()[0]!);
      assert.equal(mostAtOnce, 1, 'one replica at a time');
      assert.deepEqual([...ranOn].sort(), ['a', 'b'], 'the lease passes between replicas');
      assert.ok(
        statuses.every((status) => status.lastError === null),
        JSON.stringify(statuses),
      );
      assert.ok(
        statuses.reduce((sum, status) => sum + status.runs, 0) > 10,
        `both ran it many times: ${statuses.map((s) => s.runs).join(', ')}`,
      );
    } finally {
      for (const runner of runners) await runner.stop();
      await a.close();
      await b.close();
    }
  });

  it('lists every job at GET /v1/system/jobs on both servers, for admins and system keys, not members', async () => {
    const servers: RunningServer[] = [];
    try {
      servers.push(await startServerOn(database, AUTH_ENV), await startServerOn(database, AUTH_ENV));
      const { member, system } = await memberAndSystemClients(servers[0]!.url);
      for (const server of servers) {
        const response = await new ApiClient(server.url, system.credential).get('/v1/system/jobs');
        expectStatus(response, 200, 'system key');
        const names = (response.body as { data: { name: string; state: string }[] }).data.map((job) => job.name);
        assert.deepEqual(names, [
          'dataset-uploads',
          'dataset-deletions',
          'costs',
          'search-vectors',
          'retention',
          'partition-compaction',
          'long-attributes-conversion',
          'span-log-events',
          'dataset-evaluations',
          'online-evaluations',
          'alert-checks',
        ]);
      }
      expectStatus(await member.get('/v1/system/jobs'), 403, 'member');
    } finally {
      for (const server of servers) await server.close();
    }
  });
});
