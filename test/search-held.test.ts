// Tool output held back to the end of a transcript (lib/search/held.ts): handed on in file order,
// only while it can change the results, read again from the file by offset.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Held, canHoldLines } from '../lib/search/held.js';
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
  fs.writeFileSync(f, lines.join('\n') + '\n');
  return { file: f, at };
}

function recorder(f: string) {
  const got: string[] = [];
  const held = new Held(
    f,
    isOutput,
    (buf, s, e) => got.push(buf.toString('utf8', s, e)),
    (bytes, at) => got.push(`raw@${at}:${bytes.toString('utf8')}`),
  );
  return { got, held };
}

describe('held tool output', () => {
  it('hands on held lines and raw text in file order, read again from the file', () => {
    const lines = ['{"first":1}', '{"out":"a"}', '{"user":"b"}', '{"out":"c — é"}'];
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    expect(held.line(at[1]!, Buffer.byteLength(lines[1]!))).toBe(true);
    held.raw(Buffer.from('xx HIT yy'), 3, () => false, () => false);
    expect(held.line(at[3]!, Buffer.byteLength(lines[3]!))).toBe(true);
    expect(got).toEqual([]);
    held.flush(() => false, () => false);
    expect(got).toEqual(['{"out":"a"}', 'raw@3:xx HIT yy', '{"out":"c — é"}']);
    // handed on once
    held.flush(() => false, () => false);
    expect(got).toHaveLength(3);
  });

  it('stops handing on once the rest could not change the results, or the search of the file ended', () => {
    const lines = Array.from({ length: 6 }, (_, i) => `{"out":"${i}"}`);
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    for (let i = 0; i < 6; i++) held.line(at[i]!, lines[i]!.length);
    held.raw(Buffer.from('raw text'), 0, () => false, () => false);
    held.flush(() => got.length >= 2, () => false);
    // raw text is judged on its own (no record id): moot for lines means moot here too
    expect(got).toEqual(['{"out":"0"}', '{"out":"1"}']);

    const b = recorder(f);
    for (let i = 0; i < 6; i++) b.held.line(at[i]!, lines[i]!.length);
    b.held.flush(() => false, () => b.got.length >= 3);
    expect(b.got).toEqual(['{"out":"0"}', '{"out":"1"}', '{"out":"2"}']);
  });

  it('tells lines apart from raw text when asking whether they are moot', () => {
    const { file: f, at } = file(['{"out":"x"}']);
    const { got, held } = recorder(f);
    held.line(at[0]!, 11);
    held.raw(Buffer.from('r'), 0, () => false, () => false);
    // a line may still extend a kept hit's record ids where raw text could not
    held.flush((line) => !line, () => false);
    expect(got).toEqual(['{"out":"x"}']);
  });

  it('skips a held line the file no longer holds (cut, or rewritten with other bytes there)', () => {
    const lines = ['{"first":1}', '{"out":"kept"}', '{"out":"gone"}'];
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    held.line(at[1]!, lines[1]!.length);
    held.line(at[2]!, lines[2]!.length);
    // rewritten: the first held line's place now holds a prompt; the file ends before the second
    fs.writeFileSync(f, '{"first":1}\n{"user":"typed!"}\n');
    held.flush(() => false, () => false);
    expect(got).toEqual([]);
  });

  it('hands on what it holds once the raw text held passes its budget (memory stays bounded)', () => {
    const lines = ['{"out":"early"}'];
    const { file: f, at } = file(lines);
    const { got, held } = recorder(f);
    held.line(at[0]!, lines[0]!.length);
    const piece = Buffer.alloc(300 << 10, 'a');
    for (let i = 0; i < 3; i++) held.raw(piece, 0, () => false, () => false);
    expect(got).toEqual([]);
    held.raw(piece, 0, () => false, () => false);
    // past 1 MiB: everything so far, in order
    expect(got).toHaveLength(5);
    expect(got[0]).toBe('{"out":"early"}');
  });

  it('holds no lines of a compressed transcript or without a test of tool output', () => {
    expect(canHoldLines('/x/rollout.jsonl.zst')).toBe(false);
    expect(canHoldLines('/x/s.jsonl')).toBe(true);
    const held = new Held('/x/s.jsonl', undefined, () => {}, () => {});
    expect(held.line(0, 10)).toBe(false);
  });
});
