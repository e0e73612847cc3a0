// Worker thread of deep search: scans groups, taking the next from a counter shared with the other
// threads, and posts back their hits.
import { parentPort } from 'node:worker_threads';
import type { Session } from '../types.js';
import { makeTerm, type Term } from './query.js';
import { newGroup } from './groups.js';
import { scanGroups } from './pool.js';
import { loadExtractors } from './registry.js';

interface Msg {
  terms: { text: string; phrase: boolean }[];
  need: string[];
  /** every group, largest first; the next to scan is taken from `counter` (shared with the other threads) */
  groups: { root: Session; members: Session[] }[];
  counter: SharedArrayBuffer;
}

// Loaded at once: a worker may be started before the search is known (pool.ts prestartWorkers).
const loaded = loadExtractors();

parentPort!.on('message', async (m: Msg | null) => {
  if (m === null) process.exit(0);
  await loaded;
  const terms = m.terms.map((t) => makeTerm(t.text, t.phrase)).filter((t): t is Term => t !== null);
  // the root is the first member (as groupSessions builds them): keep object identity
  const groups = m.groups.map((g) => newGroup(g.members[0]!, g.members));
  const counter = new Int32Array(m.counter);
  const pick = () => {
    const i = Atomics.add(counter, 0, 1);
    return i < groups.length ? i : -1;
  };
  parentPort!.postMessage(scanGroups(groups, terms, new Set(m.need), pick));
});
