// Every prompt of a state shard's sessions, in a file of its own beside the shard
// (state/NNN.prompts.json): naming a session by words reads every prompt of every session, and
// in the shards they are a third of 160 MB of parser state (at 22,000 sessions). The state shards
// keep them too, and stay the truth: a prompt file counts only when it carries the token its
// shard's head carries (both are written with a new token each time), so a missing, older, newer or
// damaged one is passed over and its shard read instead.
//
// Both are written a line per entry, in the shard's entry order, so an append copies the lines of
// the entries it did not change and makes only its own (lib/index/shardtext.ts); JSON takes the
// line breaks as white space, so either file is still one JSON document:
//
//   state/NNN.json          {"v":15,"of":<shards>,"tok":"<token>","entries":{
//                           "<path>":<entry>
//                           ,"<path>":<entry>
//                           }}
//   state/NNN.prompts.json  {"v":15,"tok":"<token>","e":[
//                           [["<harness>:<id>",["<prompt>",…]],…]
//                           ,[]
//                           ]}
//
// `of` is how many shards the state has (its layout: lib/index/index.ts, shardCount); a shard
// counts only in a state of that many, the one the first shard (000.json) names.
//
// In a shard, a session's prompt list that is its entry's parser-state list is written as a marker
// (packEntry, reviveEntry below). A parser-state list longer than HELD_HEAD prompts is written first
// in its entry, as `"<path>":{"$all":[…],<the rest of the entry>}`, and the prompts of the entry's
// one session after it when they are not that list (a prompt with a secret, redacted for the
// session), as `"$own":[…]` (the session's `allPrompts` then OWN_LIST). So an append to a long
// session can take the lists' bytes as they are, decode only their first HELD_HEAD prompts, and write
// them again with only their new prompts made (shardtext.ts `heldEntry`, index.ts `writeChanged`).
//
// A prompt file's line n holds the pairs of the shard's entry n, one per session that has prompts
// (`[]` when none has; a session split over several sources, a Claude session continued in another
// file, has one pair per source). Files written before the line layout (no line break after the
// head; prompt pairs in one flat array `"p"`) are still read, and written again in this layout.
import path from 'node:path';
import { readPrefix } from '../util/fsx.js';

export const promptsFile = (stateDir: string, n: number): string => path.join(stateDir, `${String(n).padStart(3, '0')}.prompts.json`);

