// A state shard and its prompt file as lines of text (the layout: lib/index/promptfile.ts), for an
// append: it changes one or two entries of a shard of ~100, so it parses only those and copies the
// other lines as they are (at 22,000 sessions a shard is ~900 KB and its prompt file ~270 KB;
// parsing and writing them whole was a third of an append).
import fs from 'node:fs';
import { writeAtomic } from '../util/fsx.js';
import { ALL_OPEN, HELD_HEAD, itemSep, OWN_LIST, OWN_OPEN, parseStateHead, promptsHead, PROMPTS_TAIL, reviveEntry, SAME_AS_STATE, shardToken, STATE_TAIL, stateHead } from './promptfile.js';

export interface ShardText {
  /** the token its head carries (and its prompt file's, when `prompts` is not null) */
  tok: string;
  /** each entry's path, in the shard's order */
  paths: string[];
  /** each entry's line, `"<path>":<entry>` (without the comma before it) */
  members: Buffer[];
  /** where each line's entry starts (after the key and its colon) */
  at: number[];
  /** each entry's line of the prompt file, when that file is whole, of this shard and in the line layout; else null */
  prompts: Buffer[] | null;
}

const NL = 10;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * The lines of a file after its head line (the head is `head`, exactly) up to its tail line, each
 * without the comma before it; null when the file is not in the line layout or not whole.
 */
function itemLines(buf: Buffer, head: string, tail: string): Buffer[] | null {
  const nl = buf.indexOf(NL);
  if (nl !== head.length || buf.toString('latin1', 0, nl) !== head) return null;
  const end = buf.length - tail.length;
  if (end < nl || buf.toString('latin1', end) !== tail) return null;
  const out: Buffer[] = [];
  for (let p = nl + 1; p <= end; ) {
    let e = buf.indexOf(NL, p);
    if (e < 0 || e > end) e = end;
    const s = out.length ? p + 1 : p;
    if ((out.length && buf[p] !== COMMA) || s >= e) return null;
    out.push(buf.subarray(s, e));
    p = e + 1;
  }
  return out;
}

