import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { runLoad } from './load.js';
const dir = '/tmp/monagent/cpu'; fs.rmSync(dir, { recursive: true, force: true }); fs.mkdirSync(dir, { recursive: true });
const env = { ...process.env, SERVICE_WORKING_DIR: dir, MONITOR_LOG_LEVEL: 'warn' };
const k = JSON.parse(spawnSync(process.execPath, ['packages/server/bin/sightline.js', 'monitor', 'create-space', '--name', 'b', '--json'], { env, encoding: 'utf8' }).stdout);
const ticks = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return Number(f[11]) + Number(f[12]); };
const ts = new Date(Date.now() - 60000).toISOString();
const mk = (port: number) => (i: number) => { const body = `{"space_key":"${k.space_key}","model_id":"bench-model","prediction_id":"id-${i}-${port}","prediction":{"timestamp":"${ts}","model_version":"v1","label":{"score_categorical":{"score_category":{"category":"fraud","score":0.87}}},"features":{"amount":{"double":12.5},"country":{"string":"DE"},"items":{"int":"3"},"merchant":{"string":"m-1234"},"age_days":{"int":"812"},"velocity":{"double":0.25}},"tags":{"region":{"string":"eu"},"shard":{"int":"7"}}},"environment_params":{"production":{}}}`;
 return Buffer.from(`POST /v1/log HTTP/1.1\r\nHost: x\r\nAuthorization: ${k.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`); };
async function measure(name: string, child: ChildProcess, port: number) {
  await new Promise((r) => setTimeout(r, 2500));
  await runLoad({ host: '127.0.0.1', port, connections: 64, warmupMs: 0, durationMs: 1500, request: mk(port) });
  const threads = () => Object.fromEntries(fs.readdirSync(`/proc/${child.pid}/task`).map((t) => { const st = fs.readFileSync(`/proc/${child.pid}/task/${t}/stat`, 'utf8'); const name = st.slice(st.indexOf('(') + 1, st.indexOf(')')); const f = st.split(') ')[1]!.split(' '); return [`${t}:${name}`, Number(f[11]) + Number(f[12])]; }));
  const tb = threads();
  const before = ticks(child.pid!);
  const r = await runLoad({ host: '127.0.0.1', port, connections: Number(process.env.CONN ?? 64), warmupMs: 0, durationMs: 4000, request: mk(port + 1) });
  const cpuMs = (ticks(child.pid!) - before) * 10;
  const ta = threads();
  console.log(Object.entries(ta).map(([k, v]) => [k, (((v - (tb[k] ?? 0)) * 10 * 1000) / r.acknowledged.length).toFixed(1)]).filter(([, v]) => Number(v) > 0.5).join('  '));
  console.log(name, 'req/s', r.okInWindow / 4, 'cpu µs/req', (cpuMs * 1000 / r.acknowledged.length).toFixed(1), 'p50', r.latenciesMs[r.latenciesMs.length >> 1]?.toFixed(2));
  child.kill('SIGTERM'); await new Promise((res) => child.once('exit', res));
}
await measure('floor  ', spawn(process.execPath, ['--import', 'tsx', 'bench/log/floor-server.ts'], { env: { ...env, PORT: '7140' }, stdio: 'ignore' }), 7140);
await measure('service', spawn(process.execPath, ['packages/server/bin/sightline.js', 'monitor', 'serve'], { env: { ...env, MONITOR_PORT: '7142' }, stdio: ['ignore', 'ignore', 'inherit'] }), 7142);
