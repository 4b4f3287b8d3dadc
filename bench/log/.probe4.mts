import { openMonitorDatabase, openSqlite } from '../../packages/monitor/src/db/database.js';
import { migrateMonitorDatabase } from '../../packages/monitor/src/db/migrate.js';
import { SqliteRecordStore } from '../../packages/monitor/src/store/sqlite-record-store.js';
import { toRecordRow } from '../../packages/monitor/src/store/record-rows.js';
import { checkLogBody } from '../../packages/monitor/src/log/validate.js';
import fs from 'node:fs';
const ts = new Date(Date.now() - 60000).toISOString();
const text = (i: number) => `{"space_key":"k","model_id":"bench-model","prediction_id":"${Date.now().toString(36)}-${i}","prediction":{"timestamp":"${ts}","model_version":"v1","label":{"score_categorical":{"score_category":{"category":"fraud","score":0.87}}},"features":{"amount":{"double":12.5},"country":{"string":"DE"},"items":{"int":"3"},"merchant":{"string":"m-1234"},"age_days":{"int":"812"},"velocity":{"double":0.25}},"tags":{"region":{"string":"eu"},"shard":{"int":"7"}}},"environment_params":{"production":{}}}`;
const N = 30000;
const rows = Array.from({ length: N }, (_, i) => toRecordRow(1, (checkLogBody(JSON.parse(text(i)), { nowMs: Date.now(), spaceKeyMatches: () => true }) as any).record, Date.now() * 1000));
for (const variant of ['full', 'noid', 'noindex', 'full', 'noid', 'noindex']) {
  const file = `/tmp/monagent/p4-${variant}/monitor.db`;
  fs.rmSync(`/tmp/monagent/p4-${variant}`, { recursive: true, force: true });
  const d = openMonitorDatabase({ dialect: 'sqlite', url: file });
  await migrateMonitorDatabase(d);
  await d.db.insertInto('monitor_spaces').values({ name: 'x', space_key_hash: 'h', created_at: 0 }).execute();
  await d.close();
  const conn = openSqlite(file);
  conn.pragma('cache_size = -65536');
  if (variant === 'noindex') conn.exec('DROP INDEX monitor_records_model_time');
  if (variant === 'noid') { conn.exec('DROP INDEX monitor_records_model_time'); conn.exec('CREATE INDEX mt ON monitor_records (space_id, model_id, record_time)'); }
  const store = new SqliteRecordStore(conn);
  conn.pragma('synchronous = OFF');
  let t = performance.now();
  for (let i = 0; i < N; i += 64) store.write(rows.slice(i, i + 64));
  console.log(variant, 'µs/row (sync off, 64/tx)', ((performance.now() - t) * 1000 / N).toFixed(1));
  conn.pragma('synchronous = FULL');
  const more = rows.map((r) => ({ ...r, predictionId: r.predictionId + 'x' }));
  t = performance.now();
  for (let i = 0; i < 64 * 100; i += 64) store.write(more.slice(i, i + 64));
  console.log(variant, 'ms per 64-row commit (FULL)', ((performance.now() - t) / 100).toFixed(2));
  conn.close();
}
