// The age column: every boundary of the compact age, and the code the listing caches texts by
// giving exactly the text age gives.
import { describe, expect, it } from 'vitest';
import { age, ageCode, ageText } from '../lib/util/time.js';

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
