// The files a search need not read: while the calling thread loads the listing and groups the
// sessions (about a second at 22,000 sessions, when the search's worker thread has nothing to do
// yet), the worker reads the transcripts the index knows and marks each one that holds no
// needle of the search anywhere in its bytes. The scan then passes over a marked file as one read
// with no hit: it counts its bytes and hands on nothing, which is what its lines would have given
// (a file without a needle yields no line, no raw hit and no branch tree; scan.ts).
//
// The marks live in shared memory: one byte per file (0: not read, or it holds a needle; 1: it holds
// none), the bytes each marked file had, the next file to read (every thread that marks takes files
// from it, largest first: run.ts), how many files are done and how many marked, the KiB read in
// files found to hold a needle, and a flag that tells the workers to stop, set when the scan begins.
// A file that could not be read is left unmarked: the scan reads it and counts it.
//
// When the calling thread has the listing it marks the files left itself, beside the workers, before
// the scan (`finishHere`), while most files taken were marked (a word in few sessions, or in none):
// the files left are then mostly ones the scan would read whole for nothing, and marking one costs
// less than scanning it. Once most files taken turn out to hold a needle (a word in most sessions),
// it stops, and so do the workers when the scan begins: the scan reads those files again anyway.
//
// The check is a superset of the scan's: every byte of the file is folded as the scan folds it
// (fold.ts) and searched for every needle, the end of each read kept in front of the next so no
// needle is missed at a seam. A marked file is as it was when the worker read it, a moment before
// the scan would have: a search, like a listing, is of the files as they were when read.
import fs from 'node:fs';
import { CHUNK } from '../util/fsx.js';
import { Folder, findIn, Needle } from './fold.js';

/** What a worker is given to mark: the files, and the shared memory of the marks. */
export interface PrefilterMsg {
  files: string[];
  needles: string[];
  shared: SharedArrayBuffer;
}

/**
 * Files taken (by any thread) before the calling thread may judge that most hold a needle and give
 * up marking (finishHere). A file being read counts as taken and not marked.
 */
const EVIDENCE = 16;
/**
 * Or KiB read, in files found to hold a needle, before it may judge so with fewer files: the files
 * are taken largest first, and a word in most files that first occurs late in each would have it
 * read the 16 largest nearly whole (a quarter of the bench's 686-session corpus) before giving up.
 */
const WASTED_KIB = 64 << 10;

/** the shared memory's head: five counters (prefilter's `ctl`), and room to align the sizes */
const HEAD = 24;

/** What `cleanBytes` read of its last file: the bytes, and whether it stopped at a needle. */
export interface Seen {
  bytes: number;
  needle: boolean;
}

export class Prefilter {
  readonly files: string[];
  readonly needles: string[];
  readonly shared: SharedArrayBuffer;
  private ctl: Int32Array;
  private marks: Uint8Array;
  private sizes: Float64Array;
  private at: Map<string, number> | null = null;

  constructor(files: string[], needles: string[], shared?: SharedArrayBuffer) {
    this.files = files;
    this.needles = needles;
    // the stop flag, the next file, the files done, the files marked and the KiB read in files found
    // to hold a needle (4 bytes each; 24 in all, for the sizes' alignment), the sizes, the marks
    this.shared = shared ?? new SharedArrayBuffer(HEAD + files.length * 9);
    this.ctl = new Int32Array(this.shared, 0, 5);
    this.sizes = new Float64Array(this.shared, HEAD, files.length);
    this.marks = new Uint8Array(this.shared, HEAD + files.length * 8, files.length);
  }

  static of(m: PrefilterMsg): Prefilter {
    return new Prefilter(m.files, m.needles, m.shared);
  }

  /**
   * Marks made from the files' signatures (sigs.ts) instead of reads: every file `clean` gives bytes
   * for is marked, and none is left for a thread to read.
   */
  static marked(files: string[], clean: (file: string) => number | undefined): Prefilter {
    const p = new Prefilter(files, []);
    for (let i = 0; i < files.length; i++) {
      const n = clean(files[i]);
      if (n === undefined) continue;
      p.sizes[i] = n;
      p.marks[i] = 1;
      p.ctl[3]++;
    }
    p.ctl[1] = files.length;
    p.ctl[2] = files.length;
    return p;
  }

  msg(): PrefilterMsg {
    return { files: this.files, needles: this.needles, shared: this.shared };
  }

