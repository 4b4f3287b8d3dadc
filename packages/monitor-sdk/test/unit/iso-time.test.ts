/**
 * parseIsoMicros reads timestamps character by character; this checks it against the regular
 * expression and Date arithmetic it replaced, on generated and mutated timestamps (seeded).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '@sightline/common/testing';
import { parseIsoMicros } from '../../src/log/time.js';

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The implementation before (regular expression and Date), the reference. */
function reference(text: string): number | null {
  if (text.length > 40) return null;
  const match = ISO_TIME.exec(text);
  if (match === null) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offH, offM] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (day > DAYS_IN_MONTH[month - 1]! + (month === 2 && leap ? 1 : 0)) return null;
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const hours = Number(offH);
    const minutes = Number(offM);
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const ms = date.getTime() - offsetMinutes * 60_000;
  const micros = fraction === undefined ? 0 : Number(`${fraction}00000`.slice(0, 6));
  return ms * 1000 + micros;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

describe('parseIsoMicros', () => {
  it('agrees with the regular expression and Date on generated and mutated timestamps', () => {
    const seed = Number(process.env.SIGHTLINE_FUZZ_SEED ?? 20261125);
    const random = prng(seed);
    const alphabet = '0123456789-:.,TtZz+- x\u0660';
    let valid = 0;
    for (let i = 0; i < 40_000; i++) {
      // Mostly plausible values, sometimes out of range (month 13, day 31 in a 30-day month, hour 24, ...).
      const year = random.chance(0.7) ? 1900 + random.int(400) : random.int(10_000);
      const parts = [
        pad(year, 4),
        '-',
        pad(random.int(14), 2),
        '-',
        pad(random.int(33), 2),
        random.pick(['T', 't', ' ', 'T', 'T']),
        pad(random.int(25), 2),
        ':',
        pad(random.int(61), 2),
        ':',
        pad(random.int(61), 2),
      ];
      if (random.chance(0.7)) parts.push(random.pick(['.', ',', '.']), '1234567890'.slice(0, random.int(11)));
      parts.push(
        random.pick([
          'Z',
          'z',
          '',
          `${random.pick(['+', '-'])}${pad(random.int(26), 2)}${random.pick([':', '', ':'])}${pad(random.int(62), 2)}`,
        ]),
      );
      let text = parts.join('');
      if (random.chance(0.3)) {
        const chars = [...text];
        const at = random.int(chars.length + 1);
        const edit = random.int(3);
        if (edit === 0) chars.splice(at, 1);
        else if (edit === 1) chars.splice(at, 0, random.pick([...alphabet]));
        else chars[at] = random.pick([...alphabet]);
        text = chars.join('');
      }
      const expected = reference(text);
      if (expected !== null) valid++;
      assert.equal(parseIsoMicros(text), expected, `seed ${seed}, ${JSON.stringify(text)}`);
    }
    assert.ok(valid > 5_000, `only ${valid} valid timestamps were generated`);
  });

  it('reads leap days, offsets in both spellings and the extremes of the grammar', () => {
    for (const text of [
      '2024-02-29T00:00:00.000001Z',
      '2023-02-29T00:00:00Z',
      '2000-02-29T23:59:59.999999999+23:59',
      '1900-02-29T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.9-0000',
      '2024-05-01 12:30:00,5+0530',
      '2024-05-01T12:30:00.1234567890Z',
      '2024-05-01T12:30:00.Z',
      '2024-05-01T12:30:00',
      '2024-05-01T12:30:00+05:3',
      '2024-05-01T12:30:00+05:30x',
      `2024-05-01T12:30:00.${'1'.repeat(9)}+05:30`,
    ]) {
      assert.equal(parseIsoMicros(text), reference(text), text);
    }
  });
});
