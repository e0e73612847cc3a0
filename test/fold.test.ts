// The search prefilter's case fold: SIMD module and the JavaScript fallback agree, and a folded
// needle is found in every casing of its word.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Folder, findIn, foldNeedle, Needle } from '../lib/search/fold.js';

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

  it('reads a file piece by piece with the end of each piece carried in front of the next (foldNext), for any carry', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-fold-'));
    try {
      // bytes of every value, seeded: the views must be the file's own bytes, folded, in order
      let seed = 777;
      const data = Buffer.alloc(300_000);
      for (let i = 0; i < data.length; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        data[i] = seed >> 8;
      }
      const file = path.join(dir, 'f');
      fs.writeFileSync(file, data);
      const folded = Buffer.from(new Folder(false).fold(data, 0, data.length));
      const fd = fs.openSync(file, 'r');
      try {
        // carries below, at and past the 64-byte boundary the bytes are read to; odd read sizes
        for (const [carry, n] of [
          [0, 4096],
          [1, 1000],
          [16, 65536],
          [63, 70_001],
          [64, 3333],
          [100, 131072],
          [200, 99_999],
        ] as const) {
          for (const f of [new Folder(), new Folder(false)]) {
            let pos = 0;
            let kept = 0;
            let len = 0;
            for (;;) {
              const view = f.foldNext(fd, pos, n, kept, len);
              const got = view.length - kept;
              expect(view.equals(folded.subarray(pos - kept, pos + got)), `carry ${carry}, at ${pos}`).toBe(true);
              if (got <= 0) break;
              pos += got;
              len = view.length;
              kept = Math.min(carry, len);
            }
            expect(pos).toBe(data.length);
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('grows its memory for large inputs', () => {
    const f = new Folder();
    const big = Buffer.alloc(3 << 20, 'a');
    big.write('NEEDLE', (3 << 20) - 6);
    expect(f.fold(big, 0, big.length).indexOf(foldNeedle('needle'))).toBe((3 << 20) - 6);
  });
});

describe('a needle found from its rarest byte', () => {
  it('finds what indexOf finds, from any start, wherever its rarest byte is', () => {
    // a small alphabet: many partial matches and near misses; seeded, so a failure repeats
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const abc = 'aAe-24z_ "q';
    const text = (n: number) => Array.from({ length: n }, () => abc[rnd(abc.length)]).join('');
    const f = new Folder();
    let found = 0;
    for (let t = 0; t < 400; t++) {
      const src = Buffer.from(text(200 + rnd(400)));
      const hay = Buffer.from(f.fold(src, 0, src.length));
      const key = text(1 + rnd(8));
      const n = new Needle(key);
      const plain = foldNeedle(key);
      for (const from of [0, rnd(hay.length), hay.length - 1, hay.length + 3]) {
        const want = hay.indexOf(plain, from);
        expect(findIn(hay, n, from)).toBe(want);
        if (want >= 0) found++;
      }
    }
    expect(found).toBeGreaterThan(200);
  });

  it('looks from the rarest byte that leaves three after it: `-` in `api-24`, `f` in `café`', () => {
    expect(new Needle('api-24').at).toBe(3);
    expect(new Needle('pi-24z').at).toBe(3);
    expect(new Needle(Buffer.from('café', 'utf8').toString('latin1')).at).toBe(2);
    // the rarest byte too near the end (the `z`, the `4`); all as common: the first
    expect(new Needle('az').at).toBe(0);
    expect(new Needle('data4').at).toBe(0);
    expect(new Needle('eeee').at).toBe(0);
    // seven bytes or more: the whole needle (the search skips by its length)
    expect(new Needle('authentication').at).toBe(0);
    expect(new Needle('api-24zz').at).toBe(0);
    const hay = Buffer.from('xx api-2 api-24 api-24');
    expect(findIn(hay, new Needle('api-24'))).toBe(9);
    expect(findIn(hay, new Needle('api-24'), 10)).toBe(16);
    expect(findIn(hay, new Needle('api-25'))).toBe(-1);
  });
});
