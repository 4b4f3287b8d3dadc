import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dayOfMillis, dayOfRowid, partitionBounds, partitionDayOf, partitionName, ROWIDS_PER_DAY } from '../../src/db/partitions.js';

const NANOS_PER_DAY = 86_400_000_000_000n;
const today = dayOfMillis(Date.UTC(2026, 10, 26, 13, 0));

describe('day partitions (docs/partitioning.md)', () => {
  test('a day counts whole UTC days since the epoch', () => {
    assert.equal(today, 20_783);
    assert.equal(dayOfMillis(Date.UTC(2026, 10, 26)), 20_783);
    assert.equal(dayOfMillis(Date.UTC(2026, 10, 26) - 1), 20_782);
    assert.equal(partitionName('spans', today), 'spans_p20261126');
    assert.equal(partitionName('traces', 0), 'traces_p19700101');
  });

  test('a new trace takes its start day, kept within a day of today', () => {
    const at = (day: number, offsetNanos = 0n) => BigInt(day) * NANOS_PER_DAY + offsetNanos;
    assert.equal(partitionDayOf(at(today, 5n), today), today);
    assert.equal(partitionDayOf(at(today - 1, NANOS_PER_DAY - 1n), today), today - 1);
    assert.equal(partitionDayOf(at(today + 1), today), today + 1);
    assert.equal(partitionDayOf(at(today - 2, NANOS_PER_DAY - 1n), today), today - 1, 'two days back: yesterday');
    assert.equal(partitionDayOf(0n, today), today - 1, 'the epoch: yesterday');
    assert.equal(partitionDayOf(-5n, today), today - 1, 'before the epoch: yesterday');
    assert.equal(partitionDayOf(at(today + 400), today), today + 1, 'next year: tomorrow');
  });

  test('a day’s row ids are exact numbers and name their day', () => {
    const { from, to } = partitionBounds(today);
    assert.equal(BigInt(to) - BigInt(from), BigInt(ROWIDS_PER_DAY));
    const first = Number(from);
    const last = Number(BigInt(to) - 1n);
    assert.ok(Number.isSafeInteger(last));
    assert.equal(dayOfRowid(first), today);
    assert.equal(dayOfRowid(last), today);
    assert.equal(dayOfRowid(last + 1), today + 1);
    assert.equal(dayOfRowid(12_345), 0, 'row ids of the legacy partitions');
    // Safe as JSON numbers for centuries of days.
    assert.ok(Number.isSafeInteger(Number(partitionBounds(dayOfMillis(Date.UTC(2500, 0, 1))).to)));
  });
});
