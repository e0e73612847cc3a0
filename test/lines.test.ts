// The line reader under the index: complete lines only, bounded memory, the long-line probe.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBE, readLines, tailHex } from '../lib/index/lines.js';
import { CHUNK } from '../lib/util/fsx.js';
import { tempHome } from './helpers.js';

function file(content: string | Buffer): string {
  const p = path.join(tempHome(), 'f.jsonl');
  fs.writeFileSync(p, content);
  return p;
}

function collect(p: string, from = 0, want?: (h: Buffer) => boolean, max?: number) {
  const lines: { text: string; complete: boolean; len: number }[] = [];
  const size = fs.statSync(p).size;
  const r = readLines(
    p,
    from,
    size,
    (b, s, e, c) => lines.push({ text: b.toString('utf8', s, Math.min(e, s + 64)), complete: c, len: e - s }),
    { wantLong: want, maxLine: max },
  );
  return { lines, ...r };
}

/** Lines of seeded random lengths (the same every run): around the read size, the probe and the kept
 * tail, some ending a few bytes before or after a read's end; each starts SKIP or KEEP, some end in a CR. */
function randomLines(): Buffer[] {
  let seed = 11;
  const rnd = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const lens = [
    0,
    1,
    5,
    40,
    1023,
    1024,
    1025,
    2000,
    PROBE - 1,
    PROBE,
    PROBE + 1,
    PROBE + 500,
    PROBE + 1024,
    PROBE + 1025,
    CHUNK - 3,
    CHUNK + 7,
    2 * CHUNK + 100,
  ];
  const lines: Buffer[] = [];
  let size = 0;
  while (size < 48 * CHUNK) {
    // some lines sized to end a few bytes before or after a read's end
    const toEdge = CHUNK - (size % CHUNK);
    const len = rnd(4) === 0 ? Math.max(0, toEdge - 1 + rnd(5) - 2) : rnd(3) === 0 ? lens[rnd(lens.length)] : rnd(3000);
    const skip = rnd(2) === 0 ? 'SKIP' : 'KEEP';
    const crlf = rnd(4) === 0;
    const body = Buffer.alloc(len, 0x61);
    for (let k = 0; k < len; k += 97) body[k] = 0x30 + (k % 10);
    body.write(skip, 0, Math.min(len, 4), 'latin1');
    if (crlf && len > 0) body[len - 1] = 13;
    lines.push(body);
    size += len + 1;
  }
  return lines;
}

/** A line as the reader hands it over: where it starts, its bytes (latin1), whether whole. */
type Handed = { at: number; text: string; c: boolean };

/** What the reader must hand over for `lines`, read by CHUNK and asking `want` about a long line's
 * first PROBE bytes; `asks`, how many times it must ask. */
function modelOf(lines: Buffer[], want: (h: Buffer) => boolean): { model: Handed[]; asks: number } {
  const model: Handed[] = [];
  let at = 0;
  let asks = 0;
  for (const l of lines) {
    const nl = at + l.length;
    const spans = Math.floor(at / CHUNK) < Math.floor(nl / CHUNK);
    const whole = l.length > 0 && l[l.length - 1] === 13 ? l.subarray(0, -1) : l;
    if (!spans || l.length < PROBE) model.push({ at, text: whole.toString('latin1'), c: true });
    else {
      asks++;
      if (want(l.subarray(0, PROBE))) model.push({ at, text: whole.toString('latin1'), c: true });
      else
        model.push({
          at,
          text: Buffer.concat([l.subarray(0, PROBE), l.subarray(Math.max(PROBE, l.length - 1024))]).toString('latin1'),
          c: false,
        });
    }
    at = nl + 1;
  }
  return { model, asks };
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
    const big = `{"type":"skip","x":"${'b'.repeat(3 << 20)}","timestamp":"2026-01-01T00:00:00.000Z"}`;
    const seen: Buffer[] = [];
    const p = file(`${big}\nnext\n`);
    const lines: { s: string; c: boolean }[] = [];
    readLines(p, 0, fs.statSync(p).size, (b, s, e, c) => lines.push({ s: b.toString('utf8', s, e), c }), {
      wantLong: (h) => {
        seen.push(h);
        return !h.includes('"type":"skip"');
      },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0].length).toBe(PROBE);
    expect(lines).toHaveLength(2);
    expect(lines[0].c).toBe(false);
    expect(lines[0].s.length).toBeLessThanOrEqual(PROBE + 1024);
    expect(lines[0].s.startsWith('{"type":"skip"')).toBe(true);
    expect(lines[0].s.endsWith('"timestamp":"2026-01-01T00:00:00.000Z"}')).toBe(true);
    expect(lines[1]).toEqual({ s: 'next', c: true });
  });

  it('cuts a line over the cap and carries on', () => {
    const r = collect(file(`${'c'.repeat(5000)}\nok\n`), 0, undefined, 1000);
    expect(r.lines.map((l) => [l.len, l.complete])).toEqual([
      [1000, false],
      [2, true],
    ]);
  });

  it('returns a fingerprint that changes when earlier bytes change', () => {
    const p = file('aaa\nbbb\n');
    const a = collect(p).tail;
    fs.writeFileSync(p, 'aXa\nbbb\n');
    expect(collect(p).tail).not.toBe(a);
  });

  it('hands over every line as a model of the reads says, whatever pieces the reads cut it in (probe, ends, CRLF; random lengths around the read size)', () => {
    // Lines that start and end in one read are handed over whole. A line that spans reads is asked
    // about once its first PROBE bytes are in (a shorter one is whole): wanted, it is whole; not, it
    // is its first PROBE bytes and its last TAIL (1,024) bytes, as they are (a CR included).
    const lines = randomLines();
    const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
    const p = file(bytes);
    const want = (h: Buffer) => !h.subarray(0, 4).equals(Buffer.from('SKIP'));
    const got: Handed[] = [];
    let asked = 0;
    readLines(p, 0, bytes.length, (b, s, e, c, at) => got.push({ at, text: b.toString('latin1', s, e), c }), {
      wantLong: (h) => {
        asked++;
        expect(h.length).toBe(PROBE);
        return want(h);
      },
    });
    const { model, asks } = modelOf(lines, want);
    expect(asks).toBeGreaterThan(10);
    expect(asked).toBe(asks);
    expect(got.length).toBe(model.length);
    for (let i = 0; i < model.length; i++) expect(got[i], `line ${i}`).toEqual(model[i]);
  });

  it('fingerprints from the bytes it read what tailHex reads again from the file (short files, a last line across reads, a partial last line, from an offset)', () => {
    const cases: string[] = [
      'a\n',
      `abc\n${'x'.repeat(10)}`,
      `${'x'.repeat(20)}\n${'y'.repeat(5000)}\n`,
      `${'z'.repeat(CHUNK - 10)}\n${'w'.repeat(40)}\n`,
      `${'q'.repeat(CHUNK + 5)}\ntail part`,
      `${'r'.repeat(CHUNK - 1)}\n`,
      `${'r'.repeat(CHUNK)}\n${'s'.repeat(2 * CHUNK)}\nleft`,
      `${Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n')}\n`,
    ];
    for (const text of cases) {
      const p = file(text);
      const size = fs.statSync(p).size;
      for (const from of [0, text.indexOf('\n') + 1]) {
        const r = readLines(p, from, size, () => {});
        const fd = fs.openSync(p, 'r');
        try {
          expect(r.tail, `${text.length} bytes from ${from}`).toBe(tailHex(fd, r.offset));
        } finally {
          fs.closeSync(fd);
        }
      }
    }
  });
});
