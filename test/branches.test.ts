// pi's abandoned-branch reader (lib/harness/pi/text.ts `branches`), which follows a session that is
// one chain of entries on the bytes alone and makes its map of links only at the first entry that
// is not the child of the one before: what it tells is what the map of every link tells (the
// reference below, the reader as it was before the chain was read apart), over seeded random
// transcripts with branches, repeated ids, headers, broken and truncated lines. (End to end: the
// pi case of search-deep.test.ts.)
import { describe, expect, it } from 'vitest';
import { search } from '../lib/harness/pi/text.js';
import { firstLink, firstString } from '../lib/harness/branches.js';

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

function transcript(r: () => number): Buffer[] {
  const ids: string[] = [];
  const out: string[] = [];
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const n = 1 + Math.floor(r() * 14);
  if (r() < 0.8) out.push(JSON.stringify({ type: 'session', version: 3, id: 'hdr', timestamp: 't', cwd: '/w' }));
  for (let i = 0; i < n; i++) {
    // ids from a small set (repeats happen), sometimes longer or shorter than the last
    const id = r() < 0.03 && ids.length ? pick(ids) : `e${Math.floor(r() * 100000)}${r() < 0.2 ? 'x' : ''}`;
    const roll = r();
    const parent = i === 0 ? (r() < 0.85 ? null : 'elsewhere') : roll < 0.7 ? ids[ids.length - 1]! : roll < 0.72 ? null : roll < 0.95 ? pick(ids) : `${ids[ids.length - 1]}z`;
    let line = JSON.stringify({ type: pick(['message', 'message', 'model_change', 'compaction']), id, parentId: parent, timestamp: 't', message: { role: 'user', content: 'x' } });
    const kind = r();
    if (kind < 0.04) line = line.replace('"parentId":', '"parent":'); // no link: not in the tree
    else if (kind < 0.08) line = line.slice(0, line.indexOf('"parentId":') + 13 + Math.floor(r() * 4)); // cut inside the link
    else if (kind < 0.1) line = line.replace('"id":"', '"id":'); // an id that is not a string
    else if (kind < 0.12) line = line.replace(/"type":"[a-z_]+"/, '"type":"session"'); // a header's type
    else if (kind < 0.14) line = `{"type":"message","pad":"${'p'.repeat(HEAD)}",` + line.slice(1); // its keys past the head
    else if (kind < 0.16) line = line.replace('"type":"message"', '"type":"sess'); // a type cut short
    out.push(line);
    if (!line.includes('"parent":') && /"id":"/.test(line)) ids.push(id);
  }
  return out.map((l) => Buffer.from(l));
}

describe("pi's abandoned branches", () => {
  it('tells what a map of every link tells, over seeded random transcripts', () => {
    let branched = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const lines = transcript(rng(seed));
      const t = search.branches!();
      // each line as a view into a larger buffer that is reused after (as the scan hands them on)
      for (const l of lines) {
        const big = Buffer.alloc(l.length + 64, 0x22);
        l.copy(big, 32);
        t.visit(big.subarray(32, 32 + l.length), () => JSON.parse(l.toString()));
        big.fill(0x22);
      }
      const want = reference(lines);
      if (want && want.size) branched++;
      expect(weighed(t.result()), `seed ${seed}:\n${lines.join('\n')}`).toEqual(weighed(want));
    }
    // the seeds reach the map, not only chains
    expect(branched).toBeGreaterThan(300);
  });

  it('a chain leaves nothing; a branch left is told at once', () => {
    const line = (id: string, p: string | null) => Buffer.from(JSON.stringify({ type: 'message', id, parentId: p, timestamp: 't' }));
    const feed = (ls: Buffer[]) => {
      const t = search.branches!();
      for (const l of ls) t.visit(l, () => JSON.parse(l.toString()));
      return t.result();
    };
    expect(feed([])).toBeNull();
    expect(feed([line('a', null), line('b', 'a'), line('c', 'b')])).toEqual(new Set());
    // c was left: d goes on from b
    expect(feed([line('a', null), line('b', 'a'), line('c', 'b'), line('d', 'b')])).toEqual(new Set(['c']));
    // a long id after a short one, and the other way round
    expect(feed([line('a', null), line('b'.repeat(300), 'a'), line('c', 'b'.repeat(300)), line('e', 'a')])).toEqual(new Set(['b'.repeat(300), 'c']));
  });
});
