// The search prefilter's case fold: SIMD module and the JavaScript fallback agree, and a folded
// needle is found in every casing of its word.
import { describe, expect, it } from 'vitest';
import { Folder, foldNeedle } from '../lib/search/fold.js';

describe('Folder', () => {
  it('folds ASCII letters of both cases to one byte, on lengths that are not multiples of 16', () => {
    const simd = new Folder();
    const js = new Folder(false);
    expect(simd.simd).toBe(true);
    expect(js.simd).toBe(false);
    for (const text of ['WebHook RETRY', 'x', 'A'.repeat(33), 'Ünïcödé WEBHOOK 😀 tail', 'no hook here']) {
      const src = Buffer.from(`..${text}..`);
      const want = Buffer.from(text).toString('latin1').toLowerCase().indexOf('webhook');
      const a = Buffer.from(simd.fold(src, 2, src.length - 2));
      const b = Buffer.from(js.fold(src, 2, src.length - 2));
      expect(a.length).toBe(src.length - 4);
      expect(a.equals(b)).toBe(true);
      expect(a.indexOf(foldNeedle('webhook'))).toBe(want);
    }
  });

  it('finds a needle in every casing and never misses one', () => {
    const f = new Folder();
    const n = foldNeedle(Buffer.from('retry_count', 'utf8').toString('latin1'));
    for (const w of ['retry_count', 'RETRY_COUNT', 'Retry_Count', 'rEtRy_CoUnT']) {
      const src = Buffer.from(`{"text":"set ${w} = 3"}`);
      expect(f.fold(src, 0, src.length).indexOf(n)).toBe(13);
    }
  });

  it('grows its memory for large inputs', () => {
    const f = new Folder();
    const big = Buffer.alloc(3 << 20, 'a');
    big.write('NEEDLE', (3 << 20) - 6);
    expect(f.fold(big, 0, big.length).indexOf(foldNeedle('needle'))).toBe((3 << 20) - 6);
  });
});
