// The abandoned-branch readers of pi and Claude Code (lib/harness/{pi,claude}/text.ts `branches`),
// which follow a session that is one chain of records on the bytes alone and make their map of
// links only at the first record that is not the child of the one before: what each tells is what
// the map of every link tells (the references below, the readers as they were before the chain was
// read apart), over seeded random transcripts with branches, repeated ids, headers, broken, cut and
// long lines. (End to end: the abandoned-branch cases of search-deep.test.ts.)
import { describe, expect, it } from 'vitest';
import { firstLink, firstString } from '../lib/harness/branches.js';
import { search as claudeSearch } from '../lib/harness/claude/text.js';
import { search } from '../lib/harness/pi/text.js';
import type { BranchTracker } from '../lib/search/types.js';
import { must } from './helpers.js';
import type { Decoded } from './json.js';

const HEAD = 4096;
const K_TYPE = Buffer.from('"type":"');
const K_ID = Buffer.from('"id":"');
const K_PARENT = Buffer.from('"parentId":');

/** every link into one map, the walk back from the last entry */
function reference(lines: Buffer[]): Set<string> | null {
  const parent = new Map<string, string | null>();
  let leaf: string | null = null;
  let roots = 0;
  for (const whole of lines) {
    const line = whole.length > HEAD ? whole.subarray(0, HEAD) : whole;
    if (firstString(line, K_TYPE) === 'session') continue;
    const id = firstString(line, K_ID);
    const p = firstLink(line, K_PARENT);
    if (id == null || p === undefined) continue;
    parent.set(id, p);
    if (p == null) roots++;
    leaf = id;
  }
  if (!leaf || roots !== 1) return null;
  const live = new Set<string>();
  for (let u: string | null = leaf; u != null; u = parent.get(u) ?? null) {
    if (live.has(u) || !parent.has(u)) return null;
    live.add(u);
  }
  return new Set([...parent.keys()].filter((u) => !live.has(u)));
}

/** what the search does with a result: the entries it weighs down (none for null or the empty set) */
const weighed = (s: Set<string> | null) => (s ? [...s].sort() : []);

