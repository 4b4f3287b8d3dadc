/**
 * On-CPU profiles of the log service from Linux `perf` (bench/log `--perf`): where each thread's
 * CPU goes, in µs per record, kernel included. V8's `--cpu-prof` samples wall time, so a call that
 * blocks or wakes another thread (a socket write, a postMessage, an fdatasync) also collects the
 * time the thread then spends descheduled; `perf record -e cpu-clock` counts only CPU time.
 *
 * Each sample's stack (leaf first) is put in the first category one of its frames matches; other
 * native frames (V8's builtins and runtime, malloc, system calls) count for their callers, and a
 * JavaScript frame of no category stops the walk ("other JavaScript").
 */
import { spawnSync } from 'node:child_process';

/** Categories in the order they are tried on each frame (leaf first). */
const CATEGORIES: readonly (readonly [string, RegExp])[] = [
  ['GC', /Heap::|Scavenge|MarkCompact|GCTracer|MinorMC|ConcurrentMarking|Sweeper/],
  ['JIT compiler', /v8::internal::compiler::|Compiler::|CompileLazy|Maglev|Baseline/],
  ['JSON.parse', /JsonParser/],
  ['JSON.stringify', /JsonStringifier/],
  ['structured clone: serialize', /ValueSerializer|Message::Serialize/],
  ['structured clone: deserialize', /ValueDeserializer|Message::Deserialize/],
  ['fdatasync (kernel: writeback, flush)', /^fdatasync$|__x64_sys_fdatasync|ext4_sync_file|file_write_and_wait|blkdev|virtio/],
  ['thread-pool hand-off', /uv__work_submit|uv_fs_fdatasync|^worker$/],
  ['cross-thread wake (uv_async_send, futex)', /uv_async_send|futex_wake|eventfd_write/],
  ['socket write (kernel: TCP loopback)', /tcp_sendmsg|sock_write_iter|do_writev|vfs_writev|uv__write|uv_try_write|^writev$/],
  ['socket read', /tcp_recvmsg|sock_read_iter|uv__read|vfs_read/],
  ['sleep and wake-up (scheduler, epoll)', /finish_task_switch|schedule|do_epoll_wait|ep_poll|futex_wait|epoll_wait/],
  ['SQLite (statements, commit, WAL writes)', /sqlite3|walChecksum|pcache|[bB]tree/],
  ['llhttp (HTTP parser, C)', /llhttp|node::\(anonymous namespace\)::Parser/],
  ['validation (monitor-sdk log/validate.js, log/time.js)', /monitor-sdk\/dist\/log\//],
  ['rows (store/record-rows.js, db/repositories/record-writes.js)', /record-rows\.js|record-writes\.js/],
  ['log handler, auth (http/*.js)', /monitor\/dist\/http\/|monitor\/dist\/app\.js/],
  [
    'group commit, writer thread glue',
    /group-commit\/|common\/dist\/worker\.js|record-queue\.js|record-writes-sqlite\.js|sqlite-writer-worker\.js|wal-sync\.js|better-sqlite3\/lib/,
  ],
  ['node:http (JavaScript)', /node:_http/],
  ['node streams, net (JavaScript)', /node:internal\/streams|node:net|node:internal\/stream_base/],
  [
    'events, timers, promises, ticks',
    /node:events|node:internal\/process\/task_queues|node:internal\/timers|node:timers|node:internal\/event_target|messageport|RunMicrotasks|PromiseFulfill/,
  ],
];

/** The category of one stack (leaf first): the first frame that names one; other native frames pass it up to their callers. */
export function categorise(frames: readonly string[]): string {
  for (const frame of frames) {
    for (const [name, pattern] of CATEGORIES) if (pattern.test(frame)) return name;
    if (frame.startsWith('JS:')) return 'other JavaScript';
  }
  return 'other native (libuv, kernel, libc)';
}

/** Samples of one thread by category. */
export interface ThreadProfile {
  samples: number;
  categories: Map<string, number>;
}

/** Reads `perf script` output: per thread id, the samples by category. */
export function readPerfData(file: string): Map<number, ThreadProfile> {
  const script = spawnSync('perf', ['script', '-i', file, '-F', 'tid,ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
  const threads = new Map<number, ThreadProfile>();
  let tid: number | null = null;
  let frames: string[] = [];
  const flush = () => {
    if (tid === null) return;
    let thread = threads.get(tid);
    if (!thread) {
      thread = { samples: 0, categories: new Map() };
      threads.set(tid, thread);
    }
    thread.samples++;
    const category = categorise(frames);
    thread.categories.set(category, (thread.categories.get(category) ?? 0) + 1);
    tid = null;
    frames = [];
  };
  for (const line of script.stdout.split('\n')) {
    if (line.trim() === '') flush();
    else if (!/^\s/.test(line)) {
      flush();
      tid = Number(line.trim().split(/\s+/)[0]);
    } else {
      const [, symbol = '?'] = /^\s*\S+\s+(.*)$/.exec(line) ?? [];
      frames.push(symbol);
    }
  }
  flush();
  return threads;
}

/**
 * A table per thread (request thread = the process id, writer = the busiest other thread, the
 * rest together): CPU µs per record of each category, from `frequency` samples per CPU second.
 */
export function formatPerfSummary(file: string, pid: number, frequency: number, records: number, top = 14): string {
  const threads = readPerfData(file);
  const others = [...threads.keys()].filter((tid) => tid !== pid);
  const writer = others.sort((a, b) => threads.get(b)!.samples - threads.get(a)!.samples)[0];
  const groups: [string, ThreadProfile[]][] = [
    ['request thread', threads.has(pid) ? [threads.get(pid)!] : []],
    ['writer thread', writer === undefined ? [] : [threads.get(writer)!]],
    ['other threads', others.filter((tid) => tid !== writer).map((tid) => threads.get(tid)!)],
  ];
  const us = (samples: number) => ((samples / frequency) * 1e6) / Math.max(records, 1);
  const lines: string[] = [];
  for (const [name, profiles] of groups) {
    const samples = profiles.reduce((sum, profile) => sum + profile.samples, 0);
    if (samples === 0) continue;
    const categories = new Map<string, number>();
    for (const profile of profiles)
      for (const [category, count] of profile.categories) categories.set(category, (categories.get(category) ?? 0) + count);
    lines.push(`${name}: ${us(samples).toFixed(1)} µs CPU per record (perf, ${samples} samples)`);
    for (const [category, count] of [...categories].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      lines.push(`  ${us(count).toFixed(1).padStart(6)} µs  ${((100 * count) / samples).toFixed(1).padStart(5)}%  ${category}`);
    }
  }
  return lines.join('\n');
}
