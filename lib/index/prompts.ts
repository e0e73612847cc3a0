// Every prompt of every session, for naming a session by words (DESIGN.md "Naming a session": a word
// may come from any prompt, not only the first and last). Adapters report them as
// SessionCore.allPrompts (each clipped to 400 characters, sanitised by the index like the rest);
// the index keeps them in its per-source state shards (state/NNN.json), and each shard's again in
// its prompt file (state/NNN.prompts.json: lib/index/promptfile.ts, a third of the bytes to read),
// and leaves them out of the listing (list.json), so `rows`, `ls` and completion never load them.
// Only words matching does.
import type { Ctx } from '../types.js';
import { indexFiles, STATE_VERSION, shardFile, shardLayout } from './index.js';
import { readText } from '../util/fsx.js';
import { promptsFile, reviveEntry, shardHeadOf } from './promptfile.js';

/** `harness:id` → every prompt of that session, from each shard's prompt file (else the shard). */
export function allPrompts(ctx: Ctx): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const dir = indexFiles(ctx).state;
  // a session split over several sources (a Claude session continued in another file): all of them
  const put = (key: string, ps: string[]) => {
    const had = out.get(key);
    out.set(key, had ? had.concat(ps) : ps);
  };
  // the shards of the state as it stands (a shard of another count is left over, or half-written)
  const count = shardLayout(dir) ?? 0;
  for (let n = 0; n < count; n++) {
    const pairs = fromPromptFile(dir, n, count);
    if (pairs) {
      for (const [key, ps] of pairs) put(key, ps);
      continue;
    }
    let doc: { v?: number; of?: number; entries?: Record<string, { sessions?: { harness?: string; id?: string; allPrompts?: unknown }[] }> };
    try {
      doc = JSON.parse(readText(shardFile(dir, n)));
    } catch {
      continue;
    }
    if (!doc || doc.v !== STATE_VERSION || doc.of !== count || !doc.entries || typeof doc.entries !== 'object') continue;
    for (const e of Object.values(doc.entries)) {
      reviveEntry(e);
      for (const s of Array.isArray(e?.sessions) ? e.sessions : []) {
        if (!s || typeof s.harness !== 'string' || typeof s.id !== 'string' || !Array.isArray(s.allPrompts)) continue;
        put(`${s.harness}:${s.id}`, s.allPrompts.filter((p): p is string => typeof p === 'string'));
      }
    }
  }
  return out;
}

/** Shard n's prompt pairs from its prompt file, when that is whole and of the shard as it stands (one of `count`); else null. */
function fromPromptFile(dir: string, n: number, count: number): Array<[string, string[]]> | null {
  let doc: { v?: unknown; tok?: unknown; e?: unknown; p?: unknown };
  try {
    doc = JSON.parse(readText(promptsFile(dir, n)));
  } catch {
    return null;
  }
  if (!doc || doc.v !== STATE_VERSION || typeof doc.tok !== 'string') return null;
  // an entry's pairs a line (`e`), or, written before the line layout, all in one array (`p`)
  let pairs: unknown[];
  if (Array.isArray(doc.e)) {
    if (!doc.e.every(Array.isArray)) return null;
    pairs = (doc.e as unknown[][]).flat();
  } else if (Array.isArray(doc.p)) pairs = doc.p;
  else return null;
  const head = shardHeadOf(shardFile(dir, n));
  if (!head || head.tok !== doc.tok || head.of !== count) return null;
  const out: Array<[string, string[]]> = [];
  for (const x of pairs) {
    if (!Array.isArray(x) || typeof x[0] !== 'string' || !Array.isArray(x[1])) return null;
    out.push([x[0], (x[1] as unknown[]).filter((p): p is string => typeof p === 'string')]);
  }
  return out;
}
