// Signatures made on worker threads (search-worker.cjs, lib/search/worker.ts): `resume index` over
// much to hash hands each file to be made whole to a thread, and writes what comes back on this
// thread, the database's only writer (sigs.ts fillSigsOn). Hashing every byte is most of the search
// index's build (~280 MB/s a thread here).
import { Worker } from 'node:worker_threads';
import type { Harness } from '../types.js';
import { makeWhole, type Whole, type WholeMaker } from './sigs.js';

/** each thread's young generation, MiB */
const YOUNG_MB = 8;

interface Job {
  file: string;
  harness: Harness | undefined;
  done: (w: Whole | null) => void;
}

/** Worker threads that make files' signatures whole, one file at a time each. */
export class SigPool implements WholeMaker {
  /** each live thread and the job it is on (null: idle) */
  private readonly on = new Map<Worker, Job | null>();
  private readonly waiting: Job[] = [];
  busy = 0;

  /** `n` threads of `file` (the search worker), started when the first file is handed over */
  constructor(
    private readonly file: string,
    private readonly n: number,
  ) {}

  private started = false;

  private start(): void {
    this.started = true;
    for (let i = 0; i < this.n; i++) {
      let w: Worker;
      try {
        // (a small young generation: a thread's garbage is the lines it decodes, and V8's default
        // let each thread hold ~20 MiB more, which put a full build at 22,000 sessions over 200 MiB)
        w = new Worker(this.file, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
      } catch {
        break; // (no threads to be had: what is handed over is made here)
      }
      this.on.set(w, null);
      w.on('message', (m: { whole: Whole | null }) => this.back(w, m.whole));
      // (a thread that fails or ends, out of memory for one: the others go on, and its file is made here)
      w.on('error', () => this.lost(w));
      w.on('exit', () => this.lost(w));
    }
  }

  /** two a thread: one being made, one waiting */
  get room(): number {
    return Math.max(1, this.n * 2);
  }

  make(file: string, harness: Harness | undefined): Promise<Whole | null> {
    if (!this.started) this.start();
    return new Promise((done) => {
      this.busy++;
      this.waiting.push({ file, harness, done });
      this.pump();
    });
  }

  private pump(): void {
    for (const [w, job] of this.on) {
      if (job) continue;
      const next = this.waiting.shift();
      if (!next) return;
      this.on.set(w, next);
      w.postMessage({ whole: { file: next.file, harness: next.harness } });
    }
    // (no thread to be had, or none left: what waits is made here)
    if (this.on.size === 0) for (const j of this.waiting.splice(0)) this.finish(j, makeWhole(j.file, j.harness));
  }

  private back(w: Worker, whole: Whole | null): void {
    const j = this.on.get(w);
    this.on.set(w, null);
    this.pump();
    if (j) this.finish(j, whole);
  }

  private lost(w: Worker): void {
    // (an error is followed by its exit: the second finds it gone)
    if (!this.on.has(w)) return;
    const j = this.on.get(w);
    this.on.delete(w);
    // (the file it was on is made here: a thread that failed says nothing of the file)
    if (j) this.finish(j, makeWhole(j.file, j.harness));
    this.pump();
  }

  private finish(j: Job, w: Whole | null): void {
    this.busy--;
    j.done(w);
  }

  /** The threads let go. */
  stop(): void {
    for (const w of this.on.keys()) void w.terminate();
  }
}
