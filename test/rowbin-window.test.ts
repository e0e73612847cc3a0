// rows.bin opened and read a window at a time (lib/index/rowbin.ts openRowBin), as the no-change
// listing reads it: every consumer must print exactly what it prints from the whole file read at
// once (readRowBin), with windows small enough that records lie across their edges or are larger
// than they are; a damaged file is refused and closed; a file replaced while open is still read as
// it was; one cut short while open is an error, never rows made of other bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type PickState, writeLines } from '../fzf/feed.js';
import { byRecency } from '../lib/index/index.js';
import {
  anyIdStarts,
  type BinRow,
  closeRowBin,
  eachRow,
  lsRows,
  openRowBin,
  printRowBin,
  type RowBin,
  type RowFilter,
  readRowBin,
  rowBinChunks,
  setRowBinWindow,
} from '../lib/index/rowbin.js';
import type { Harness, Session } from '../lib/types.js';
import { must } from './helpers.js';

const home = '/home/u';
const now = Date.parse('2026-06-01T00:00:00Z');
const uuid = (n: number) => `${String(n).padStart(8, '0')}-4444-4444-8444-444444444444`;

function mk(n: number, o: Partial<Session> = {}): Session {
  const harness: Harness = (['claude', 'pi', 'codex'] as const)[n % 3];
  const t = n % 13 === 0 ? null : now - n * 3_600_000;
  return {
    key: `${harness}:${uuid(n)}`,
    id: uuid(n),
    harness,
    cwd: n % 7 === 0 ? `/srv/p${n}` : `/home/u/p${n}`,
    title: `title ${n}`,
    firstPrompt: `title ${n}`,
    lastPrompt: null,
    lastReply: null,
    prompts: n,
    branch: n % 4 === 0 ? null : `b${n}`,
    model: null,
    started: t,
    updated: t,
    file: `/f/${n}`,
    hidden: n % 5 === 0,
    hiddenReason: n % 5 === 0 ? 'empty' : null,
    parent: null,
    forkedFrom: null,
    ...o,
  } as Session;
}

const sessions: Session[] = [
  ...Array.from({ length: 60 }, (_, i) => mk(i + 1)),
  mk(100, { cwd: '/srv/日本語のプロジェクト', title: '表の題' }),
  // records far larger than the small windows below
  mk(101, { title: `a long title ${'x'.repeat(5000)}`, firstPrompt: 'long' }),
  mk(102, { cwd: `/home/u/${'deep/'.repeat(400)}x` }),
  mk(103, { harness: 'claude', key: `claude:${uuid(103)}`, title: null } as Partial<Session>),
];
const names = () => ({ [uuid(103)]: 'named by snapshot' });

function fileOf(ss: Session[]): string {
  const sorted = [...ss].sort(byRecency);
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'resume-rowbin-')), 'rows.bin');
  fs.writeFileSync(
    f,
    Buffer.concat(
      must(
        rowBinChunks(
          'b',
          home,
          sorted.map((s) => ({ s, short: s.id.slice(0, 8) })),
        ),
      ),
    ),
  );
  return f;
}

/** Everything the consumers of a RowBin make of it. */
function views(r: RowBin): unknown {
  const filters: RowFilter[] = [{}, { all: true }, { all: true, harness: ['pi'] }, { dir: '/srv' }, { all: true, dir: '/home/u' }];
  const print = (f: RowFilter) => {
    const out: Buffer[] = [];
    printRowBin(r, f, { readNames: names, now, write: (b) => out.push(Buffer.from(b)) });
    return Buffer.concat(out).toString('utf8');
  };
  const picker = (s: PickState, color: boolean) => {
    const out: Buffer[] = [];
    writeLines({ bin: r, names }, s, { home, color, now, status: true, write: (b) => out.push(Buffer.from(b)) });
    return Buffer.concat(out).toString('utf8');
  };
  const rows: BinRow[] = [];
  eachRow(r, names, now, (row) => rows.push(row));
  return {
    id: r.id,
    count: r.count,
    printed: filters.map(print),
    picker: [false, true].flatMap((all) =>
      [null, '/srv'].flatMap((dir) => [false, true].map((color) => picker({ all, harness: null, dir }, color))),
    ),
    rows,
    ls: filters.map((f) => lsRows(r, names, f)),
    ids: ['0000001', '00000103', 'ffff'].map((w) => anyIdStarts(r, w)),
  };
}

const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe('rows.bin read a window at a time', () => {
  afterEach(() => setRowBinWindow());

  it('every consumer gets what the whole file gives, whatever the window (records across its edges, records larger than it)', () => {
    const file = fileOf(sessions);
    const want = views(must(readRowBin(fs.readFileSync(file))));
    for (const w of [40, 64, 333, 4096, 1 << 20]) {
      setRowBinWindow(w);
      const r = must(openRowBin(file));
      expect(r, `window ${w}`).not.toBeNull();
      expect(views(r), `window ${w}`).toEqual(want);
      // asked for the whole file, it has it, and reads from it from then on
      expect(r.buf.equals(fs.readFileSync(file))).toBe(true);
      expect(views(r), `window ${w}, whole`).toEqual(want);
      closeRowBin(r);
    }
  });

  it('refuses a damaged file and closes it: truncated, extended, garbage, empty, another version, a length past the end, a count it cannot hold', () => {
    const file = fileOf(sessions);
    const good = fs.readFileSync(file);
    const long = Buffer.from(good);
    long.writeUInt32LE(0xffffff, long.indexOf(10) + 1 + 10);
    const badHarness = Buffer.from(good);
    badHarness[badHarness.indexOf(10) + 2] = 200;
    const damaged = [
      good.subarray(0, good.length - 3),
      Buffer.concat([good, Buffer.from([1, 2, 3])]),
      Buffer.from('garbage'),
      Buffer.alloc(0),
      Buffer.from(good.toString('latin1').replace(/^v\d+ /, 'v999 '), 'latin1'),
      Buffer.from(good.toString('latin1').replace(/^(v\d+ \S+ )\d+/, '$1999999999'), 'latin1'),
      long,
      badHarness,
    ];
    for (const w of [64, 1 << 20]) {
      setRowBinWindow(w);
      const before = openFds();
      damaged.forEach((bad, i) => {
        fs.writeFileSync(file, bad);
        expect(openRowBin(file), `damage ${i}, window ${w}`).toBeNull();
        expect(readRowBin(bad), `damage ${i}`).toBeNull();
      });
      expect(openRowBin(path.join(path.dirname(file), 'missing'))).toBeNull();
      expect(openFds()).toBe(before);
    }
  });

  it('a file replaced while open is read as it was opened; one cut short is an error, not rows of other bytes', () => {
    setRowBinWindow(64);
    const file = fileOf(sessions);
    const want = views(must(readRowBin(fs.readFileSync(file))));
    const r = must(openRowBin(file));
    // replaced as resume replaces it: a new file renamed over the name
    const other = fileOf([mk(500), mk(501)]);
    fs.renameSync(other, file);
    expect(views(r)).toEqual(want);
    closeRowBin(r);
    // cut short in place (not something resume does): reading the records throws
    const f2 = fileOf(sessions);
    const r2 = must(openRowBin(f2));
    fs.truncateSync(f2, 200);
    expect(() => printRowBin(r2, { all: true }, { readNames: names, now, write: () => {} })).toThrow(/cut short/);
    closeRowBin(r2);
  });
});