function rng(seed: number) {
  // (spread: xorshift's first numbers from a small seed are small)
  let x = Math.imul(seed, 2654435761) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** A generator's state: the seeded random source, a pick from a list by it, and the ids written so far. */
interface Gen {
  r: () => number;
  pick: <T>(xs: T[]) => T;
  ids: string[];
}

const gen = (r: () => number): Gen => ({ r, pick: (xs) => xs[Math.floor(r() * xs.length)], ids: [] });

/** a pi entry's id: from a small set (repeats happen), sometimes longer or shorter than the last */
function piId({ r, pick, ids }: Gen): string {
  return r() < 0.03 && ids.length ? pick(ids) : `e${Math.floor(r() * 100000)}${r() < 0.2 ? 'x' : ''}`;
}

/** a pi entry's parent: mostly the entry before, now and then none, an earlier one or one never written */
function piParent({ r, pick, ids }: Gen, i: number): string | null {
  const roll = r();
  if (i === 0) return r() < 0.85 ? null : 'elsewhere';
  if (roll < 0.7) return ids[ids.length - 1];
  if (roll < 0.72) return null;
  if (roll < 0.95) return pick(ids);
  return `${ids[ids.length - 1]}z`;
}

/** a pi line, now and then broken in one of the ways the reader must survive */
function piDamage({ r }: Gen, line: string): string {
  const kind = r();
  if (kind < 0.04) return line.replace('"parentId":', '"parent":'); // no link: not in the tree
  if (kind < 0.08) return line.slice(0, line.indexOf('"parentId":') + 13 + Math.floor(r() * 4)); // cut inside the link
  if (kind < 0.1) return line.replace('"id":"', '"id":'); // an id that is not a string
  if (kind < 0.12) return line.replace(/"type":"[a-z_]+"/, '"type":"session"'); // a header's type
  if (kind < 0.14) return `{"type":"message","pad":"${'p'.repeat(HEAD)}",${line.slice(1)}`; // its keys past the head
  if (kind < 0.16) return line.replace('"type":"message"', '"type":"sess'); // a type cut short
  return line;
}

function transcript(r: () => number): Buffer[] {
  const g = gen(r);
  const out: string[] = [];
  const n = 1 + Math.floor(r() * 14);
  if (r() < 0.8) out.push(JSON.stringify({ type: 'session', version: 3, id: 'hdr', timestamp: 't', cwd: '/w' }));
  for (let i = 0; i < n; i++) {
    const id = piId(g);
    const parent = piParent(g, i);
    const line = piDamage(
      g,
      JSON.stringify({
        type: g.pick(['message', 'message', 'model_change', 'compaction']),
        id,
        parentId: parent,
        timestamp: 't',
        message: { role: 'user', content: 'x' },
      }),
    );
    out.push(line);
    if (!line.includes('"parent":') && /"id":"/.test(line)) g.ids.push(id);
  }
  return out.map((l) => Buffer.from(l));
}

/**
 * The reader against its reference over 3,000 seeded transcripts; how many of them left something
 * (the map was needed) and how many were whole chains.
 */
function agree(
  make: () => BranchTracker,
  ref: (lines: Buffer[]) => Set<string> | null,
  gen: (r: () => number) => Buffer[],
): { branched: number; chains: number } {
  let branched = 0;
  let chains = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const lines = gen(rng(seed));
    const t = make();
    // each line as a view into a larger buffer that is overwritten after (as the scan hands them on)
    for (const l of lines) {
      const big = Buffer.alloc(l.length + 64, 0x22);
      l.copy(big, 32);
      t.visit(big.subarray(32, 32 + l.length), () => parseOrNull(l));
      big.fill(0x22);
    }
    const want = ref(lines);
    if (want?.size) branched++;
    if (want && want.size === 0) chains++;
    expect(weighed(t.result()), `seed ${seed}:\n${lines.join('\n')}`).toEqual(weighed(want));
  }
  return { branched, chains };
}

const parseOrNull = (line: Buffer) => {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return null;
  }
};

describe("pi's abandoned branches", () => {
  it('tells what a map of every link tells, over seeded random transcripts', () => {
    const { branched, chains } = agree(must(search.branches), reference, transcript);
    // the seeds reach the map, not only chains
    expect(branched).toBeGreaterThan(300);
    expect(chains).toBeGreaterThan(300);
  });

  it('a chain leaves nothing; a branch left is told at once', () => {
    const line = (id: string, p: string | null) => Buffer.from(JSON.stringify({ type: 'message', id, parentId: p, timestamp: 't' }));
    const feed = (ls: Buffer[]) => {
      const t = must(search.branches?.());
      for (const l of ls) t.visit(l, () => JSON.parse(l.toString()));
      return t.result();
    };
    expect(feed([])).toBeNull();
    expect(feed([line('a', null), line('b', 'a'), line('c', 'b')])).toEqual(new Set());
    // c was left: d goes on from b
    expect(feed([line('a', null), line('b', 'a'), line('c', 'b'), line('d', 'b')])).toEqual(new Set(['c']));
    // a long id after a short one, and the other way round
    expect(feed([line('a', null), line('b'.repeat(300), 'a'), line('c', 'b'.repeat(300)), line('e', 'a')])).toEqual(
      new Set(['b'.repeat(300), 'c']),
    );
  });
});

// ---- Claude Code ----------------------------------------------------------------------------------

const C_HEAD = 1024;
const C_TAIL = 2048;
const K_UUID = Buffer.from('"uuid":"');
const K_PUUID = Buffer.from('"parentUuid":');
const K_LOGICAL = Buffer.from('"logicalParentUuid":');

