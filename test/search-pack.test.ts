// A worker's scan results as it posts them (lib/search/pool.ts packScan / unpackScan): what the
// calling thread reads back is what the worker had, field for field, through a real MessagePort
// with the numbers moved rather than copied. (That a search on worker threads gives the same results
// as one on a single thread is tested end to end in search.test.ts.)
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { type PackedScan, packScan, type ScanOut, unpackScan } from '../lib/search/pool.js';
import type { Hit } from '../lib/search/score.js';
import type { Role } from '../lib/search/types.js';

const ROLES: Role[] = ['user', 'assistant', 'tool-call', 'tool-output', 'task', 'metadata'];

function hit(i: number): Hit {
  const b = (n: number) => ((i >> n) & 1) === 1;
  return {
    role: ROLES[i % ROLES.length],
    mask: i % 7 === 0 ? 0x7fffffff : (i % 5) + 1,
    k: (i % 3) + 1,
    file: `/home/u/.pi/agent/sessions/--w-proj--/${i % 4}.jsonl`,
    child: b(0),
    copied: b(1),
    summary: b(2),
    write: b(3),
    firstPrompt: b(4),
    abandoned: b(5),
    rids: undefined,
    via: i % 9 === 0 ? 'prompt history' : undefined,
    // a 53-bit piece hash, and scores that are not whole
    key: 0x1fffffffffffff - i * 7919,
    score: (i % 11) * 0.85 + 0.3,
    text: i % 6 === 0 ? `text with «marks» and 🦊 ${i}` : '',
    snippet:
      i % 4 === 0
        ? undefined
        : {
            text: `…about the badger ${i} café…`,
            marks:
              i % 8 === 1
                ? []
                : [
                    [10, 16],
                    [20 + i, 26 + i],
                  ],
          },
  };
}

function sample(): ScanOut {
  return {
    groups: [
      { key: 'pi:aaaa', mask: 3, hits: Array.from({ length: 8 }, (_, i) => hit(i)), nHits: 20, keys: [] },
      // a fork's source: every piece hash (more than a call could take as arguments)
      {
        key: 'claude:bbbb',
        mask: 0x7fffffff,
        hits: Array.from({ length: 5 }, (_, i) => hit(i + 40)),
        nHits: 7,
        keys: Array.from({ length: 300_000 }, (_, i) => i * 2 ** 20 + 0.0),
      },
      { key: 'codex:cccc', mask: 1, hits: [], nHits: 0, keys: [5, 6] },
    ],
    stats: { sessions: 12, files: 15, bytes: 123_456_789, hugeLines: 2, unreadable: 1, unindexed: 0 },
  };
}

describe('packed scan results', () => {
  it('read back field for field', () => {
    const out = sample();
    expect(unpackScan(packScan(out))).toEqual(out);
  });

  it('an empty result', () => {
    const out: ScanOut = { groups: [], stats: { sessions: 0, files: 0, bytes: 0, hugeLines: 0, unreadable: 0, unindexed: 0 } };
    expect(unpackScan(packScan(out))).toEqual(out);
  });

  it('through a message port, the numbers moved', async () => {
    const out = sample();
    const packed = packScan(out);
    const { port1, port2 } = new MessageChannel();
    const got = new Promise<PackedScan>((resolve) => port2.once('message', resolve));
    port1.postMessage(packed, [packed.nums.buffer]);
    // moved: the sender's array is left empty
    expect(packed.nums.length).toBe(0);
    const back = unpackScan(await got);
    port1.close();
    expect(back).toEqual(out);
    // each path is posted once, however many hits are from it
    expect(packScan(sample()).strs.filter((s) => s.endsWith('/0.jsonl'))).toHaveLength(1);
  });
});
