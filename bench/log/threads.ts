/**
 * CPU time per thread of a process, from /proc/<pid>/task/<tid>/stat (Linux): which of the
 * service's CPU goes to the request thread (the main thread), the SQLite writer thread and the
 * rest (V8's GC and compiler threads, libuv's pool).
 */
import fs from 'node:fs';

// sysconf(_SC_CLK_TCK) is 100 on every Linux architecture Node runs on.
const CLOCK_TICKS = 100;

export interface ThreadSample {
  /** CPU seconds (user + system) of each thread by tid. */
  seconds: Map<number, number>;
}

/** CPU seconds of every thread of a process (empty when it is gone or /proc is not there). */
export function sampleThreads(pid: number): ThreadSample {
  const sample: ThreadSample = { seconds: new Map() };
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return sample;
  }
  for (const entry of tids) {
    const tid = Number(entry);
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the name (which may hold spaces) start at field 3; utime is 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sample.seconds.set(tid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return sample;
}

/** CPU seconds of a process between two samples: the main thread, the busiest worker thread, the rest. */
export interface ThreadCpu {
  main: number;
  writer: number;
  other: number;
  total: number;
}

/**
 * Splits the CPU used between two samples. Node 20 names every thread "node", so the writer is
 * taken to be the busiest thread other than the main one (V8's GC and compiler helpers each do
 * far less per record than the writer's statements and commits).
 */
export function threadCpuBetween(pid: number, before: ThreadSample, after: ThreadSample): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, writer: 0, other: 0, total: 0 };
  const used = new Map<number, number>();
  for (const [tid, seconds] of after.seconds) used.set(tid, seconds - (before.seconds.get(tid) ?? 0));
  let writerTid: number | null = null;
  for (const [tid, seconds] of used) {
    if (tid !== pid && (writerTid === null || seconds > used.get(writerTid)!)) writerTid = tid;
  }
  for (const [tid, seconds] of used) {
    cpu.total += seconds;
    if (tid === pid) cpu.main += seconds;
    else if (tid === writerTid) cpu.writer += seconds;
    else cpu.other += seconds;
  }
  return cpu;
}

/** CPU seconds between two samples of the main thread and of the `count` busiest other threads, busiest first. */
export function busiestThreadsBetween(
  pid: number,
  before: ThreadSample,
  after: ThreadSample,
  count: number,
): { main: number; busiest: number[]; rest: number } {
  let main = 0;
  const others: number[] = [];
  for (const [tid, seconds] of after.seconds) {
    const used = seconds - (before.seconds.get(tid) ?? 0);
    if (tid === pid) main = used;
    else others.push(used);
  }
  others.sort((a, b) => b - a);
  const rest = others.slice(count).reduce((sum, seconds) => sum + seconds, 0);
  return { main, busiest: others.slice(0, count), rest };
}