/** a record's place in the tree as the reader took it before, from the bytes or else decoded */
function claudeLink(line: Buffer, parse: () => Decoded): { id: string; parent: string | null; message: boolean } | null {
  const fallback = () => {
    const o = parse();
    if (!o || typeof o !== 'object' || typeof o.uuid !== 'string') return null;
    const parent = typeof o.parentUuid === 'string' ? o.parentUuid : typeof o.logicalParentUuid === 'string' ? o.logicalParentUuid : null;
    return { id: o.uuid as string, parent, message: o.type === 'user' || o.type === 'assistant' };
  };
  if (line.length < K_PUUID.length + 1 || line.compare(K_PUUID, 0, K_PUUID.length, 1, 1 + K_PUUID.length) !== 0) {
    return line.indexOf(K_UUID) >= 0 ? fallback() : null;
  }
  let parent = firstLink(line.subarray(0, C_HEAD), K_PUUID);
  const tail = line.subarray(Math.max(0, line.length - C_TAIL));
  const u = tail.lastIndexOf(K_UUID);
  if (u < 0 || parent === undefined) return fallback();
  const e = tail.indexOf(0x22, u + K_UUID.length);
  if (e < 0) return fallback();
  const id = tail.toString('latin1', u + K_UUID.length, e);
  const t = firstString(line.subarray(0, C_HEAD), K_TYPE);
  if (parent === null) {
    const l = firstLink(line.subarray(0, C_HEAD), K_LOGICAL);
    if (typeof l === 'string') parent = l;
  }
  return { id, parent, message: t === 'user' || t === 'assistant' };
}

function claudeReference(lines: Buffer[]): Set<string> | null {
  const parent = new Map<string, string | null>();
  const messages: string[] = [];
  let leaf: string | null = null;
  let roots = 0;
  for (const line of lines) {
    const l = claudeLink(line, () => parseOrNull(line));
    if (!l) continue;
    parent.set(l.id, l.parent);
    if (l.message) {
      messages.push(l.id);
      leaf = l.id;
      if (l.parent == null) roots++;
    }
  }
  if (!leaf || roots > 1) return null;
  const live = new Set<string>();
  for (let u: string | null = leaf; u != null; u = parent.get(u) ?? null) {
    if (live.has(u) || !parent.has(u)) return null;
    live.add(u);
  }
  return new Set(messages.filter((u) => !live.has(u)));
}

/** a Claude record's uuid: of the usual shape, now and then one with a quote, a backslash or a character past Latin-1 */
function claudeId({ r, pick, ids }: Gen, i: number): string {
  const odd = r();
  if (r() < 0.03 && ids.length) return pick(ids);
  if (odd < 0.03) return `q"${i}`;
  if (odd < 0.05) return `b\\${i}`;
  if (odd < 0.07) return `ü${i}é`;
  if (odd < 0.08) return `猫${i}`;
  return `u${Math.floor(r() * 1e6)}`;
}

/** a Claude record's parent: mostly the record before, now and then none, an earlier one or one never written */
function claudeParent({ r, pick, ids }: Gen, i: number): string | null {
  const roll = r();
  const prev = ids[ids.length - 1];
  if (i === 0) return r() < 0.85 ? null : 'elsewhere';
  if (roll < 0.72) return prev;
  if (roll < 0.76) return null;
  if (roll < 0.95) return pick(ids);
  return `${prev}z`;
}

/** a Claude line as written, then (by `kind`, drawn before) changed in one of the ways the reader must survive */
function claudeDamage(rec: Record<string, unknown>, kind: number): string {
  const line = JSON.stringify(rec);
  const { type, parentUuid: parent } = rec;
  if (kind >= 0.04 && kind < 0.07) return line.replace(/,"timestamp":/, `,"pad":"${'t'.repeat(C_TAIL)}","timestamp":`); // its uuid past the tail: decoded
  // (the long messages, kind < 0.04, have their keys in another order too)
  if (kind < 0.1) return `{"type":"${type}","parentUuid":${JSON.stringify(parent)},${line.slice(1).replace(/"type":"[a-z]+",/, '')}`; // keys in another order
  if (kind < 0.12) return line.slice(0, line.length - 20); // cut
  if (kind < 0.14) return line.replace('"uuid":', '"id":'); // no uuid: not in the tree
  if (kind < 0.16) return line.replace('"isSidechain":false,', `"pad":"${'h'.repeat(C_HEAD)}",`); // its type past the head
  if (kind < 0.17) return JSON.stringify({ type: 'file-history-snapshot', messageId: 'm', snapshot: {} }); // not a record of the tree
  return line;
}

