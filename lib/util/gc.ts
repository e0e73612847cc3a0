// A full garbage collection on demand, for a long build (lib/index/index.ts runJobs, and
// `resume index` between the listing and the search index). Node offers
// it only behind --expose-gc, a flag resume cannot put on its own command line; V8 takes the flag
// at run time too (node:v8 setFlagsFromString), and a context made after that has `gc`. The flag
// is turned off again at once: V8's code cache (lib/util/codecache.ts) records the flags a cache
// was made under, and a cache saved with it on would be refused by every later run.
import vm from 'node:vm';
import { requireLazy } from './lazy.js';

/** undefined: not tried yet; null: not to be had */
let fn: (() => void) | null | undefined;

/** The bytes of V8's heap in use (live and not yet collected); NaN when node:v8 cannot be had. */
export function heapUsed(): number {
  // (process.memoryUsage, not node:v8's heap statistics: the same number, without loading node:v8
  // and the streams it loads)
  try {
    return process.memoryUsage().heapUsed;
  } catch {
    return NaN;
  }
}

/**
 * Set a V8 flag at run time; false when it could not be. node:v8 is loaded only here, when a long
 * build or a search asks: loading it (and the streams it loads) took ~5 ms of every listing while it
 * was imported at the top.
 */
function setV8Flag(flag: string): boolean {
  try {
    (requireLazy('node:v8') as typeof import('node:v8')).setFlagsFromString(flag);
    return true;
  } catch {
    return false;
  }
}

/** V8's full collection as a function, or null when this Node does not give it. */
export function fullCollector(): (() => void) | null {
  if (fn !== undefined) return fn;
  fn = null;
  if (!setV8Flag('--expose-gc')) return fn;
  try {
    const g = vm.runInNewContext('gc') as unknown;
    if (typeof g === 'function') fn = g as () => void;
  } catch {
    fn = null;
  } finally {
    setV8Flag('--no-expose-gc');
  }
  return fn;
}

/** Bytes of work between looks at the heap (RESUME_GC_EVERY, for measuring). */
const GC_EVERY = Number(process.env.RESUME_GC_EVERY) || 16 << 20;
/** Growth of the heap since the last full collection that makes a long job take one (RESUME_GC_GROWTH, for measuring). */
const GC_GROWTH = Number(process.env.RESUME_GC_GROWTH) || 16 << 20;

/**
 * A long job's full collections. Its garbage lives long enough to reach V8's old generation, which
 * V8 collects only when it has grown a lot. One full collection whenever the heap has grown by
 * GC_GROWTH since the last, looked at after every GC_EVERY bytes of work, keeps the peak lower at
 * no cost in time (BENCHMARKS.md).
 */
export class HeapGuard {
  private gc: (() => void) | null | undefined;
  private since = 0;
  private base: number;
  private done = 0;

  /** `total`: the bytes the job will work through (a short one takes none) */
  constructor(total: number) {
    this.gc = total >= GC_EVERY ? undefined : null;
    this.base = this.gc === null ? NaN : heapUsed();
  }

  /** `bytes` more worked through */
  tick(bytes: number): void {
    this.done += bytes;
    this.since += bytes;
    if (this.gc === null || this.since < GC_EVERY) return;
    this.since = 0;
    if (heapUsed() - this.base < GC_GROWTH) return;
    if (this.gc === undefined) this.gc = fullCollector();
    if (!this.gc) return;
    this.gc();
    this.base = heapUsed();
    if (process.env.RESUME_DEBUG_GC) process.stderr.write(`gc at ${this.done} bytes: ${(this.base / 1048576).toFixed(1)} MiB after\n`);
  }
}

/**
 * V8 releases that have --heap-growing-percent (checked on 11.3, 12.4 and 14.6: Node 20, 22 and
 * 26). V8 prints an error line for a flag it does not know, so on another release it is not set.
 */
export function heapGrowthFlag(v8Version = process.versions.v8): string | null {
  const major = Number(v8Version.split('.')[0]);
  return major >= 11 && major <= 14 ? '--heap-growing-percent=60' : null;
}

/**
 * Let V8's heap grow by at most 60% between full collections, for a deep search; the function
 * returned puts V8's own rule back. V8 otherwise grows the heap by up to 4x while collecting looks
 * cheap, and a search that holds every result until it ranks them (`search -a --json` for two words
 * at 22,000 sessions) peaked at 430–620 MiB from one run to the next; 380–415 with this, in the
 * same time. Put back before the run ends: a code cache saved under other flags would be refused
 * by every later run (as --expose-gc above).
 */
export function boundHeapGrowth(): () => void {
  const flag = heapGrowthFlag();
  if (!flag || !setV8Flag(flag)) return () => {};
  return () => setV8Flag('--heap-growing-percent=0');
}
