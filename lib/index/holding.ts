// The sessions of the index whose stored record contains every one of some words, found by the
// database (LIKE over each session's record) so that only those records are parsed: completing a
// word (`resume web<TAB>`) at 22,000 sessions would otherwise parse every session.
//
// What is found is a superset of what resolve's words match, never less: a record holds more than
// the fields words are matched against, and the words and the records are folded as words are
// matched (rank.ts fold: case, accents; `folded` in store.ts), LIKE folding ASCII case besides. A word
// that does not fold to plainWord is not looked for this way at all (null: the caller reads the whole
// listing). The caller matches what is found exactly.

import { fold } from '../select/rank.js';
import type { Ctx, Session } from '../types.js';
import { indexFiles } from './files.js';
import { withRead } from './store.js';

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
export const likeOf = (w: string) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The sessions of the index whose record holds every word (see the top), with their short ids.
 * `names`: the snapshot names by Claude session id (a name titles an untitled session, so a word in
 * it counts as held). `prompted` (allPrompts of the words): a word in one of a session's prompts
 * counts as held too, as resolve matches words in every prompt. Null when this cannot tell: no
 * words, a word that is not plainWord, no index.
 */
export function sessionsHolding(
  ctx: Ctx,
  words: string[],
  names: Record<string, string> = {},
  prompted?: Map<string, string[]>,
): Holding | null {
  // the words folded as they are matched (rank.ts fold), looked for in the records folded alike
  const folded = words.map(fold);
  if (folded.length === 0 || !folded.every(plainWord)) return null;
  return withRead(indexFiles(ctx).db, (db) => {
    const conds: string[] = [];
    const args: string[] = [];
    for (const w of folded) {
      // a snapshot name holding the word names its session too
      const named = Object.entries(names)
        .filter(([, name]) => fold(name).includes(w))
        .map(([sid]) => sid);
      // and so does one of its prompts (`prompted`: the prompts of the sessions that have one holding a word)
      const inPrompts = prompted ? [...prompted].filter(([, ps]) => ps.some((p) => fold(p).includes(w))).map(([k]) => k) : [];
      const alt = `${named.map(() => ' OR key = ?').join('')}${inPrompts.length ? ' OR key IN (SELECT value FROM json_each(?))' : ''}`;
      conds.push(`(coalesce(folded, doc) LIKE ? ESCAPE '\\'${alt})`);
      args.push(likeOf(w), ...named.map((sid) => `claude:${sid}`), ...(inPrompts.length ? [JSON.stringify(inPrompts)] : []));
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
  });
}
