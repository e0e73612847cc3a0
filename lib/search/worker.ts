// Worker thread of deep search: scans groups, taking the next from a counter shared with the other
// threads, and posts back their hits.
import { parentPort } from 'node:worker_threads';
import type { Harness, Session } from '../types.js';
import { newGroup } from './groups.js';
import { POST_EVERY, packScan, type ScanOut, scanGroups } from './pool.js';
import { Prefilter, type PrefilterMsg } from './prefilter.js';
import { makeTerm, type Term } from './query.js';
import { noStats } from './read.js';
import { loadExtractors } from './registry.js';
import { makeWhole } from './sigs.js';

interface Msg {
  terms: { text: string; phrase: boolean }[];
  need: string[];
  /** every group as its members, the root first, largest first; the next to scan is taken from `counter` (shared with the other threads) */
  groups: Session[][];
  counter: SharedArrayBuffer;
  /** the groups are weighed only (pool.ts SearchOptions `evidence`) */
  bare: boolean;
  /** SearchOptions `home` */
  home: string;
  /** how many groups that hold a term to post at a time (pool.ts POST_EVERY) */
  postEvery?: number;
}

/** the marks this thread made or shares, before the scan (null: none); the files marked are passed over */
let pre: Prefilter | null = null;

// Loaded at once: a worker may be started before the search is known (pool.ts prestartWorkers).
const loaded = loadExtractors();

// (this file is only ever a worker thread's script)
const port = parentPort as NonNullable<typeof parentPort>;
port.on('message', async (m: Msg | { prefilter: PrefilterMsg } | { whole: { file: string; harness: Harness | undefined } } | null) => {
  if (m === null) process.exit(0);
  if ('whole' in m) {
    // a file's signature and pieces for `resume index` (sigpool.ts), made from all its bytes
    await loaded;
    port.postMessage({ whole: makeWhole(m.whole.file, m.whole.harness) });
    return;
  }
  if ('prefilter' in m) {
    // until the scan begins: the scan's message waits in the queue meanwhile
    pre = Prefilter.of(m.prefilter);
    pre.run();
    return;
  }
  await loaded;
  const terms = m.terms.map((t) => makeTerm(t.text, t.phrase)).filter((t): t is Term => t !== null);
  const groups = m.groups.map((ms) => newGroup(ms[0], ms, m.bare, m.home));
  const counter = new Int32Array(m.counter);
  const pick = () => {
    const i = Atomics.add(counter, 0, 1);
    return i < groups.length ? i : -1;
  };
  // the groups that hold a term posted as they pile up (pool.ts POST_EVERY), the rest with the counts
  const send = (gs: ScanOut['groups']) => {
    const part = packScan({ groups: gs, stats: noStats() });
    port.postMessage({ part }, [part.nums.buffer]);
  };
  const post = { every: m.postEvery ?? POST_EVERY, send };
  const out = packScan(scanGroups(groups, terms, new Set(m.need), { pick, pre, post }));
  port.postMessage(out, [out.nums.buffer]);
});