function claudeTranscript(r: () => number): Buffer[] {
  const g = gen(r);
  const { ids, pick } = g;
  const out: string[] = [];
  const n = 1 + Math.floor(r() * 16);
  for (let i = 0; i < n; i++) {
    const id = claudeId(g, i);
    const prev = ids[ids.length - 1];
    const parent = claudeParent(g, i);
    const type = pick(['user', 'assistant', 'assistant', 'system', 'progress', 'attachment']);
    const rec: Record<string, unknown> = {
      parentUuid: parent,
      isSidechain: false,
      type,
      message: { role: type, content: [{ type: 'text', text: 'x' }] },
    };
    if (parent === null && i > 0 && r() < 0.6) rec.logicalParentUuid = r() < 0.7 ? prev : pick(ids);
    // a nested uuid in a tool's input comes before the record's own
    if (r() < 0.1) rec.toolUseResult = { uuid: 'nested', filePath: '/x' };
    const kind = r();
    if (kind < 0.04) rec.message = { role: type, content: [{ type: 'text', text: 'p'.repeat(3000) }] }; // own uuid within the tail still
    rec.uuid = id;
    rec.timestamp = '2026-01-01T00:00:00.000Z';
    const line = claudeDamage(rec, kind);
    out.push(line);
    if (parseOrNull(Buffer.from(line))?.uuid === id) ids.push(id);
  }
  return out.map((l) => Buffer.from(l));
}

describe("Claude Code's abandoned branches", () => {
  it('tells what a map of every link tells, over seeded random transcripts', () => {
    const { branched, chains } = agree(must(claudeSearch.branches), claudeReference, claudeTranscript);
    expect(branched).toBeGreaterThan(300);
    expect(chains).toBeGreaterThan(300);
  });

  it('a link the head does not close, and a value with a quote in it, are read as before', () => {
    const feed = (ls: string[]) => {
      const t = must(claudeSearch.branches?.());
      for (const l of ls) t.visit(Buffer.from(l), () => parseOrNull(Buffer.from(l)));
      return weighed(t.result());
    };
    const want = (ls: string[]) => weighed(claudeReference(ls.map((l) => Buffer.from(l))));
    const rec = (parent: string | null, type: string, uuid: string) =>
      JSON.stringify({ parentUuid: parent, isSidechain: false, type, message: { content: 'x' }, uuid });
    // an id so long that the link to it is not closed within the head: that line is decoded, and its
    // type (past the head) makes it a message, left when the next goes on from the first
    const long = 'L'.repeat(1100);
    const a = [rec(null, 'user', long), rec(long, 'user', 'b'), rec(long, 'assistant', 'c')];
    expect(feed(a)).toEqual(['b']);
    expect(feed(a)).toEqual(want(a));
    // an id with a quote (decoded: its keys are not in Claude's order), then a broken line whose link
    // holds the same bytes: the link is read up to its quote, as before, and leads nowhere
    const q = [
      '{"parentUuid":null,"type":"user","uuid":"x"}',
      '{"type":"user","parentUuid":"x","uuid":"q\\"1"}',
      '{"parentUuid":"q"1","type":"user","uuid":"z"}',
      '{"parentUuid":"x","type":"user","uuid":"v"}',
      '{"parentUuid":"z","type":"user","uuid":"w"}',
    ];
    expect(parseOrNull(Buffer.from(q[1])).uuid).toBe('q"1');
    expect(feed(q)).toEqual(want(q));
    expect(feed(q)).toEqual([]);
  });
});
