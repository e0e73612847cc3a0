// Tool output held back to the end of a transcript (lib/search/held.ts): handed on in file order,
// only while it can change the results, read again from the file by offset.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canHoldLines, Held } from '../lib/search/held.js';
import { tempDir } from './helpers.js';

const isOutput = (line: Buffer) => line.toString('utf8').startsWith('{"out":');

/** a file of lines, and where each starts */
function file(lines: string[]): { file: string; at: number[] } {
  const f = path.join(tempDir(), 't.jsonl');
  const at: number[] = [];
  let n = 0;
  for (const l of lines) {
    at.push(n);
    n += Buffer.byteLength(l) + 1;
  }
  fs.writeFileSync(f, `${lines.join('\n')}\n`);
  return { file: f, at };
}

/** `copyBudget` 0: every line is held by its place in the file and read again */
function recorder(f: string, copyBudget = 0) {
  const got: string[] = [];
  const held = new Held(
    f,
    isOutput,
    (buf, s, e) => got.push(buf.toString('utf8', s, e)),
    (bytes, at) => got.push(`raw@${at}:${bytes.toString('utf8')}`),
    copyBudget,
  );
  return { got, held };
}

/** hold line i of `lines` (at its place `at[i]`), handing over a buffer that holds it among other bytes */
function hold(h: Held, lines: string[], at: number[], i: number): boolean {
  const pre = Buffer.from('{"noise":1}\n');
  const buf = Buffer.concat([pre, Buffer.from(lines[i]), Buffer.from('\n{"after":2}')]);
  return h.line(buf, pre.length, pre.length + Buffer.byteLength(lines[i]), at[i]);
}

describe('held tool output', () => {
  it('hands on held lines and raw text in file order, read again from the file', () => {
    const lines = ['{"first":1}', '{"out":"a"}', '{"user":"b"}', '{"out":"c — é"}'];
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    expect(hold(held, lines, at, 1)).toBe(true);
    held.raw(
      Buffer.from('xx HIT yy'),
      3,
      () => false,
      () => false,
    );
    expect(hold(held, lines, at, 3)).toBe(true);
    expect(got).toEqual([]);
    held.flush(
      () => false,
      () => false,
    );
    expect(got).toEqual(['{"out":"a"}', 'raw@3:xx HIT yy', '{"out":"c — é"}']);
    // handed on once
    held.flush(
      () => false,
      () => false,
    );
    expect(got).toHaveLength(3);
  });

  it('stops handing on once the rest could not change the results, or the search of the file ended', () => {
    const lines = Array.from({ length: 6 }, (_, i) => `{"out":"${i}"}`);
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    for (let i = 0; i < 6; i++) hold(held, lines, at, i);
    held.raw(
      Buffer.from('raw text'),
      0,
      () => false,
      () => false,
    );
    held.flush(
      () => got.length >= 2,
      () => false,
    );
    // raw text is judged on its own (no record id): moot for lines means moot here too
    expect(got).toEqual(['{"out":"0"}', '{"out":"1"}']);

    const b = recorder(f);
    for (let i = 0; i < 6; i++) hold(b.held, lines, at, i);
    b.held.flush(
      () => false,
      () => b.got.length >= 3,
    );
    expect(b.got).toEqual(['{"out":"0"}', '{"out":"1"}', '{"out":"2"}']);
  });

  it('tells lines apart from raw text when asking whether they are moot', () => {
    const lines = ['{"out":"x"}'];
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    hold(held, lines, at, 0);
    held.raw(
      Buffer.from('r'),
      0,
      () => false,
      () => false,
    );
    // a line may still extend a kept hit's record ids where raw text could not
    held.flush(
      (line) => !line,
      () => false,
    );
    expect(got).toEqual(['{"out":"x"}']);
  });

  it('skips a held line the file no longer holds (cut, or rewritten with other bytes there)', () => {
    const lines = ['{"first":1}', '{"out":"kept"}', '{"out":"gone"}'];
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    hold(held, lines, at, 1);
    hold(held, lines, at, 2);
    // rewritten: the first held line's place now holds a prompt; the file ends before the second
    fs.writeFileSync(f, '{"first":1}\n{"user":"typed!"}\n');
    held.flush(
      () => false,
      () => false,
    );
    expect(got).toEqual([]);
  });

  it('hands on what it holds once the raw text held passes its budget (memory stays bounded)', () => {
    const lines = ['{"out":"early"}'];
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    hold(held, lines, at, 0);
    const piece = Buffer.alloc(300 << 10, 'a');
    for (let i = 0; i < 3; i++)
      held.raw(
        piece,
        0,
        () => false,
        () => false,
      );
    expect(got).toEqual([]);
    held.raw(
      piece,
      0,
      () => false,
      () => false,
    );
    // past 1 MiB: everything so far, in order
    expect(got).toHaveLength(5);
    expect(got[0]).toBe('{"out":"early"}');
  });

  it('copies held lines while they fit its budget, so the file is not read again; past it, holds them by their place', () => {
    const lines = ['{"out":"aaaa"}', '{"out":"bbbb"}', '{"out":"cccc"}'];
    const { file: f, at } = file(lines);
    // room for two copies
    const { got, held } = recorder(f, 2 * lines[0].length);
    for (let i = 0; i < 3; i++) hold(held, lines, at, i);
    // the file is cut: only the line held by its place is lost
    fs.writeFileSync(f, '');
    held.flush(
      () => false,
      () => false,
    );
    expect(got).toEqual(['{"out":"aaaa"}', '{"out":"bbbb"}']);
  });

  it('holds no lines of a compressed transcript or without a test of tool output', () => {
    expect(canHoldLines('/x/rollout.jsonl.zst')).toBe(false);
    expect(canHoldLines('/x/s.jsonl')).toBe(true);
    const held = new Held(
      '/x/s.jsonl',
      undefined,
      () => {},
      () => {},
    );
    expect(held.line(Buffer.from('{"out":1}'), 0, 9, 0)).toBe(false);
  });
});
