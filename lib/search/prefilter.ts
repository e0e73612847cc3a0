// The files a search need not read: while the calling thread loads the listing and groups the
// sessions (about a second at 22,000 sessions, when the search's worker thread has nothing to do
// yet), the worker reads the transcripts the index knows and marks each one that holds no
// needle of the search anywhere in its bytes. The scan then passes over a marked file as one read
// with no hit: it counts its bytes and hands on nothing, which is what its lines would have given
// (a file without a needle yields no line, no raw hit and no branch tree; scan.ts).
//
// The marks live in shared memory: one byte per file (0: not read, or it holds a needle; 1: it holds
// none), the bytes each marked file had, the next file to read (every worker thread takes files
// from it), and a flag that tells the workers to stop, set when the scan begins. A file that could
// not be read is left unmarked: the scan reads it and counts it.
//
// The check is a superset of the scan's: every byte of the file is folded as the scan folds it
// (fold.ts) and searched for every needle, the end of each read kept in front of the next so no
// needle is missed at a seam. A marked file is as it was when the worker read it, a moment before
// the scan would have: a search, like a listing, is of the files as they were when read.
import fs from 'node:fs';
import { CHUNK } from './scan.js';
import { Folder, Needle, findIn } from './fold.js';

/** What a worker is given to mark: the files, and the shared memory of the marks. */
export interface PrefilterMsg {
  files: string[];
  needles: string[];
  shared: SharedArrayBuffer;
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
    // the stop flag and the next file (4 bytes each), the sizes, the marks
    this.shared = shared ?? new SharedArrayBuffer(8 + files.length * 9);
    this.ctl = new Int32Array(this.shared, 0, 2);
    this.sizes = new Float64Array(this.shared, 8, files.length);
    this.marks = new Uint8Array(this.shared, 8 + files.length * 8, files.length);
  }

  static of(m: PrefilterMsg): Prefilter {
    return new Prefilter(m.files, m.needles, m.shared);
  }

  msg(): PrefilterMsg {
    return { files: this.files, needles: this.needles, shared: this.shared };
  }

  /** Tell the worker to stop marking (the scan begins). */
  stop(): void {
    Atomics.store(this.ctl, 0, 1);
  }

  /** The bytes of `file` when it was found to hold no needle, else undefined (the scan reads it). */
  clean(file: string): number | undefined {
    if (!this.at) {
      this.at = new Map();
      for (let i = 0; i < this.files.length; i++) this.at.set(this.files[i]!, i);
    }
    const i = this.at.get(file);
    return i !== undefined && Atomics.load(this.marks, i) === 1 ? this.sizes[i] : undefined;
  }

  /** Mark files, taking the next from the shared counter, until none is left or told to stop (a worker's work before the scan). */
  run(): void {
    const folded = this.needles.map((n) => new Needle(n));
    if (folded.length === 0) return;
    const carry = Math.max(...folded.map((n) => n.length)) - 1;
    const folder = new Folder();
    for (;;) {
      if (Atomics.load(this.ctl, 0) !== 0) return;
      const i = Atomics.add(this.ctl, 1, 1);
      if (i >= this.files.length) return;
      const bytes = cleanBytes(this.files[i]!, folded, carry, folder);
      if (bytes < 0) continue;
      this.sizes[i] = bytes;
      Atomics.store(this.marks, i, 1);
    }
  }
}

/** The bytes of `file` if none of the folded needles is in it; -1 if one is, or it cannot be read. */
export function cleanBytes(file: string, folded: Needle[], carry: number, folder: Folder): number {
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
      for (const nd of folded) if (findIn(low, nd) >= 0) return -1;
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
