import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { checkLogBody } from '../../packages/monitor/src/log/validate.js';
import { toRecordRow, rowValues } from '../../packages/monitor/src/store/record-rows.js';
const ts = new Date(Date.now() - 60000).toISOString();
const text = (i: number) => `{"space_key":"k","model_id":"bench-model","prediction_id":"id-${i}","prediction":{"timestamp":"${ts}","model_version":"v1","label":{"score_categorical":{"score_category":{"category":"fraud","score":0.87}}},"features":{"amount":{"double":12.5},"country":{"string":"DE"},"items":{"int":"3"},"merchant":{"string":"m-1234"},"age_days":{"int":"812"},"velocity":{"double":0.25}},"tags":{"region":{"string":"eu"},"shard":{"int":"7"}}},"environment_params":{"production":{}}}`;
const rows = Array.from({ length: 64 }, (_, i) => toRecordRow(1, (checkLogBody(JSON.parse(text(i)), { nowMs: Date.now(), spaceKeyMatches: () => true }) as any).record, Date.now() * 1000));
const ch = new MessageChannel();
const variants: [string, () => unknown][] = [
  ['objects', () => rows],
  ['arrays', () => rows.map(rowValues)],
  ['json', () => JSON.stringify(rows.map(rowValues))],
];
for (let r = 0; r < 3; r++) for (const [name, make] of variants) {
  let t = performance.now();
  for (let i = 0; i < 2000; i++) { ch.port1.postMessage(make()); receiveMessageOnPort(ch.port2); }
  console.log(name, 'µs/row send+receive', ((performance.now() - t) * 1000 / (2000 * 64)).toFixed(2));
}
ch.port1.close();
