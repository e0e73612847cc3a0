// Every prompt of every session, for naming a session by words (DESIGN.md "Naming a session": a word
// may come from any prompt, not only the first and last). Adapters report them as
// SessionCore.allPrompts (each clipped to 400 characters, sanitised by the index like the rest); the
// index keeps them in the database's prompts table, keyed by session, and leaves them out of the
// listing, so `rows`, `ls` and completion never load them. Only words matching does.
import type { Ctx } from '../types.js';
import { indexFiles } from './files.js';
import { plainWord } from './holding.js';
import { openRead } from './store.js';

/**
 * `harness:id` → every prompt of that session. `words`: the words it is for; only the sessions with
 * a prompt holding one of them are given (a session's prompts only ever add to what its words are
 * looked for in). Without words (or with one that is not plainWord), every prompt.
 */
export function allPrompts(ctx: Ctx, words: string[] = []): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const db = openRead(indexFiles(ctx).db);
  if (!db) return out;
  try {
    // LIKE folds ASCII case; a word with i or k may also match a prompt holding İ or K (Kelvin sign),
    // whose lower case holds the letter: such prompts are read too
    const look = words.length > 0 && words.every(plainWord) ? [...words] : null;
    if (look?.some((w) => /[ik]/i.test(w))) look.push('\u0130', '\u212a');
    const like = (w: string) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const sql = look
      ? `SELECT key, texts FROM prompts WHERE key IN (SELECT key FROM prompts WHERE ${look.map(() => "texts LIKE ? ESCAPE '\\'").join(' OR ')}) ORDER BY key, path`
      : 'SELECT key, texts FROM prompts ORDER BY key, path';
    for (const r of db.prepare(sql).iterate(...(look ?? []).map(like)) as Iterable<{ key: string; texts: string }>) {
      const ps = JSON.parse(r.texts) as string[];
      const had = out.get(r.key);
      if (had) had.push(...ps);
      else out.set(r.key, ps);
    }
  } catch {
    /* no prompts to give */
  } finally {
    db.close();
  }
  return out;
}
