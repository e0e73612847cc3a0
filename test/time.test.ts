// The age column: every boundary of the compact age, and the code the listing caches texts by
// giving exactly the text age gives.
import { describe, expect, it } from 'vitest';
import { age, ageCode, ageText, toMs } from '../lib/util/time.js';

const now = Date.parse('2026-06-01T00:00:00Z');
const ago = (sec: number) => now - sec * 1000;
const DAY = 86_400;

describe('age', () => {
  it('gives the compact age at each boundary', () => {
    const cases: [number | null, string][] = [
      [null, '?'],
      [now + 5000, '0s'],
      [ago(0), '0s'],
      [ago(59), '59s'],
      [ago(59.6), '1m'],
      [ago(60), '1m'],
      [ago(3599), '59m'],
      [ago(3600), '1h'],
      [ago(DAY - 1), '23h'],
      [ago(DAY), '1d'],
      [ago(14 * DAY - 1), '13d'],
      [ago(14 * DAY), '2w'],
      [ago(60 * DAY - 1), '8w'],
      [ago(60 * DAY), '2mo'],
      [ago(365 * DAY - 1), '12mo'],
      [ago(365 * DAY), '1y'],
      [ago(3 * 365 * DAY + 5), '3y'],
    ];
    for (const [t, want] of cases) {
      expect(age(t, now), String(t)).toBe(want);
      expect(ageText(ageCode(t, now)), String(t)).toBe(want);
    }
  });

  it('one code for one text, over every second of the first days and then every hour for years', () => {
    const seen = new Map<number, string>();
    const check = (sec: number) => {
      const code = ageCode(ago(sec), now);
      const text = age(ago(sec), now);
      expect(ageText(code)).toBe(text);
      const before = seen.get(code);
      if (before !== undefined) expect(before).toBe(text);
      seen.set(code, text);
    };
    for (let s = 0; s < 3 * DAY; s += 7) check(s);
    for (let s = 3 * DAY; s < 10 * 365 * DAY; s += 3600) check(s);
    // and distinct texts have distinct codes
    expect(new Set(seen.values()).size).toBe(seen.size);
  });
});

describe('toMs', () => {
  // The hand reader of `YYYY-MM-DDTHH:MM:SS.sssZ` must give what Date.parse gives, for every string.
  const same = (v: string) => {
    const t = Date.parse(v);
    expect(toMs(v), v).toBe(Number.isNaN(t) ? null : t);
  };

  it('reads the usual ISO form as Date.parse does, on every day of several years', () => {
    let checked = 0;
    for (let ms = Date.UTC(1999, 11, 25, 1, 2, 3, 4); ms < Date.UTC(2031, 0, 1); ms += 86_400_000 * 3 + 3_723_457) {
      same(new Date(ms).toISOString());
      checked++;
    }
    expect(checked).toBeGreaterThan(3000);
    expect(toMs('2027-06-03T18:05:59.001Z')).toBe(Date.UTC(2027, 5, 3, 18, 5, 59, 1));
  });

  it('gives what Date.parse gives for near misses of that form', () => {
    const cases = [
      '2026-02-29T00:00:00.000Z',
      '2024-02-29T12:00:00.000Z',
      '2026-04-31T00:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-00-10T00:00:00.000Z',
      '2026-01-00T00:00:00.000Z',
      '2026-01-10T24:00:00.000Z',
      '2026-01-10T23:60:00.000Z',
      '2026-01-10T23:59:60.000Z',
      '0999-01-10T23:59:59.000Z',
      '1969-12-31T23:59:59.999Z',
      '0050-01-01T00:00:00.000Z',
      '2026-01-1OT00:00:00.000Z',
      '2026-01-10 00:00:00.000Z',
      '2026-01-10T00:00:00,000Z',
      '2026-01-10T00:00:00.000z',
      '2026/01/10T00:00:00.000Z',
      '+02026-01-10T00:00:00.0Z',
      '2026-01-10T00:00:00.000+',
      '  2026-01-10T00:00:00.00Z',
      '2026-01-10T00:00:00.000',
      '2026-01-10',
      'not a time at all, really',
      '2026-1-10T00:00:00.0000Z',
      '２026-01-10T00:00:00.000Z',
    ];
    for (const c of cases) same(c);
  });

  it('takes epoch seconds and milliseconds, and nothing else', () => {
    expect(toMs(1_700_000_000)).toBe(1_700_000_000_000);
    expect(toMs(1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(toMs('')).toBeNull();
    expect(toMs(null)).toBeNull();
    expect(toMs(Number.NaN)).toBeNull();
  });
});
