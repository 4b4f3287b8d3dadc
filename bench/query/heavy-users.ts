/**
 * Users with thousands of traces, made in a loaded corpus by handing existing traces to them: the
 * corpus spreads 5,000 users evenly (a few hundred traces each at 10M spans), while issue 33 asks
 * that a filter on any user answer in time, whoever it is. The traces chosen are every k-th of the
 * main project's, so a heavy user's traces span the corpus's whole time range as a real one's do.
 * Idempotent: a user who already has the traces is left as is.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { MAIN_PROJECT } from './dataset.js';
import type { Target } from './load.js';

/** The user.id of the heavy user with `traces` traces. */
export const heavyUserId = (traces: number) => `heavy-${traces}`;

/** Gives each count's heavy user that many traces of the main project (their spans' user.id too). */
export async function ensureHeavyUsers(target: Target, counts: number[], log: (line: string) => void): Promise<void> {
  for (const count of counts) {
    const user = heavyUserId(count);
    const done = target.dialect === 'sqlite' ? heavySqlite(target.file, user, count) : await heavyPostgres(target.url, user, count);
    log(done ? `${user}: handed ${count} traces of ${MAIN_PROJECT} to it` : `${user}: has its ${count} traces already`);
  }
}

function heavySqlite(file: string, user: string, count: number): boolean {
  const db = new SQLite(file);
  try {
    const project = db.prepare('SELECT id FROM projects WHERE name = ?').pluck().get(MAIN_PROJECT) as number;
    const has = db.prepare('SELECT count(*) FROM traces WHERE project_id = ? AND user_id = ?').pluck().get(project, user) as number;
    if (has >= count) return false;
    const total = db.prepare('SELECT count(*) FROM traces WHERE project_id = ?').pluck().get(project) as number;
    const step = Math.max(1, Math.floor(total / count));
    db.transaction(() => {
      const ids = db
        .prepare(
          `SELECT id FROM traces WHERE project_id = ? AND id % ? = ? AND (user_id IS NULL OR user_id NOT LIKE 'heavy-%') ORDER BY id LIMIT ?`,
        )
        .pluck()
        .all(project, step, count % step, count) as number[];
      const setTrace = db.prepare('UPDATE traces SET user_id = ? WHERE id = ?');
      const setSpans = db.prepare(
        `UPDATE spans SET attributes = json_set(attributes, '$."user.id"', ?) WHERE trace_rowid = ? AND json_type(attributes, '$."user.id"') IS NOT NULL`,
      );
      for (const id of ids) {
        setTrace.run(user, id);
        setSpans.run(user, id);
      }
    })();
    return true;
  } finally {
    db.close();
  }
}

async function heavyPostgres(url: string, user: string, count: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const project = Number((await client.query('SELECT id FROM projects WHERE name = $1', [MAIN_PROJECT])).rows[0].id);
    const has = Number(
      (await client.query('SELECT count(*) AS n FROM traces WHERE project_id = $1 AND user_id = $2', [project, user])).rows[0].n,
    );
    if (has >= count) return false;
    const total = Number((await client.query('SELECT count(*) AS n FROM traces WHERE project_id = $1', [project])).rows[0].n);
    const step = Math.max(1, Math.floor(total / count));
    await client.query('BEGIN');
    const ids = (
      await client.query(
        `SELECT id FROM traces WHERE project_id = $1 AND id % $2 = $3 AND (user_id IS NULL OR user_id NOT LIKE 'heavy-%') ORDER BY id LIMIT $4`,
        [project, step, count % step, count],
      )
    ).rows.map((row) => Number(row.id));
    await client.query('UPDATE traces SET user_id = $1 WHERE id = ANY($2::bigint[])', [user, ids]);
    await client.query(
      `UPDATE spans SET attributes = jsonb_set(attributes, '{user.id}', to_jsonb($1::text)) WHERE trace_rowid = ANY($2::bigint[]) AND attributes ? 'user.id'`,
      [user, ids],
    );
    await client.query('COMMIT');
    return true;
  } finally {
    await client.end();
  }
}
