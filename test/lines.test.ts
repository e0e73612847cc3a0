// The line reader under the index: complete lines only, bounded memory, the long-line probe.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines, PROBE } from '../lib/index/lines.js';
import { tempHome } from './helpers.js';

function file(content: string | Buffer): string {
  const p = path.join(tempHome(), 'f.jsonl');
  fs.writeFileSync(p, content);
  return p;
}

function collect(p: string, from = 0, want?: (h: Buffer) => boolean, max?: number) {
  const lines: { text: string; complete: boolean; len: number }[] = [];
  const size = fs.statSync(p).size;
  const r = readLines(p, from, size, (b, s, e, c) => lines.push({ text: b.toString('utf8', s, Math.min(e, s + 64)), complete: c, len: e - s }), want, max);
  return { lines, ...r };
}

describe('readLines', () => {
  it('yields complete lines, strips CR and a BOM, leaves a partial last line', () => {
    const p = file('\ufeffone\r\ntwo\n\nthree');
    const r = collect(p);
    expect(r.lines.map((l) => l.text)).toEqual(['one', 'two', '']);
    expect(r.offset).toBe(Buffer.byteLength('\ufeffone\r\ntwo\n\n'));
    fs.appendFileSync(p, ' more\nfour\n');
    const r2 = collect(p, r.offset);
    expect(r2.lines.map((l) => l.text)).toEqual(['three more', 'four']);
    expect(r2.offset).toBe(fs.statSync(p).size);
  });

  it('tells where each line starts in the file: its bytes read back there are the line', () => {
    const long = 'b'.repeat(300 << 10); // spans reads
    const p = file(`\ufeff{"a":1}\r\n${long}\n\nx\r\ny\npartial`);
    const bytes = fs.readFileSync(p);
    for (const from of [0, bytes.indexOf('b')]) {
      const seen: { at: number; line: string }[] = [];
      readLines(p, from, bytes.length, (b, s, e, _c, at) => seen.push({ at, line: b.toString('latin1', s, e) }));
      expect(seen.length).toBe(from ? 4 : 5);
      for (const { at, line } of seen) expect(bytes.toString('latin1', at, at + line.length)).toBe(line);
    }
  });

  it('assembles lines that span reads', () => {
    const big = 'a'.repeat(3 << 20);
    const r = collect(file(`x\n${big}\ny\n`));
    expect(r.lines.map((l) => l.len)).toEqual([1, 3 << 20, 1]);
    expect(r.lines.every((l) => l.complete)).toBe(true);
  });

  it('keeps only the ends of an unwanted long line', () => {
    const big = '{"type":"skip","x":"' + 'b'.repeat(3 << 20) + '","timestamp":"2026-01-01T00:00:00.000Z"}';
    const seen: Buffer[] = [];
    const p = file(`${big}\nnext\n`);
    const lines: { s: string; c: boolean }[] = [];
    readLines(p, 0, fs.statSync(p).size, (b, s, e, c) => lines.push({ s: b.toString('utf8', s, e), c }), (h) => {
      seen.push(h);
      return !h.includes('"type":"skip"');
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.length).toBe(PROBE);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.c).toBe(false);
    expect(lines[0]!.s.length).toBeLessThanOrEqual(PROBE + 1024);
    expect(lines[0]!.s.startsWith('{"type":"skip"')).toBe(true);
    expect(lines[0]!.s.endsWith('"timestamp":"2026-01-01T00:00:00.000Z"}')).toBe(true);
    expect(lines[1]).toEqual({ s: 'next', c: true });
  });

  it('cuts a line over the cap and carries on', () => {
    const r = collect(file(`${'c'.repeat(5000)}\nok\n`), 0, undefined, 1000);
    expect(r.lines.map((l) => [l.len, l.complete])).toEqual([[1000, false], [2, true]]);
  });

  it('returns a fingerprint that changes when earlier bytes change', () => {
    const p = file('aaa\nbbb\n');
    const a = collect(p).tail;
    fs.writeFileSync(p, 'aXa\nbbb\n');
    expect(collect(p).tail).not.toBe(a);
  });
});
