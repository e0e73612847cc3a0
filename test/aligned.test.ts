// The picker's list from rendered rows written from their bytes (lib/index/rowbin.ts printAligned)
// must be exactly the lines fzf/feed.ts linesOf makes from the same rows (decoded, aligned by
// alignLine): ASCII rows copied, everything else (wide and combining characters, labels that end in
// a blank or are empty, snapshot names) through alignLine, every filter and colour, and rows.bin
// with an append's patch over it (records in a second buffer).
import { describe, expect, it } from 'vitest';
import { linesOf, type PickState, writeLines } from '../fzf/feed.js';
import { dirFilterable, printAligned, type RowBin } from '../lib/index/rowbin.js';
import type { Harness, Session } from '../lib/types.js';
import { home, mk, names, now, odd, render } from './rows-sample.js';

function printed(bin: RowBin, s: PickState, color: boolean, status: boolean): string {
  const out: Buffer[] = [];
  writeLines({ bin, names: () => names }, s, { home, color, now, status, write: (b) => out.push(Buffer.from(b)) });
  return Buffer.concat(out).toString('utf8');
}

function expected(bin: RowBin, s: PickState, color: boolean, status: boolean): string {
  const lines = linesOf({ bin, names: () => names }, s, { home, color, now });
  return (status ? lines : lines.slice(1)).map((l) => `${l}\n`).join('');
}

const states: PickState[] = [];
for (const all of [false, true]) {
  for (const harness of [null, ['claude'], ['pi', 'codex']] as (Harness[] | null)[]) {
    for (const dir of [null, '/home/u', '/srv']) states.push({ all, harness, dir });
  }
}

describe('printAligned', () => {
  it('writes exactly the lines linesOf makes, for every filter, with and without colour and status', () => {
    const bin = render(odd);
    // (a directory filter is applied to rows that can tell each session's directory)
    expect(dirFilterable(bin)).toBe(true);
    for (const s of states)
      for (const color of [false, true])
        for (const status of [false, true])
          expect(printed(bin, s, color, status), JSON.stringify({ s, color, status })).toBe(expected(bin, s, color, status));
    // the wide and trimmed rows are among those shown
    const all = printed(bin, { all: true, harness: null, dir: null }, false, true);
    expect(all).toContain('日本語');
    expect(all).toContain('named session');
    expect(all.split('\n')[0]).toMatch(/^\t/);
  });

  it('leaves out a column no shown row fills (no branch anywhere), as alignRows does', () => {
    const bin = render(Array.from({ length: 8 }, (_, i) => mk(40 + i * 4, { branch: null } as Partial<Session>)));
    for (const s of states) for (const color of [false, true]) expect(printed(bin, s, color, true)).toBe(expected(bin, s, color, true));
  });

  it('no rows, or only hidden ones: the status line alone', () => {
    const bin = render([mk(5), mk(10)]);
    const s: PickState = { all: false, harness: null, dir: null };
    expect(printed(bin, s, false, true)).toBe(expected(bin, s, false, true));
    expect(printed(bin, s, false, false)).toBe('');
    expect(printed(render([]), s, true, true)).toBe(expected(render([]), s, true, true));
  });

  it('hands out the lines in blocks a writer may reuse', () => {
    const bin = render(Array.from({ length: 3000 }, (_, i) => mk(100 + i)));
    const s: PickState = { all: true, harness: null, dir: null };
    const blocks: string[] = [];
    printAligned(bin, s, { readNames: () => names, now, color: false, head: () => '', write: (b) => blocks.push(b.toString('utf8')) });
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.join('')).toBe(expected(bin, s, false, false));
  });
});