/** Bytes of a file; null when it cannot be read. */
function readBytes(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

/**
 * Shard `file` of `version`, in a state of `of` shards, as lines, with its prompt file's lines when
 * that is of the same token and has a line per entry. Null when the shard is missing, damaged, of
 * another version or shard count, written before the line layout, or names a path twice: the
 * caller then reads it whole.
 */
export function readShardText(file: string, pfile: string, version: number, of: number): ShardText | null {
  const buf = readBytes(file);
  if (!buf) return null;
  // (the whole head line is checked against stateHead's by itemLines)
  const h = parseStateHead(buf.toString('latin1', 0, 96));
  if (!h || h.v !== version || h.of !== of) return null;
  const tok = h.tok;
  const members = itemLines(buf, stateHead(version, of, tok), STATE_TAIL);
  if (!members) return null;
  const paths: string[] = [];
  const at: number[] = [];
  const seen = new Set<string>();
  for (const line of members) {
    // the key: a JSON string, then a colon
    if (line[0] !== QUOTE) return null;
    const q = stringEnd(line, 0, line.length);
    if (q < 0 || q + 1 >= line.length || line[q + 1] !== COLON) return null;
    let p: unknown;
    try {
      p = JSON.parse(line.toString('utf8', 0, q + 1));
    } catch {
      return null;
    }
    if (typeof p !== 'string' || seen.has(p)) return null;
    seen.add(p);
    paths.push(p);
    at.push(q + 2);
  }
  const pbuf = readBytes(pfile);
  let prompts = pbuf && itemLines(pbuf, promptsHead(version, tok), PROMPTS_TAIL);
  if (prompts && prompts.length !== members.length) prompts = null;
  return { tok, paths, members, at, prompts };
}

/** Entry `i` of a shard read as lines, parsed (null when its line is not JSON) and revived (reviveEntry). */
export function shardEntry(t: ShardText, i: number): unknown {
  try {
    return reviveEntry(JSON.parse(t.members[i]!.toString('utf8', t.at[i]!)));
  } catch {
    return null;
  }
}

/**
 * A long list an append took as it was (memberLine writes it first in its entry): its JSON text and
 * how many prompts it holds (its first HELD_HEAD were decoded).
 */
export interface HeldList {
  bytes: Buffer;
  count: number;
}

const LIST_START = Buffer.from(ALL_OPEN + '[');
const OWN_START = Buffer.from(OWN_OPEN + '[');
const CLOSE = 0x5d;

/**
 * The end of the JSON string that starts at `q` (its closing quote), or -1. A quote ends it when an
 * even number of backslashes stands before it.
 */
function stringEnd(b: Buffer, q: number, end: number): number {
  for (let i = q + 1; ; i++) {
    i = b.indexOf(QUOTE, i);
    if (i < 0 || i >= end) return -1;
    let k = i - 1;
    while (b[k] === BACKSLASH) k--;
    if ((i - 1 - k) % 2 === 0) return i;
  }
}

/**
 * The list of JSON strings whose `[` is at `a`: where it ends (past its `]`), how many strings it
 * holds, and where its first HELD_HEAD end (-1 when it holds fewer); null when it is not such a list.
 */
function listAt(line: Buffer, a: number): { end: number; count: number; headEnd: number } | null {
  let p = a + 1;
  let count = 0;
  let headEnd = -1;
  for (;;) {
    if (line[p] !== QUOTE) return null;
    const q = stringEnd(line, p, line.length);
    if (q < 0) return null;
    count++;
    if (count === HELD_HEAD) headEnd = q + 1;
    p = q + 1;
    if (line[p] === COMMA) {
      p++;
      continue;
    }
    return line[p] === CLOSE ? { end: p + 1, count, headEnd } : null;
  }
}

/** The first HELD_HEAD strings of a list (listAt), decoded; null when they are not. */
function headOf(line: Buffer, a: number, headEnd: number): string[] | null {
  const head = JSON.parse(line.toString('utf8', a, headEnd) + ']') as unknown;
  return Array.isArray(head) && head.length === HELD_HEAD && head.every((x) => typeof x === 'string') ? (head as string[]) : null;
}

/**
 * Entry `i` of a shard read as lines, for an append to it, when its line begins with a long list
 * (memberLine) and its one session's prompts are that list or its own long list after it: the lists'
 * bytes are kept as they are and only their first HELD_HEAD prompts decoded (`state.all` and the
 * session's `allPrompts` hold those). A session of a thousand prompts has an entry of half a
 * megabyte (a megabyte with a list of its own), and decoding it and making it again was most of what
 * an append to it cost. Null otherwise (shardEntry then).
 */
export function heldEntry(t: ShardText, i: number): { entry: unknown; held: HeldList; own: HeldList | null } | null {
  const line = t.members[i]!;
  const s = t.at[i]!;
  if (line.length - s < LIST_START.length || line.compare(LIST_START, 0, LIST_START.length, s, s + LIST_START.length) !== 0) return null;
  const a = s + LIST_START.length - 1;
  const all = listAt(line, a);
  if (!all || all.count <= HELD_HEAD) return null;
  let own: { a: number; end: number; count: number; headEnd: number } | null = null;
  let restAt = all.end;
  if (line.length - all.end >= OWN_START.length && line.compare(OWN_START, 0, OWN_START.length, all.end, all.end + OWN_START.length) === 0) {
    const oa = all.end + OWN_START.length - 1;
    const o = listAt(line, oa);
    if (!o || o.count <= HELD_HEAD) return null;
    own = { a: oa, ...o };
    restAt = o.end;
  }
  if (line[restAt] !== COMMA) return null;
  try {
    const head = headOf(line, a, all.headEnd);
    const ownHead = own ? headOf(line, own.a, own.headEnd) : null;
    const entry = JSON.parse('{' + line.toString('utf8', restAt + 1)) as { state?: unknown; sessions?: unknown; $all?: unknown; $own?: unknown };
    const ss = entry.sessions;
    if (!head || (own && !ownHead) || !entry.state || typeof entry.state !== 'object' || 'all' in entry.state || '$all' in entry || '$own' in entry) return null;
    if (!Array.isArray(ss) || ss.length !== 1 || !ss[0] || ss[0].allPrompts !== (own ? OWN_LIST : SAME_AS_STATE)) return null;
    (entry.state as { all?: unknown }).all = head;
    if (ownHead) ss[0].allPrompts = ownHead;
    reviveEntry(entry);
    return {
      entry,
      held: { bytes: line.subarray(a, all.end), count: all.count },
      own: own && { bytes: line.subarray(own.a, own.end), count: own.count },
    };
  } catch {
    return null;
  }
}

const SEP = [Buffer.from(itemSep(0)), Buffer.from(itemSep(1))];

/** A line of a shard or prompt file: text, bytes, or bytes in pieces (written one after another). */
export type Line = string | Buffer | Buffer[];

/**
 * Write a shard (of a state of `of` shards) and its prompt file, with a new token: item n of each is `members[n]` and
 * `prompts[n]` (text, bytes or bytes in pieces, each a line as the layout has it). Bytes are written as they are,
 * the whole file in one vectored write. A prompt file that cannot be written only costs speed
 * (words are then matched from the shard): its error goes to `onPromptError`. `same`: the prompt
 * file on disk holds these prompts already, with this token: the shard is written with it, the
 * prompt file left as it is.
 */
export function writeShardFiles(
  file: string, pfile: string, version: number, of: number, members: Line[], prompts: Line[] | { same: string }, onPromptError: (err: unknown) => void,
): void {
  const kept = !Array.isArray(prompts);
  const tok = kept ? prompts.same : shardToken();
  const items = (head: string, xs: Line[], tail: string): Buffer[] => {
    const out: Buffer[] = [Buffer.from(head)];
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      out.push(SEP[i ? 1 : 0]!);
      if (typeof x === 'string') out.push(Buffer.from(x, 'utf8'));
      else if (Buffer.isBuffer(x)) out.push(x);
      else out.push(...x);
    }
    out.push(Buffer.from(tail));
    return out;
  };
  writeAtomic(file, items(stateHead(version, of, tok), members, STATE_TAIL));
  if (kept) return;
  try {
    writeAtomic(pfile, items(promptsHead(version, tok), prompts, PROMPTS_TAIL));
  } catch (err) {
    onPromptError(err);
  }
}