/** A new token for one writing of a shard and its prompt file (time, process and chance: no two writers share one). */
export function shardToken(): string {
  return `${Date.now().toString(36)}${process.pid.toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

export const stateHead = (v: number, of: number, tok: string): string => `{"v":${v},"of":${of},"tok":"${tok}","entries":{`;
export const STATE_TAIL = '\n}}';
export const promptsHead = (v: number, tok: string): string => `{"v":${v},"tok":"${tok}","e":[`;
export const PROMPTS_TAIL = '\n]}';
/** What comes before item n of either file: a line break, and a comma after the first. */
export const itemSep = (n: number): string => (n ? '\n,' : '\n');

interface WithPrompts {
  sessions?: { harness?: unknown; id?: unknown; allPrompts?: unknown }[] | null;
}

/** A prompt file line of one session whose prompts are the list in `list` (JSON, in pieces): what promptLine makes for it. */
export function promptLineOf<T>(key: string, list: T[], piece: (text: string) => T): T[] {
  return [piece(`[[${JSON.stringify(key)},`), ...list, piece(']]')];
}

/** An entry's line of the prompt file: its pairs, as an array (`[]` when none of its sessions has prompts). */
export function promptLine(_p: string, e: WithPrompts | undefined): string {
  const out: string[] = [];
  for (const s of Array.isArray(e?.sessions) ? e.sessions : []) {
    if (!s || typeof s.harness !== 'string' || typeof s.id !== 'string' || !Array.isArray(s.allPrompts)) continue;
    out.push(JSON.stringify([`${s.harness}:${s.id}`, s.allPrompts]));
  }
  return `[${out.join(',')}]`;
}

/**
 * A session's `allPrompts` in a state shard when it is its entry's parser-state list (`state.all`,
 * every prompt the parser kept), element for element: the list is written once. It was, at 22,000
 * sessions, 49 of a shard set's 167 MB (BENCHMARKS.md). `reviveEntry` puts the list back; a session
 * whose prompts differ (sanitised: a secret redacted) keeps its own list.
 */
export const SAME_AS_STATE = 'state.all';

interface Packable {
  state?: { all?: unknown } | null;
  sessions?: ({ allPrompts?: unknown } | null)[] | null;
}

/** Is `a` the list `b`, element for element (the same strings)? */
export function sameList(a: unknown, b: unknown[]): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The entry as its shard line holds it: each session's list that is `state.all` as SAME_AS_STATE (a copy; the entry is left as it is). */
export function packEntry<E>(e: E): E {
  const x = e as Packable | null | undefined;
  const all = x?.state?.all;
  const ss = x?.sessions;
  if (!Array.isArray(all) || !Array.isArray(ss)) return e;
  let out: Packable['sessions'] = null;
  for (let i = 0; i < ss.length; i++) {
    const s = ss[i];
    if (!s || !sameList(s.allPrompts, all)) continue;
    out ??= ss.slice();
    out[i] = { ...s, allPrompts: SAME_AS_STATE };
  }
  return out ? ({ ...x, sessions: out } as E) : e;
}

/**
 * A shard entry as parsed, with each session's SAME_AS_STATE list put back (a copy of `state.all`:
 * an append goes on pushing to the state's). A marker without a list to stand for is dropped.
 * Every reader of a shard entry goes through this.
 */
export function reviveEntry<E>(e: E): E {
  const x = e as (Packable & { $all?: unknown; $own?: unknown }) | null | undefined;
  if (x && x.$all !== undefined) {
    // (a long list, written first: put back where the parser keeps it)
    if (Array.isArray(x.$all) && x.state && typeof x.state === 'object') x.state.all = x.$all;
    delete x.$all;
  }
  if (x && x.$own !== undefined) {
    // (the one session's own long list, written after it)
    const s0 = Array.isArray(x.sessions) ? x.sessions[0] : null;
    if (Array.isArray(x.$own) && s0 && s0.allPrompts === OWN_LIST) s0.allPrompts = x.$own;
    delete x.$own;
  }
  const ss = x?.sessions;
  if (!Array.isArray(ss)) return e;
  const all = x!.state?.all;
  for (const s of ss) {
    if (!s) continue;
    // (a marker without its list: none)
    if (s.allPrompts === OWN_LIST) delete s.allPrompts;
    if (s.allPrompts !== SAME_AS_STATE) continue;
    if (Array.isArray(all)) s.allPrompts = all.slice();
    else delete s.allPrompts;
  }
  return e;
}

/** A session's `allPrompts` in a state shard when they are written as its entry's `$own` (memberLine). */
export const OWN_LIST = '$own';

/**
 * Prompts of a parser-state list decoded by an append that takes the list's bytes as they are
 * (shardtext.ts `heldEntry`): more than any parser reads back (Claude's finish pass, the first 50).
 * A longer list is written first in its entry's line.
 */
export const HELD_HEAD = 64;

/** What opens an entry's line that begins with a long list, and what comes before the session's own list after it. */
export const ALL_OPEN = '{"$all":';
export const OWN_OPEN = ',"$own":';

/**
 * The pieces of a line that begins with a long list (memberLine's layout): its path, the list, the
 * session's own list when there is one, the rest of the entry (restOf). `piece` makes a piece of
 * text (a string for memberLine, bytes for an append that has the lists as bytes).
 */
export function longLine<T>(p: string, all: T[], own: T[] | null, rest: string, piece: (text: string) => T): T[] {
  return [piece(JSON.stringify(p) + ':' + ALL_OPEN), ...all, ...(own ? [piece(OWN_OPEN), ...own] : []), piece(rest)];
}

/** An entry's line of its state shard: `"<path>":<entry>` (packed: packEntry; a long parser-state list first, as `$all`). */
export function memberLine(p: string, e: unknown): string {
  const packed = packEntry(e) as (Packable & Record<string, unknown>) | null | undefined;
  const all = packed?.state?.all;
  if (!Array.isArray(all) || all.length <= HELD_HEAD) return JSON.stringify(p) + ':' + JSON.stringify(packed);
  const own = ownList(packed!);
  const text = (x: string) => x;
  return longLine(p, [JSON.stringify(all)], own && [JSON.stringify(own)], restOf(own ? withOwn(packed!) : packed!), text).join('');
}

/** The one session's prompts, when an entry has one session and they are a long list not written as SAME_AS_STATE (memberLine writes them as `$own`). */
export function ownList(packed: Packable): unknown[] | null {
  const ss = packed.sessions;
  const l = Array.isArray(ss) && ss.length === 1 ? ss[0]?.allPrompts : null;
  return Array.isArray(l) && l.length > HELD_HEAD ? l : null;
}

/** The packed entry with its one session's prompts as OWN_LIST (a copy). */
export function withOwn<E>(packed: E): E {
  const x = packed as Packable;
  return { ...x, sessions: [{ ...x.sessions![0], allPrompts: OWN_LIST }] } as E;
}

/**
 * What follows a long list in an entry's line (memberLine): the entry without it, from the comma
 * after the list to the entry's closing brace. An append writes the same bytes after a list it
 * took as it was (index.ts `writeChanged`).
 */
export function restOf(packed: object): string {
  const { all: _, ...state } = (packed as { state: Record<string, unknown> }).state;
  const rest = JSON.stringify({ ...packed, state });
  return rest === '{}' ? '}' : ',' + rest.slice(1);
}

/** What a state shard's head says (stateHead), from the text the file starts with; null when it is not such a head. */
export function parseStateHead(text: string): { v: number; of: number; tok: string } | null {
  const m = /^\{"v":(\d+),"of":(\d+),"tok":"([0-9a-z]+)"/.exec(text);
  return m ? { v: Number(m[1]), of: Number(m[2]), tok: m[3]! } : null;
}

/** What a prompt file's head says (promptsHead), from the text the file starts with; null when it is not such a head. */
export function parsePromptsHead(text: string): { v: number; tok: string } | null {
  const m = /^\{"v":(\d+),"tok":"([0-9a-z]+)","e":\[/.exec(text);
  return m ? { v: Number(m[1]), tok: m[2]! } : null;
}

/** What a state shard's head says: its version, the shard count of its state, its token; null when it is not such a head. */
export function shardHeadOf(file: string): { v: number; of: number; tok: string } | null {
  // the head is in the first bytes (a line of its own, or the start of one long line): a short read
  const head = readPrefix(file, 96);
  return head === null ? null : parseStateHead(head);
}