  /**
   * The calling thread's part, once it has the listing: it marks the files left beside the workers
   * while most of the files taken so far were marked (it gives up, leaving the rest to the scan, once
   * EVIDENCE files have been taken, or WASTED_KIB read in files that hold a needle, and fewer than
   * half were marked: a word in most sessions), then waits for the files the workers are still
   * reading, as one left unmarked would be read again, whole, by the scan. The wait is bounded
   * (`waitMs`): a worker that is gone leaves its file unmarked, and the scan reads it.
   */
  finishHere(waitMs = 2000): void {
    if (!this.run(true)) return;
    const until = Date.now() + waitMs;
    for (;;) {
      const done = Atomics.load(this.ctl, 2);
      const left = until - Date.now();
      if (done >= this.files.length || left <= 0) return;
      Atomics.wait(this.ctl, 2, done, left);
    }
  }

  /** Tell the worker to stop marking (the scan begins). */
  stop(): void {
    Atomics.store(this.ctl, 0, 1);
  }

  /** Each file's place in the marks, made now (else on the first `clean`). */
  lookup(): Map<string, number> {
    if (!this.at) {
      this.at = new Map();
      for (let i = 0; i < this.files.length; i++) this.at.set(this.files[i], i);
    }
    return this.at;
  }

  /** The bytes of `file` when it was found to hold no needle, else undefined (the scan reads it). */
  clean(file: string): number | undefined {
    const i = this.lookup().get(file);
    return i !== undefined && Atomics.load(this.marks, i) === 1 ? this.sizes[i] : undefined;
  }

  /**
   * Mark files, taking the next from the shared counter, until none is left (true) or told to stop
   * (a worker's work before the scan); with `giveUp` (finishHere), also until most files taken turn
   * out to hold a needle (false then, and when told to stop).
   */
  run(giveUp = false): boolean {
    const folded = this.needles.map((n) => new Needle(n));
    if (folded.length === 0) return false;
    const carry = Math.max(...folded.map((n) => n.length)) - 1;
    const folder = new Folder();
    const seen: Seen = { bytes: 0, needle: false };
    for (;;) {
      if (Atomics.load(this.ctl, 0) !== 0) return false;
      if (giveUp) {
        const taken = Math.min(Atomics.load(this.ctl, 1), this.files.length);
        if ((taken >= EVIDENCE || Atomics.load(this.ctl, 4) >= WASTED_KIB) && Atomics.load(this.ctl, 3) * 2 < taken) return false;
      }
      const i = Atomics.add(this.ctl, 1, 1);
      if (i >= this.files.length) return true;
      const bytes = cleanBytes(this.files[i], folded, carry, folder, { ctl: this.ctl, seen });
      if (bytes >= 0) {
        this.sizes[i] = bytes;
        Atomics.store(this.marks, i, 1);
        Atomics.add(this.ctl, 3, 1);
      } else if (seen.needle) Atomics.add(this.ctl, 4, Math.ceil(seen.bytes / 1024));
      Atomics.add(this.ctl, 2, 1);
      Atomics.notify(this.ctl, 2);
    }
  }
}

/**
 * The bytes of `file` if none of the folded needles is in it; -1 if one is, or it cannot be read, or
 * `ctl`'s stop flag was set while it was read (the scan begins: a large file is not read to its end).
 * `seen` is told how much was read, and whether a needle was found.
 */
export function cleanBytes(
  file: string,
  folded: Needle[],
  carry: number,
  folder: Folder,
  watch: { ctl?: Int32Array; seen?: Seen } = {},
): number {
  const { ctl, seen } = watch;
  if (seen) {
    seen.bytes = 0;
    seen.needle = false;
  }
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return -1;
  }
  try {
    let pos = 0;
    let kept = 0;
    let len = 0;
    for (;;) {
      const low = folder.foldNext(fd, pos, CHUNK, kept, len);
      const got = low.length - kept;
      if (got <= 0) return pos;
      if (seen) seen.bytes = pos + got;
      for (const nd of folded) {
        if (findIn(low, nd) >= 0) {
          if (seen) seen.needle = true;
          return -1;
        }
      }
      if (ctl && Atomics.load(ctl, 0) !== 0) return -1;
      pos += got;
      len = low.length;
      kept = Math.min(carry, len);
    }
  } catch {
    return -1;
  } finally {
    fs.closeSync(fd);
  }
}
