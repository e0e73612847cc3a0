// Every prompt of a state shard's sessions, in a file of its own beside the shard
// (state/NNN.prompts.json): naming a session by words reads every prompt of every session, and
// in the shards they are a third of 160 MB of parser state (at 22,000 sessions). The state shards
// keep them too, and stay the truth: a prompt file counts only when it carries the token its
// shard's head carries (both are written with a new token each time), so a missing, older, newer or
// damaged one is passed over and its shard read instead.
//
//   state/NNN.json          {"v":12,"tok":"<token>","entries":{"<path>":<entry>,…}}
//   state/NNN.prompts.json  {"v":12,"tok":"<token>","p":[["<harness>:<id>",["<prompt>",…]],…]}
//
// The pairs are in the shard's entry order, one per session that has prompts (a session split over
// several sources, a Claude session continued in another file, has one pair per source).
import path from 'node:path';
import { readPrefix } from '../util/fsx.js';

export const promptsFile = (stateDir: string, n: number): string => path.join(stateDir, `${String(n).padStart(3, '0')}.prompts.json`);

/** A new token for one writing of a shard and its prompt file (time, process and chance: no two writers share one). */
export function shardToken(): string {
  return `${Date.now().toString(36)}${process.pid.toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

export const stateHead = (v: number, tok: string): string => `{"v":${v},"tok":"${tok}","entries":{`;
export const promptsHead = (v: number, tok: string): string => `{"v":${v},"tok":"${tok}","p":[`;
export const PROMPTS_TAIL = ']}';

interface WithPrompts {
  sessions?: { harness?: unknown; id?: unknown; allPrompts?: unknown }[] | null;
}

/** An entry's pairs, comma-separated ('' when none of its sessions has prompts). */
export function promptItems(_p: string, e: WithPrompts | undefined): string {
  const out: string[] = [];
  for (const s of Array.isArray(e?.sessions) ? e.sessions : []) {
    if (!s || typeof s.harness !== 'string' || typeof s.id !== 'string' || !Array.isArray(s.allPrompts)) continue;
    out.push(JSON.stringify([`${s.harness}:${s.id}`, s.allPrompts]));
  }
  return out.join(',');
}

/** The token in a state shard's head; null when it has none (written before there were prompt files). */
export function shardTokenOf(file: string): string | null {
  // the head is in the first bytes; the file has no line break, so a short read is asked for
  const head = readPrefix(file, 96);
  const m = head && /^\{"v":\d+,"tok":"([0-9a-z]+)"/.exec(head);
  return m ? m[1]! : null;
}
