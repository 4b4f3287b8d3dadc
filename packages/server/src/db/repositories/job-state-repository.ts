/** SQL for `job_state`: small named values a background job keeps across restarts (its cursor, its watermark). */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export type JobStateRepository = ReturnType<typeof createJobStateRepository>;

export function createJobStateRepository(db: Kysely<DB>) {
  return {
    async read(name: string): Promise<string | undefined> {
      return (await db.selectFrom('job_state').select('value').where('name', '=', name).executeTakeFirst())?.value;
    },
    async write(name: string, value: string): Promise<void> {
      await db
        .insertInto('job_state')
        .values({ name, value })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
        .execute();
    },
  };
}
