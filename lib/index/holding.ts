// The sessions of the stored listing whose record holds every one of some words, found in the
// bytes of list.json so that only those records are parsed: completing a word (`resume web<TAB>`)
// at 22,000 sessions parsed the whole ~24 MB listing (~0.6 s of a ~1.1 s TAB). list.json is folded
// as search folds a file (lib/search/fold.ts: each byte ORed with 0x20), each word is looked for
// with a native indexOf, and list.idx says which record a hit is in.
//
// What is found is a superset of what resolve's words match, never less: a record holds more than
// the fields words are matched against, the fold pairs a few punctuation marks, and a word that
// JSON would write otherwise than as its bytes, or that may name a path, is not looked for this way
// at all (null: the caller parses the whole listing). The caller matches what is found exactly.
import fs from 'node:fs';
import type { Ctx, Session } from '../types.js';
import { idxCount, indexFiles, openListing } from './index.js';
import { applyPatch } from './listpatch.js';
import { recordHolding } from './overlay.js';
import { Folder, Needle, findIn } from '../search/fold.js';
import { readText } from '../util/fsx.js';
import { digits } from '../util/time.js';

export interface Holding {
  /** the sessions whose record holds every word (or may), newest first */
  sessions: Session[];
  /** the short id of every session of the listing found (as the listing has them) */
  shorts: Map<string, string>;
}

// The two characters whose lower case is (or holds) an ASCII letter, as their bytes fold: a record
// holding one may match `i` or `k` without holding the letter itself.
// (made when first asked: this module is in the bundle of every `resume rows`, which never asks)
let foldsToIk: Needle[] | undefined;
const dottedIKelvin = (): Needle[] => (foldsToIk ??= [new Needle(Buffer.from('\u0130', 'utf8').toString('latin1')), new Needle(Buffer.from('\u212a', 'utf8').toString('latin1'))]);
/** bytes of list.json read and folded at a time */
const CHUNK = 1 << 20;

/**
 * The folded needles of a plainWord: its bytes, and for a word with `i` or `k` the two characters
 * whose lower case holds that letter (a text holding one may match without holding the letter).
 */
export function wordNeedles(w: string): Needle[] {
  const list = [new Needle(w.toLowerCase())];
  if (/[ik]/i.test(w)) list.push(...dottedIKelvin());
  return list;
}

