/**
 * The machine's saturation as the SQLite search indexer reads it (docs/search.md, "SQLite"): the
 * share of all cores that work other than the reading thread's took since the last reading.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CpuSaturation, type CpuSample, readCpuSample, SAMPLE_MS, SATURATED_SHARE } from '../../src/db/search-index/cpu-saturation.js';

/** Readings of a two-core machine: each step adds `idle` and `own` ms over `elapsed` ms of wall time. */
function machine(steps: { elapsed: number; idle: number; own: number }[]) {
  let at = 0;
  let sample: CpuSample = { at, idleMs: 0, totalMs: 0, ownMs: 0 };
  const readings = [sample];
  for (const step of steps) {
    at += step.elapsed;
    sample = { at, idleMs: sample.idleMs + step.idle, totalMs: sample.totalMs + 2 * step.elapsed, ownMs: sample.ownMs + step.own };
    readings.push(sample);
  }
  let reads = 0;
  return {
    read: (now: number) => {
      reads++;
      const found = readings.find((reading) => reading.at === now);
      assert.ok(found, `a reading at ${now}`);
      return found;
    },
    reads: () => reads,
  };
}

describe('CPU saturation', () => {
  it('counts the cores’ busy time that is not the thread’s own, and reads again at most every SAMPLE_MS', () => {
    const step = SAMPLE_MS + 50;
    const fake = machine([
      // 90 % of both cores busy, 5 % of it the thread's own: saturated.
      { elapsed: step, idle: 0.1 * 2 * step, own: 0.05 * 2 * step },
      // Half idle.
      { elapsed: step, idle: step, own: 0 },
      // Never idle, but a third of it the thread's own: others take two thirds, below the share.
      { elapsed: step, idle: 0, own: (2 * step) / 3 },
    ]);
    const saturation = new CpuSaturation(fake.read);
    assert.equal(saturation.check(0), false, 'nothing to compare the first reading with');
    assert.equal(saturation.check(step), true);
    assert.equal(saturation.check(step + SAMPLE_MS - 1), true, 'the last answer holds');
    assert.equal(fake.reads(), 2);
    assert.equal(saturation.check(2 * step), false);
    assert.equal(saturation.check(3 * step), false);
    assert.ok(2 / 3 < SATURATED_SHARE);
  });

  it('a share of its own: two thirds of the cores count as saturated at 0.5', () => {
    const step = SAMPLE_MS;
    const saturation = new CpuSaturation(machine([{ elapsed: step, idle: 0, own: (2 * step) / 3 }]).read, 0.5);
    saturation.check(0);
    assert.equal(saturation.check(step), true);
  });

  it('reads the calling thread’s own CPU time from the kernel (Linux)', () => {
    const before = readCpuSample(0);
    const started = process.cpuUsage();
    // Work on this thread until the process has used 200 ms of CPU.
    let spin = 0;
    while (process.cpuUsage(started).user < 200_000) spin += Math.sqrt(spin + 1);
    const after = readCpuSample(1);
    assert.ok(spin > 0);
    // The kernel counts in ticks of 10 ms; the process's other threads did next to nothing meanwhile.
    assert.ok(after.ownMs - before.ownMs >= 150, `own CPU ${after.ownMs - before.ownMs} ms`);
    assert.ok(after.totalMs > before.totalMs && after.idleMs >= before.idleMs);
  });
});
