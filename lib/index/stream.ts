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
// A harness with `finish.byLink` (Claude Code: its finish pass relates only sessions that share a link key, the
// forks) with large files is not read as a group (`build` decides): its files take their own
// places, and a session is handed over as soon as it is read when the pass cannot touch it: no
// other file of the harness has its key or link key, which `Links` knows from the first lines of
// every file (a link key is a file's first prompt, read before the rest). The others are held for
// the pass, and nothing older than their file's bound is handed over before it has run: the pass
// over the files it may relate (those that share a key or link key) alone, once they are all
// read, or the harness's whole pass. On the 686-session corpus, whose newest files are Claude
// Code's, the first row no longer waits for all 52 of them (~65 ms, a sixth of the build).
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
export function planOrder<J extends Planned>(
  jobs: J[],
  bounds: Map<string, number>,
  finishing: Set<Harness>,
  found: { src: { path: string; harness: Harness }; bound: number }[],
): { job: J; key: number }[] {
  const groupKey = new Map<Harness, number>();
  for (const f of found)
    if (finishing.has(f.src.harness)) groupKey.set(f.src.harness, Math.max(groupKey.get(f.src.harness) ?? -Infinity, f.bound));
  const keyed = jobs.map((job) => {
    const own = bounds.get(job.src.path) ?? 0;
    const g = groupKey.get(job.src.harness);
    return { job, key: g ?? own, own, group: g == null ? '' : job.src.harness };
  });
  keyed.sort((a, b) => b.key - a.key || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0) || b.own - a.own);
  return keyed.map(({ job, key }) => ({ job, key }));
}

/**
 * What the first lines of every file of the harnesses with `finish.byLink` say of their sessions: which keys
 * and link keys more than one file has. A file whose first lines name no session, or a session
 * whose link key they do not give yet (its first prompt is further on), leaves its harness unsure:
 * every session of it is then held for the finish pass.
 */
export class Links {
  private files = new Map<string, number>();
  private own = new Map<string, Set<string>>();
  private unsure = new Set<Harness>();

  /** The sessions of `file` as its first lines give them (`whole`: they were the whole file); null: it could not be read. */
  see(h: Harness, file: string, sessions: SessionCore[] | null, whole: boolean): void {
    if (!sessions || (!whole && (sessions.length === 0 || sessions.some((s) => !s.link)))) {
      this.unsure.add(h);
      return;
    }
    const marks = new Set<string>();
    for (const s of sessions) {
      marks.add(`k${s.harness}:${s.id}`);
      if (s.link) marks.add(`l${s.harness}:${s.link}`);
    }
    for (const m of marks) this.files.set(m, (this.files.get(m) ?? 0) + 1);
    this.own.set(file, marks);
  }

  /** The finish pass may relate this file's sessions to another file's (they share a key or link key, or it cannot tell). */
  tangled(h: Harness, file: string): boolean {
    const own = this.own.get(file);
    return this.unsure.has(h) || !own || [...own].some((m) => this.files.get(m) !== 1);
  }

  /** No other file of its harness has this session's key or link key, and it is no fork: the finish pass leaves it as it is. */
  stands(file: string, s: SessionCore): boolean {
    if (this.unsure.has(s.harness) || s.forkedFrom) return false;
    const own = this.own.get(file);
    if (!own) return false;
    const mine = (m: string) => own.has(m) && this.files.get(m) === 1;
    return mine(`k${s.harness}:${s.id}`) && (s.link ? mine(`l${s.harness}:${s.link}`) : ![...own].some((m) => m[0] === 'l'));
  }
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
    // sift up: parents newer-last move down into the hole until s fits
    const a = this.a;
    let i = a.length;
    a.push(s);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p];
      if (parent === undefined || byRecency(s, parent) >= 0) break;
      a[i] = parent;
      i = p;
    }
    a[i] = s;
  }
  pop(): Session | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    // sift down: the newer child moves up into the hole until the last element fits
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const left = a[l];
      if (left === undefined) break; // (no child: a heap has no holes)
      const right = a[l + 1];
      let m = l;
      let child = left;
      if (right !== undefined && byRecency(right, left) < 0) {
        m = l + 1;
        child = right;
      }
      if (byRecency(child, last) >= 0) break;
      a[i] = child;
      i = m;
    }
    a[i] = last;
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
  /** the newest bound of the files each harness holds sessions of for its finish pass */
  private held = new Map<Harness, number>();
  constructor(private emit: (batch: Session[]) => void) {}

  add(sessions: SessionCore[]): void {
    for (const s of sessions) {
      const key = `${s.harness}:${s.id}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.heap.push({ ...s, key });
    }
  }

  /** Sessions of a file of bound `bound` are held for harness h's finish pass: nothing older is handed over before it. */
  hold(h: Harness, bound: number): void {
    this.held.set(h, Math.max(this.held.get(h) ?? -Infinity, bound));
  }

  /** Harness h's finished list, or the part of it a pass over some of its files gave (but the sessions taken already). */
  finished(h: Harness, sessions: Session[]): void {
    this.held.delete(h);
    for (const s of sessions) {
      if (this.seen.has(s.key)) continue;
      this.seen.add(s.key);
      this.heap.push(s);
    }
  }

  flush(watermark: number): void {
    let w = watermark;
    for (const b of this.held.values()) w = Math.max(w, b);
    const batch: Session[] = [];
    for (let top = this.heap.peek(); top && recency(top) > w; top = this.heap.peek()) {
      this.heap.pop();
      batch.push(top);
    }
    if (batch.length) this.emit(batch);
  }
}
