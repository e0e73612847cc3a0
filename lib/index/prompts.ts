// Every prompt of every session, for naming a session by words (DESIGN.md "Naming a session": a word
// may come from any prompt, not only the first and last). Adapters report them as
// SessionCore.allPrompts (each clipped to 400 characters, sanitised by the index like the rest);
// the index keeps them in its per-source state shards (state/NNN.json) and leaves them out of the
// listing (list.json), so `rows`, `ls` and completion never load them. Only words matching does.
import type { Ctx } from '../types.js';
import { indexFiles, INDEX_VERSION, SHARDS, shardFile } from './index.js';
import { readText } from '../util/fsx.js';

/** `harness:id` → every prompt of that session, read from the index's state shards. */
export function allPrompts(ctx: Ctx): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const dir = indexFiles(ctx).state;
  for (let n = 0; n < SHARDS; n++) {
    let doc: { v?: number; entries?: Record<string, { sessions?: { harness?: string; id?: string; allPrompts?: unknown }[] }> };
    try {
      doc = JSON.parse(readText(shardFile(dir, n)));
    } catch {
      continue;
    }
    if (!doc || doc.v !== INDEX_VERSION || !doc.entries || typeof doc.entries !== 'object') continue;
    for (const e of Object.values(doc.entries)) {
      for (const s of Array.isArray(e?.sessions) ? e.sessions : []) {
        if (!s || typeof s.harness !== 'string' || typeof s.id !== 'string' || !Array.isArray(s.allPrompts)) continue;
        const key = `${s.harness}:${s.id}`;
        const ps = s.allPrompts.filter((p): p is string => typeof p === 'string');
        // a session split over several sources (a Claude session continued in another file): all of them
        const had = out.get(key);
        out.set(key, had ? had.concat(ps) : ps);
      }
    }
  }
  return out;
}
