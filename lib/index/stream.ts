// The finished list, streamed while a full build is still reading files, exactly in its final order.
//
// Files are read newest first by their bound: the latest mtime of the file and its dependencies
// (SQLite -wal, side files). A harness stamps a session's times as it writes them, so no session
// of a file is newer than the file's bound. The watermark is the bound of the next file to read:
// a parsed session strictly newer than it can be handed over, because every session still to come
// is at most that new. Sessions of a harness with a `finish` pass (forks, titles, duplicates across
// files) are held until all of its files are read and the pass has run; its files are read as one
// group, placed at its newest file's bound (the pass may take a session's time from any of them).
// Ties wait for the next lower watermark, so the id order of equal times is kept.
//
// If a file holds a session stamped later than the file's own mtime (a clock set back, a file whose
// mtime was set into the past) that session may come out of place in this stream; the finished
// list every later run reads is sorted as always.
import type { Harness, Session, SessionCore } from '../types.js';

export interface Planned {
  src: { path: string; harness: Harness };
}

export function recency(s: SessionCore): number {
  return s.updated ?? s.started ?? 0;
}

export function byRecency(a: SessionCore, b: SessionCore): number {
  const x = recency(a);
  const y = recency(b);
  if (x !== y) return y - x;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The order to read the jobs in, with each job's key (its place in the order): newest bound first;
 * the jobs of a finishing harness together, keyed by the newest bound of all of that harness's files.
 */
export function planOrder<J extends Planned>(jobs: J[], bounds: Map<string, number>, finishing: Set<Harness>, found: { src: { path: string; harness: Harness }; bound: number }[]): { job: J; key: number }[] {
  const groupKey = new Map<Harness, number>();
  for (const f of found) if (finishing.has(f.src.harness)) groupKey.set(f.src.harness, Math.max(groupKey.get(f.src.harness) ?? -Infinity, f.bound));
  const keyed = jobs.map((job) => {
    const own = bounds.get(job.src.path) ?? 0;
    const g = groupKey.get(job.src.harness);
    return { job, key: g ?? own, own, group: g == null ? '' : job.src.harness };
  });
  keyed.sort((a, b) => b.key - a.key || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0) || b.own - a.own);
  return keyed.map(({ job, key }) => ({ job, key }));
}

/** Newest-first binary heap of sessions. */
class Heap {
  private a: Session[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): Session | undefined {
    return this.a[0];
  }
  push(s: Session): void {
    const a = this.a;
    a.push(s);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (byRecency(a[i]!, a[p]!) >= 0) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): Session | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && byRecency(a[l]!, a[m]!) < 0) m = l;
        if (r < a.length && byRecency(a[r]!, a[m]!) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Collects sessions as their files are read and hands them over in order. `add` takes the sessions
 * of one file of a harness without a finish pass (the first of a key wins, as in the finished list);
 * `finished` takes a finishing harness's whole finished list; `flush(w)` hands over every session
 * newer than the watermark `w` (`-Infinity`: everything).
 */
export class OrderedStream {
  private heap = new Heap();
  private seen = new Set<string>();
  constructor(private emit: (batch: Session[]) => void) {}

  add(sessions: SessionCore[]): void {
    for (const s of sessions) {
      const key = `${s.harness}:${s.id}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.heap.push({ ...s, key });
    }
  }

  finished(sessions: Session[]): void {
    for (const s of sessions) this.heap.push(s);
  }

  flush(watermark: number): void {
    const batch: Session[] = [];
    for (let top = this.heap.peek(); top && recency(top) > watermark; top = this.heap.peek()) batch.push(this.heap.pop()!);
    if (batch.length) this.emit(batch);
  }
}
