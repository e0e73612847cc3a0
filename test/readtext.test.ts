// lib/util/fsx.ts readText: a file's text as readFileSync(file, 'utf8') gives it, a large file read a
// piece at a time (ASCII pieces as latin1, then UTF-8 through a decoder that carries a character cut
// between two pieces).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readText } from '../lib/util/fsx.js';
import { tempDir } from './helpers.js';

const MiB = 1 << 20;

function same(bytes: Buffer): void {
  const file = path.join(tempDir(), 'text');
  fs.writeFileSync(file, bytes);
  expect(readText(file)).toBe(fs.readFileSync(file, 'utf8'));
}

describe('readText', () => {
  it('gives what a UTF-8 read gives, for small and empty files', () => {
    same(Buffer.alloc(0));
    same(Buffer.from('{"a":"b"}\n'));
    same(Buffer.from('héllo wörld 🐧\n'));
    same(Buffer.from([0x61, 0xff, 0xfe, 0x62])); // not UTF-8: replacement characters, as Node gives
  });

  it('reads a large ASCII file in pieces, at and around the piece size', () => {
    for (const n of [MiB, MiB + 1, 3 * MiB - 1, 3 * MiB + 17]) same(Buffer.alloc(n, 'abcdefghij\n'));
  });

  it('decodes a character of 2, 3 or 4 bytes cut between two pieces, after ASCII pieces and with more after', () => {
    for (const ch of ['é', '€', '🐧']) {
      const b = Buffer.from(ch);
      for (let cut = 1; cut < b.length; cut++) {
        // the character starts `cut` bytes before the end of the second piece
        const head = Buffer.alloc(2 * MiB - cut, 'x');
        same(Buffer.concat([head, b, Buffer.from(`tail ${ch.repeat(1000)}`)]));
      }
    }
  });

  it('keeps a byte sequence that is not UTF-8 at a piece seam as the whole read would', () => {
    same(Buffer.concat([Buffer.alloc(MiB - 1, 'y'), Buffer.from([0xe2, 0x82]), Buffer.alloc(10, 'z')]));
    same(Buffer.concat([Buffer.alloc(MiB + 5, 'y'), Buffer.from([0xf0, 0x9f])]));
  });
});
