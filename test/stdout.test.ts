// lib/util/stdout.ts: long strings and JSON arrays are written in pieces through one buffer, and
// what reaches the descriptor is byte for byte what the whole string would have been.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeJsonArray, writeTo } from '../lib/util/stdout.js';
import { tempDir } from './helpers.js';

function written(write: (fd: number) => void): Buffer {
  const file = path.join(tempDir(), 'out');
  const fd = fs.openSync(file, 'w');
  try {
    write(fd);
  } finally {
    fs.closeSync(fd);
  }
  return fs.readFileSync(file);
}

/** a session-like item of about `n` characters of text */
const item = (i: number, n: number, text = 'word ') => ({
  harness: 'pi',
  id: `id-${i}`,
  nested: { list: [1, 'two', null, { deep: true }], empty: [], none: {} },
  title: text.repeat(Math.ceil(n / text.length)).slice(0, n),
  score: i / 7,
});

describe('writeJsonArray', () => {
  const same = (items: unknown[]) =>
    expect(written((fd) => writeJsonArray(items, undefined, fd)).toString('utf8')).toBe(`${JSON.stringify(items, null, 2)}\n`);

  it('writes what JSON.stringify(items, null, 2) writes', () => {
    same([]);
    same([item(0, 10)]);
    same([1, 'two', null, [], {}, [[]], { a: [] }]);
    same([undefined, () => 1, { u: undefined }]);
  });

  it('each item as `as` makes it, one at a time', () => {
    const ids = Array.from({ length: 500 }, (_, i) => i);
    let live = 0;
    let most = 0;
    // (an item made is written before the next is: the objects of the whole array never all exist)
    const as = (i: number) => {
      live++;
      most = Math.max(most, live);
      return {
        ...item(i, 40),
        get done() {
          live--;
          return i;
        },
      };
    };
    const out = written((fd) => writeJsonArray(ids, as, fd)).toString('utf8');
    expect(JSON.parse(out)).toEqual(ids.map((i) => ({ ...item(i, 40), done: i })));
    expect(most).toBe(1);
  });

  it('across many flushes of its buffer, with characters of every width at its seams', () => {
    // ~768 KiB of buffer: items of 1, 2, 3 and 4 bytes a character (the last as surrogate pairs)
    for (const text of ['ascii ', 'é ', '… ', '😀 ']) same(Array.from({ length: 3000 }, (_, i) => item(i, 100 + (i % 97) * 7, text)));
  });

  it('an item longer than its buffer, first, in the middle and last, and lone surrogates as Buffer.from writes them', () => {
    const big = (i: number) => item(i, 600_000, 'x😀é ');
    const items = [big(0), item(1, 50), big(2), item(3, 50), big(4)];
    same(items);
    const lone = [{ t: 'a\ud800b' }, { t: '\udc00' }];
    expect(written((fd) => writeJsonArray(lone, undefined, fd)).equals(Buffer.from(`${JSON.stringify(lone, null, 2)}\n`, 'utf8'))).toBe(
      true,
    );
  });
});

describe('writeTo', () => {
  it('writes a long string in pieces without cutting a surrogate pair', () => {
    // a pair across each piece's end (256 Ki code units a piece), in strings long and short
    for (const pad of [0, 1, 2]) {
      const s = `${'a'.repeat((1 << 18) - 1 - pad)}${'😀'.repeat(200_000)}\ud800z`;
      expect(written((fd) => writeTo(fd, s)).equals(Buffer.from(s, 'utf8'))).toBe(true);
    }
    expect(written((fd) => writeTo(fd, 'short é'))).toEqual(Buffer.from('short é'));
    expect(written((fd) => writeTo(fd, Buffer.from([1, 2, 3])))).toEqual(Buffer.from([1, 2, 3]));
  });
});
