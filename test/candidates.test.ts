// TAB's session candidates written from rendered rows' bytes (lib/index/rowbin.ts printCandidates)
// must be exactly what the rows give decoded, one candidate each (lib/output.ts candidate, as
// lib/commands/complete.ts candidateLines writes them): descriptions clipped at 120 characters on
// either side of the clip, branches, wide and combining text, snapshot names, whole ids for a word
// longer than the short id, every filter; and nothing at all where the rows cannot tell.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { candidateLines } from '../lib/commands/complete.js';
import { eachRow, printCandidates, type RowBin, type RowFilter } from '../lib/index/rowbin.js';
import { printRowsOut, type RowsOutKey, RowsTape } from '../lib/index/rowsout.js';
import { CANDIDATE_WIDTH, candidate, candidateColumns, candidateParts } from '../lib/output.js';
import { under } from '../lib/select/filter.js';
import type { Harness, Session } from '../lib/types.js';
import { must, tempDir } from './helpers.js';
import { home, mk, names, now, odd, render } from './rows-sample.js';

function printed(bin: RowBin, word: string, f: RowFilter, at = now): string | null {
  const out: Buffer[] = [];
  // each block is written over once handed out: copied here (and decoded whole: a block may end inside a character)
  return printCandidates(bin, word, f, { readNames: () => names, now: at, write: (b) => out.push(Buffer.from(b)) })
    ? Buffer.concat(out).toString('utf8')
    : null;
}

/** The candidates from the rows decoded (eachRow), one `candidate` each; null where a listing must answer. */
function expected(bin: RowBin, word: string, f: RowFilter): string | null {
  const low = word.toLowerCase();
  const rows: { value: string; parts: string[] }[] = [];
  let exact = true;
  eachRow(
    bin,
    () => names,
    now,
    (r) => {
      if ((r.hidden && !f.all) || (f.harness && !f.harness.includes(r.harness)) || (f.dir && !under(r.cwd, f.dir))) return;
      const [key = '', short = '', when = '', harness = '', dir = '', branch = '', text = ''] = r.fields;
      if (key.includes(' ')) exact = false;
      const id = key.slice(key.indexOf(':') + 1);
      if (word !== '' && !id.toLowerCase().startsWith(low)) return;
      rows.push({ value: word.length > short.length ? id : short, parts: candidateParts(when, harness, dir, branch, text) });
    },
  );
  const cols = candidateColumns(rows.map((r) => r.parts));
  const out = rows.map((r) => candidate(r.value, r.parts, cols));
  return exact && (word === '' || out.length > 0) ? candidateLines(out) : null;
}

const filters: RowFilter[] = [];
for (const all of [false, true]) {
  for (const harness of [undefined, ['claude'], ['pi', 'codex']] as (Harness[] | undefined)[]) {
    for (const dir of [undefined, '/home/u', '/srv']) filters.push({ all, harness, dir });
  }
}
const words = [
  '',
  '0',
  '0000006',
  '00000061-3333',
  '00000061-3333-4333-8333-33333333333',
  'abcdef',
  'ABCDEF12-U',
  'zz',
  '表',
  'k',
  'kelvin-2',
  'KELVIN-22x',
];

describe('printCandidates', () => {
  it('writes exactly the candidates the decoded rows give, for every word and filter', () => {
    const bin = render(odd);
    for (const f of filters) for (const w of words) expect(printed(bin, w, f), JSON.stringify({ w, f })).toBe(expected(bin, w, f));
    const all = must(printed(bin, '', { all: true }));
    // both sides of the clip, and the rows that are not plain ASCII, are among them
    const descs = all
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(l.indexOf('\t') + 1));
    expect(descs.some((d) => d.length === CANDIDATE_WIDTH && d.endsWith('…'))).toBe(true);
    expect(descs.some((d) => d.length === CANDIDATE_WIDTH && !d.endsWith('…'))).toBe(true);
    expect(descs.some((d) => d.length === CANDIDATE_WIDTH - 1)).toBe(true);
    expect(all).toContain('日本語');
    expect(all).toContain('named session');
    expect(all).toContain('(feature/漢字-branch)');
    // a word longer than the short id inserts the whole id
    expect(printed(bin, '00000061-3333', {})).toMatch(/^00000061-3333-4333-8333-333333333333\t/);
    expect(printed(bin, 'kelvin', {})).toMatch(/^\u212aelvin-2\t/);
  });

  it('gives nothing where the listing must answer: a word that starts no id, an id with a space', () => {
    const bin = render(odd);
    expect(printed(bin, 'zz', {})).toBeNull();
    const spaced = render([...odd, mk(71, { id: 'has space', key: 'pi:has space', harness: 'pi' } as Partial<Session>)]);
    expect(expected(spaced, '', {})).toBeNull();
    expect(printed(spaced, '', {})).toBeNull();
    // (unless a filter leaves that row out)
    expect(printed(spaced, '', { harness: ['claude'] })).toBe(expected(spaced, '', { harness: ['claude'] }));
    expect(printed(render([]), '', {})).toBe('');
  });

  it('hands out the candidates in blocks a writer may reuse', () => {
    const bin = render(Array.from({ length: 3000 }, (_, i) => mk(100 + i, { title: `prompt ${i} ${'x'.repeat(i % 150)}` })));
    const blocks: number[] = [];
    const out: string[] = [];
    const write = (b: Buffer) => {
      blocks.push(b.length);
      out.push(Buffer.from(b).toString('utf8'));
      b.fill(0);
    };
    printCandidates(bin, '', { all: true }, { readNames: () => names, now, write });
    expect(blocks.length).toBeGreaterThan(1);
    expect(out.join('')).toBe(expected(bin, '', { all: true }));
  });
});

describe("complete.out (rows.out's kind for TAB on an empty word)", () => {
  const key: RowsOutKey = { id: 'b', home, names: 'abc:-' };
  it('renews the ages of recent candidates, clipped or not, plain or not, while each keeps its length', () => {
    // recent sessions (their ages renewed) with short and clipped descriptions, wide text among them
    const at = now - 3 * 60_000;
    const recent = [
      mk(1, { updated: at, started: at }),
      mk(2, { updated: at - 1000, started: at, title: `${'long prompt '.repeat(15)}` }),
      mk(3, { updated: at - 2000, started: at, title: `表 ${'wide prompt '.repeat(15)}` }),
    ];
    const bin = render([...recent, ...odd]);
    const file = path.join(tempDir(), 'complete.out');
    const tape = new RowsTape(now, null, true);
    const out: Buffer[] = [];
    expect(printCandidates(bin, '', {}, { readNames: () => names, now, write: (b) => out.push(Buffer.from(b)), tape })).toBe(true);
    tape.save(file, key);
    const first = Buffer.concat(out).toString('utf8');
    expect(first).toBe(expected(bin, '', {}));
    const kept = (t: number) => {
      const parts: Buffer[] = [];
      return printRowsOut(file, key, t, (b) => parts.push(Buffer.from(b))) ? Buffer.concat(parts).toString('utf8') : null;
    };
    expect(kept(now)).toBe(first);
    // 3m → 9m: the same length, renewed; at 10m the recent ones' ages are a character longer: not used
    for (const later of [now + 60_000, now + 6 * 60_000 + 30_000]) {
      expect(kept(later)).toBe(printed(bin, '', {}, later));
    }
    expect(kept(now + 7 * 60_000 + 30_000)).toBeNull();
    expect(fs.readFileSync(file, 'latin1').split('\n')[0]).toMatch(/ 1 \/home\/u$/);
  });
});
