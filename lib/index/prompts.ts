// Every prompt of every session, for naming a session by words (DESIGN.md "Naming a session": a word
// may come from any prompt, not only the first and last). Adapters report them as
// SessionCore.allPrompts (each clipped to 400 characters, sanitised by the index like the rest); the
// index keeps them in the database's prompts table, keyed by session, and leaves them out of the
// listing, so `rows`, `ls` and completion never load them. Only words matching does.

import { fold } from '../select/rank.js';
import type { Ctx } from '../types.js';
import { indexFiles } from './files.js';
import { gatherPrompts, likeOf, plainWord, promptsOf } from './holding.js';
import { openRead } from './store.js';

/**
 * `harness:id` → every prompt of that session. `words`: the words it is for; only the sessions with
 * a prompt holding one of them (case and accents folded) are given (a session's prompts only ever
 * add to what its words are looked for in). Without words (or with one that does not fold to a
 * plainWord), every prompt.
 */
export function allPrompts(ctx: Ctx, words: string[] = []): Map<string, string[]> {
  const db = openRead(indexFiles(ctx).db);
  if (!db) return new Map();
  try {
    // the words folded as they are matched (rank.ts fold), looked for in the prompts folded alike:
    // LIKE folds ASCII case only, and `folded` (store.ts) is each non-ASCII row's text folded
    const look = words.length > 0 ? words.map(fold) : null;
    if (look && !look.every(plainWord)) look.length = 0;
    const sql = look?.length
      ? `SELECT key, texts FROM prompts WHERE key IN (SELECT key FROM prompts WHERE ${look.map(() => "coalesce(folded, texts) LIKE ? ESCAPE '\\'").join(' OR ')}) ORDER BY key, path`
      : 'SELECT key, texts FROM prompts ORDER BY key, path';
    return gatherPrompts(db.prepare(sql).iterate(...(look ?? []).map(likeOf)) as Iterable<{ key: string; texts: string }>);
  } catch {
    // no prompts to give
    return new Map();
  } finally {
    db.close();
  }
}

/** Every prompt of one session (`harness:id`), in order; [] when the index has none. */
export function promptsOfSession(ctx: Ctx, key: string): string[] {
  const db = openRead(indexFiles(ctx).db);
  if (!db) return [];
  try {
    return promptsOf(db, [key]).get(key) ?? [];
  } catch {
    return [];
  } finally {
    db.close();
  }
}
