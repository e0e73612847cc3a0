// Every prompt of every session, for naming a session by words (DESIGN.md "Naming a session": a word
// may come from any prompt, not only the first and last). Adapters report them as
// SessionCore.allPrompts (each clipped to 400 characters, sanitised by the index like the rest);
// the index keeps them in its per-source state shards (state/NNN.json), and each shard's again in
// its prompt file (state/NNN.prompts.json: lib/index/promptfile.ts, a third of the bytes to read),
// and leaves them out of the listing (list.json), so `rows`, `ls` and completion never load them.
// Only words matching does.
//
// Given the words being matched, a prompt file none of whose bytes holds any of them (folded, as deep
// search looks: holding.ts `wordNeedles`) is not parsed: none of its prompts can hold a word, and a
// session's prompts only ever add to what its words are looked for in. At 22,000 sessions the prompt
// files are 49 MB, and parsing them was ~240 ms of naming a session by a rare word.
import fs from 'node:fs';
import type { Ctx } from '../types.js';
import { indexFiles, STATE_VERSION, shardFile, shardLayout } from './index.js';
import { readText, textOf } from '../util/fsx.js';
import { parsePromptsHead, PROMPTS_TAIL, promptsFile, reviveEntry, shardHeadOf } from './promptfile.js';
import { plainWord, wordNeedles } from './holding.js';
import { Folder, findIn, type Needle } from '../search/fold.js';

/**
 * `harness:id` → every prompt of that session, from each shard's prompt file (else the shard).
 * `words`: the words it is for (lower or any case); the prompts of a prompt file that holds none of
 * them are left out. Without (or with a word that cannot be looked for as bytes), every prompt.
 */
export function allPrompts(ctx: Ctx, words: string[] = []): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const dir = indexFiles(ctx).state;
  // a session split over several sources (a Claude session continued in another file): all of them
  const put = (key: string, ps: string[]) => {
    const had = out.get(key);
    out.set(key, had ? had.concat(ps) : ps);
  };
  // the shards of the state as it stands (a shard of another count is left over, or half-written)
  const count = shardLayout(dir) ?? 0;
  const look = words.length > 0 && words.every(plainWord) ? { needles: words.flatMap(wordNeedles), folder: new Folder() } : null;
  for (let n = 0; n < count; n++) {
    const pairs = fromPromptFile(dir, n, count, look);
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

/** A prompt file written to its end (a cut one is read whole, and refused, as before). */
const whole = (b: Buffer): boolean => b.length >= PROMPTS_TAIL.length && b.toString('latin1', b.length - PROMPTS_TAIL.length) === PROMPTS_TAIL;

/** Whether the folded bytes of `b` hold any of the needles. */
function holdsAny(b: Buffer, needles: Needle[], folder: Folder): boolean {
  const low = folder.fold(b, 0, b.length);
  return needles.some((nd) => findIn(low, nd) >= 0);
}

/** Whether a prompt file of this version and token is of shard n as it stands (its head says the token, of a state of `count` shards). */
function ofShard(dir: string, n: number, count: number, v: unknown, tok: unknown): boolean {
  if (v !== STATE_VERSION || typeof tok !== 'string') return false;
  const head = shardHeadOf(shardFile(dir, n));
  return !!head && head.tok === tok && head.of === count;
}

/**
 * Shard n's prompt pairs from its prompt file, when that is whole and of the shard as it stands (one
 * of `count`); else null. `look`: none when the file is of the shard (its head says so) and holds
 * none of these needles.
 */
function fromPromptFile(dir: string, n: number, count: number, look: { needles: Needle[]; folder: Folder } | null = null): Array<[string, string[]]> | null {
  let doc: { v?: unknown; tok?: unknown; e?: unknown; p?: unknown };
  try {
    const b = fs.readFileSync(promptsFile(dir, n));
    if (look && whole(b) && !holdsAny(b, look.needles, look.folder)) {
      const h = parsePromptsHead(b.toString('latin1', 0, Math.min(b.length, 96)));
      if (h && ofShard(dir, n, count, h.v, h.tok)) return [];
    }
    doc = JSON.parse(textOf(b));
  } catch {
    return null;
  }
  if (!doc) return null;
  // an entry's pairs a line (`e`), or, written before the line layout, all in one array (`p`)
  let pairs: unknown[];
  if (Array.isArray(doc.e)) {
    if (!doc.e.every(Array.isArray)) return null;
    pairs = (doc.e as unknown[][]).flat();
  } else if (Array.isArray(doc.p)) pairs = doc.p;
  else return null;
  if (!ofShard(dir, n, count, doc.v, doc.tok)) return null;
  const out: Array<[string, string[]]> = [];
  for (const x of pairs) {
    if (!Array.isArray(x) || typeof x[0] !== 'string' || !Array.isArray(x[1])) return null;
    out.push([x[0], (x[1] as unknown[]).filter((p): p is string => typeof p === 'string')]);
  }
  return out;
}