/** Can a word be looked for as its folded bytes? Printable ASCII that JSON writes as it is. */
export function plainWord(w: string): boolean {
  return /^[\x21-\x7e]+$/.test(w) && !/["\\]/.test(w);
}

/**
 * The sessions of the build check.bin names whose listing record holds every word (case-folded
 * bytes; see the top), with their short ids. `names`: the snapshot names by Claude session id (a
 * name titles an untitled session, so a word in it counts as held). Null when this cannot tell: no
 * words, a word that is not plainWord, no listing or list.idx of that build, anything malformed.
 */
export function sessionsHolding(ctx: Ctx, words: string[], names: Record<string, string> = {}): Holding | null {
  if (words.length === 0 || !words.every(plainWord)) return null;
  const files = indexFiles(ctx);
  const open = openListing(files);
  if (!open) return null;
  const { fd, head, patch } = open;
  try {
    // list.idx: `key\tshort\toffset\tlength` per record, in list.json's order
    // (read as bytes and decoded apart: Node 20's own UTF-8 read of list.idx was ~10 ms of a TAB at 22,000 sessions)
    const idx = readText(files.idx);
    const nl = idx.indexOf('\n');
    const count = nl < 0 ? null : idxCount(idx.slice(0, nl), head.id);
    if (count == null) return null;
    // where each line's key and short id lie (sliced only for the records a word is in) and its
    // record's offset and length; a line's tabs are found in place (a split of 22,000 lines into their
    // fields was ~40 ms of a TAB, and a string for every key and number ~10 ms more)
    const lineAt = new Int32Array(count);
    const tab1 = new Int32Array(count);
    const tab2 = new Int32Array(count);
    const at = new Float64Array(count);
    const len = new Float64Array(count);
    // a field with a tab of its own leaves a length that is no number: an offset or length is 1 to
    // 15 digits, else -1
    const number = (a: number, b: number) => (b > a && b - a <= 15 ? digits(idx, a, b - a) : -1);
    let p = nl + 1;
    for (let i = 0; i < count; i++) {
      const e = idx.indexOf('\n', p);
      const t1 = idx.indexOf('\t', p);
      const t2 = t1 < 0 ? -1 : idx.indexOf('\t', t1 + 1);
      const t3 = t2 < 0 ? -1 : idx.indexOf('\t', t2 + 1);
      // three tabs within the line
      if (e < 0 || t3 < 0 || t3 > e) return null;
      lineAt[i] = p;
      tab1[i] = t1;
      tab2[i] = t2;
      at[i] = number(t2 + 1, t3);
      len[i] = number(t3 + 1, e);
      if (at[i]! < 0 || len[i]! < 0 || (i > 0 && at[i]! < at[i - 1]! + len[i - 1]!)) return null;
      p = e + 1;
    }
    const keyOf = (r: number) => idx.slice(lineAt[r]!, tab1[r]!);
    if (p !== idx.length) return null;
    const size = fs.fstatSync(fd).size;
    if (count > 0 && at[count - 1]! + len[count - 1]! > size) return null;
    // The records are read in runs of about CHUNK bytes (a record longer than that alone), each run
    // into the same memory: a fresh buffer the size of the listing costs more in page faults than
    // reading and folding it (~0.2 s at 22,000 sessions).
    const runs: [number, number][] = [];
    for (let r0 = 0; r0 < count; ) {
      let r1 = r0 + 1;
      while (r1 < count && at[r1]! + len[r1]! - at[r0]! <= CHUNK) r1++;
      runs.push([r0, r1]);
      r0 = r1;
    }
    const span = (run: [number, number]) => [at[run[0]]!, at[run[1] - 1]! + len[run[1] - 1]!] as const;

    // the records each word is in (by the record a hit falls in: the last one starting at or before it)
    const recordOf = (pos: number, lo: number, hi: number): number => {
      const k = recordHolding(at, pos, lo, hi);
      return k >= 0 && pos < at[k]! + len[k]! ? k : -1;
    };
    const needles = words.map(wordNeedles);
    const each = words.map(() => new Set<number>());
    const folder = new Folder();
    for (const run of runs) {
      const [from, to] = span(run);
      const low = folder.foldRead(fd, to - from, from);
      if (!low) return null;
      needles.forEach((list, k) => {
        for (const needle of list) {
          for (let p = findIn(low, needle); p >= 0; ) {
            const r = recordOf(from + p, run[0], run[1] - 1);
            if (r >= 0) {
              each[k]!.add(r);
              // the rest of this record holds nothing more to find
              p = findIn(low, needle, at[r]! + len[r]! - from);
            } else p = findIn(low, needle, p + 1);
          }
        }
      });
    }
    // a word in a snapshot name is held by the session it names
    let byKey: Map<string, number> | null = null;
    words.forEach((w, k) => {
      for (const sid in names) {
        if (!names[sid]!.toLowerCase().includes(w.toLowerCase())) continue;
        if (!byKey) {
          byKey = new Map();
          for (let i = 0; i < count; i++) byKey.set(keyOf(i), i);
        }
        const r = byKey.get(`claude:${sid}`);
        if (r !== undefined) each[k]!.add(r);
      }
    });
    const found = each.reduce((x, y) => new Set([...x].filter((r) => y.has(r))));
    const dropped = new Set(patch?.drop ?? []);
    const sessions: Session[] = [];
    const shorts = new Map<string, string>();
    // the records found, parsed from their runs, read again (a run at a time, into one buffer)
    let buf = Buffer.allocUnsafe(0);
    for (const run of runs) {
      const mine: number[] = [];
      for (let r = run[0]; r < run[1]; r++) if (found.has(r) && !dropped.has(keyOf(r))) mine.push(r);
      if (mine.length === 0) continue;
      const [from, to] = span(run);
      if (buf.length < to - from) buf = Buffer.allocUnsafe(Math.max(to - from, CHUNK));
      if (fs.readSync(fd, buf, 0, to - from, from) !== to - from) return null;
      for (const r of mine) {
        const s = JSON.parse(buf.toString('utf8', at[r]! - from, at[r]! - from + len[r]!)) as Session;
        if (!s || typeof s !== 'object' || s.key !== keyOf(r)) return null;
        sessions.push(s);
        shorts.set(s.id, idx.slice(tab1[r]! + 1, tab2[r]!));
      }
    }
    // a patched session is matched whole, as the patch puts it (there are few)
    if (patch) {
      patch.put.forEach((s, i) => shorts.set(s.id, patch.short[i]!));
      return { sessions: applyPatch(sessions, { ...patch, drop: [] }, (s) => s), shorts };
    }
    return { sessions, shorts };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
