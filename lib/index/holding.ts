// The sessions of the index whose stored record contains every one of some words, found by the
// database (LIKE over each session's record) so that only those records are parsed: completing a
// word (`resume web<TAB>`) at 22,000 sessions would otherwise parse every session.
//
// What is found is a superset of what resolve's words match, never less: a record holds more than
// the fields words are matched against, and LIKE folds ASCII case. A word with `i` or `k` may match
// a text holding `İ` or `K` (Kelvin sign), whose lower case holds the letter: such records are read
// for such a word too. A word that is not plainWord is not looked for this way
// at all (null: the caller reads the whole listing). The caller matches what is found exactly.
import type { Ctx, Session } from '../types.js';
import { indexFiles } from './files.js';
import { openRead } from './store.js';

export interface Holding {
  /** the sessions whose record holds every word (or may), newest first */
  sessions: Session[];
  /** the short id of every session found */
  shorts: Map<string, string>;
}

/** Can a word be looked for as its bytes? Printable ASCII that JSON writes as it is. */
export function plainWord(w: string): boolean {
  return /^[\x21-\x7e]+$/.test(w) && !/["\\]/.test(w);
}

/** A LIKE pattern for `w` anywhere (its own %, _ and the escape character escaped). */
const likeOf = (w: string) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The sessions of the index whose record holds every word (see the top), with their short ids.
 * `names`: the snapshot names by Claude session id (a name titles an untitled session, so a word in
 * it counts as held). Null when this cannot tell: no words, a word that is not plainWord, no index.
 */
export function sessionsHolding(ctx: Ctx, words: string[], names: Record<string, string> = {}): Holding | null {
  if (words.length === 0 || !words.every(plainWord)) return null;
  const db = openRead(indexFiles(ctx).db);
  if (!db) return null;
  try {
    const conds: string[] = [];
    const args: string[] = [];
    for (const w of words) {
      // a text holding İ or K (Kelvin sign) may match a word with i or k: such records are read too
      const odd = /[ik]/i.test(w) ? ['\u0130', '\u212a'] : [];
      // a snapshot name holding the word names its session too
      const named = Object.entries(names)
        .filter(([, name]) => name.toLowerCase().includes(w.toLowerCase()))
        .map(([sid]) => sid);
      conds.push(`(${[w, ...odd].map(() => "doc LIKE ? ESCAPE '\\'").join(' OR ')}${named.map(() => ' OR key = ?').join('')})`);
      args.push(...[w, ...odd].map(likeOf), ...named.map((sid) => `claude:${sid}`));
    }
    const sql = `SELECT doc, short FROM sessions${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''} ORDER BY at DESC, id`;
    const sessions: Session[] = [];
    const shorts = new Map<string, string>();
    for (const r of db.prepare(sql).iterate(...args) as Iterable<{ doc: string; short: string }>) {
      const s = JSON.parse(r.doc) as Session;
      sessions.push(s);
      shorts.set(s.id, r.short);
    }
    return { sessions, shorts };
  } catch {
    return null;
  } finally {
    db.close();
  }
}
