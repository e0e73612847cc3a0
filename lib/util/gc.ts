// A full garbage collection on demand, for a long build (lib/index/index.ts, runJobs). Node offers
// it only behind --expose-gc, a flag resume cannot put on its own command line; V8 takes the flag
// at run time too (node:v8 setFlagsFromString), and a context made after that has `gc`. The flag
// is turned off again at once: V8's code cache (lib/util/codecache.ts) records the flags a cache
// was made under, and a cache saved with it on would be refused by every later run.
import v8 from 'node:v8';
import vm from 'node:vm';

/** undefined: not tried yet; null: not to be had */
let fn: (() => void) | null | undefined;

/** V8's full collection as a function, or null when this Node does not give it. */
export function fullCollector(): (() => void) | null {
  if (fn !== undefined) return fn;
  fn = null;
  try {
    v8.setFlagsFromString('--expose-gc');
    const g = vm.runInNewContext('gc') as unknown;
    if (typeof g === 'function') fn = g as () => void;
  } catch {
    fn = null;
  } finally {
    try {
      v8.setFlagsFromString('--no-expose-gc');
    } catch {
      /* as it was */
    }
  }
  return fn;
}
