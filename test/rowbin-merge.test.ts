// rows.bin after a change, made from the last one (lib/index/rowbin.ts mergeRecords): the records
// of the changed keys out, their new ones in where the database's order puts them (time newest
// first, an unknown time as 0, ties by id in UTF-8 byte order). Checked against the whole file
// written in that order, over many random changes with many ties, unknown times and ids whose
// UTF-8 order is not JavaScript's.
import { describe, expect, it } from 'vitest';
import { mergeRecords, readRowBin, rowBinHead, rowRecord } from '../lib/index/rowbin.js';
import type { Session } from '../lib/types.js';
import { byBytes } from '../lib/util/text.js';
import { must } from './helpers.js';

const home = '/home/u';
// ids that sort differently by UTF-16 units and by UTF-8 bytes (U+FF5E against U+1F600), and ASCII ones
const IDS = ['a', 'b', 'ab', '\uff5e', '\u{1f600}', 'z9', 'é'];

function session(n: number, t: number | null, v = 0): Session {
  const id = `${IDS[n % IDS.length]}-${n}`;
  return {
    key: `pi:${id}`,
    id,
    harness: 'pi',
    // (some directories end in another session's key: its bytes, then a tab, inside this record)
    cwd: n % 3 === 0 ? `/home/u/pi:${IDS[(n + 1) % IDS.length]}-${n + 1}` : `/home/u/p${n}`,
    title: `title ${n} v${v}`,
    firstPrompt: `title ${n} v${v}`,
    lastPrompt: null,
    lastReply: null,
    prompts: n,
    branch: null,
    model: null,
    started: t,
    updated: t,
    file: `/f/${n}`,
    hidden: false,
    hiddenReason: null,
    parent: null,
    forkedFrom: null,
  } as Session;
}

const at = (s: Session) => s.updated ?? s.started ?? 0;
const sorted = (ss: Session[]) => [...ss].sort((x, y) => at(y) - at(x) || byBytes(x.id, y.id));
const rec = (s: Session) => must(rowRecord(s, s.id, home));
const fileOf = (ss: Session[]) => Buffer.concat([rowBinHead('b1', home, ss.length), ...sorted(ss).map(rec)]);

/** A small deterministic generator (the same cases every run). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

describe('rows.bin made from the last one and the changed records', () => {
  it.each([
    ['a few keys at a time (each searched for in the bytes)', 0.02, 0.05],
    ['many keys at a time (every record’s key read)', 0.3, 0.6],
  ])('is the file written whole in the database’s order, change after change: %s', (_, drop, redo) => {
    const r = rng(7);
    // a few distinct times, so that ties are common; some unknown
    const time = () => (r() < 0.15 ? null : 1_000 + Math.floor(r() * 6));
    let live = new Map<string, Session>();
    let next = 0;
    for (; next < 40; next++) {
      const s = session(next, time());
      live.set(s.key, s);
    }
    for (let round = 0; round < 200; round++) {
      const old = must(readRowBin(fileOf([...live.values()])));
      const idOf = new Map([...live.values()].map((s) => [s.key, s.id]));
      const keys = new Set<string>();
      const after = new Map(live);
      for (const s of live.values()) {
        const p = r();
        if (p < drop) {
          after.delete(s.key);
          keys.add(s.key);
        } else if (p < redo) {
          after.set(s.key, session(Number(s.file.slice(3)), time(), round + 1));
          keys.add(s.key);
        }
      }
      for (let k = Math.floor(r() * 3); k > 0; k--, next++) {
        const s = session(next, time());
        after.set(s.key, s);
        keys.add(s.key);
      }
      const now = sorted([...keys].flatMap((k) => after.get(k) ?? [])).map((s) => ({ rec: rec(s), at: at(s), id: s.id }));
      const got = must(mergeRecords(old, keys, now, (k) => idOf.get(k) ?? null));
      const want = sorted([...after.values()]).map(rec);
      expect(got.count).toBe(want.length);
      expect(Buffer.concat(got.parts).equals(Buffer.concat(want))).toBe(true);
      // the records kept are runs of the last file: a change splits a run at most twice and adds its record
      expect(got.parts.length).toBeLessThanOrEqual(3 * keys.size + 1);
      live = after;
    }
  });

  it('gives up when a tied record’s id is not known (the caller writes the file whole)', () => {
    const ss = [session(1, 5), session(2, 5)];
    const old = must(readRowBin(fileOf(ss)));
    const put = session(3, 5);
    expect(mergeRecords(old, new Set([put.key]), [{ rec: rec(put), at: 5, id: put.id }], () => null)).toBeNull();
  });
});
