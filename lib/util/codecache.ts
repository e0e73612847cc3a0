// Load a CommonJS bundle with V8's code cache. `resume rows` and `resume preview` run on every
// listing, fzf reload and cursor move, and compiling their bundle was about a tenth of each run: the
// cache holds the bytecode of every function the first run compiled, so later runs deserialize it
// instead of parsing and compiling again (Node 22 has module.enableCompileCache for this; Node 20
// has only vm.Script's cachedData).
//
// The cache is a file in resume's cache directory, named after the bundle (its name, a hash of its
// path, its size and mtime) and the Node version and architecture, and written (0600, atomically)
// after a run that had none or had one V8 rejected; older caches of the same installation go then.
// A cache holds what its run compiled, and V8 writes back whatever a run had compiled, what it
// took from the cache included. A run that built or parsed the index whole compiled the parsers and
// the build, which a listing never runs: it writes none (a listing that deserialised such a cache on
// every run paid ~2 ms and a garbage collection for code it never ran); the next plain run does. An
// append (a session grew: only its new lines read) recurs all day, and compiling its code lazily on every
// one cost it ~3–5 ms: an append writes the cache when the one it loaded does not hold the append
// yet (a flag in the file's header), once; a listing that deserialises it pays 1–2 ms more
// (BENCHMARKS.md, session of 2026-12-01 12:08). V8 checks the data itself before using
// any of it (its version, flags, the source's length, the payload's length) and rejects what does
// not fit; its own checksum of the payload it verifies only in debug builds, so each file carries
// one of ours too (lib/util/wordhash.ts), checked first: a damaged or foreign file only costs the
// compile it was meant to save, and is written again. It holds compiled resume code, never session data. A cache directory that cannot
// be written only means no cache.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fnv1a } from './fnv.js';
import { makeDir, readFully, readText, removeFile, withFile, writeAtomic } from './fsx.js';
import { WordHasher } from './wordhash.js';

/**
 * What a run did beyond its command's usual work: nothing, an append to the index (its code
 * is worth keeping), or a build or parse of the index (its code is not: the run writes no cache).
 */
export type RunWork = 'none' | 'append' | 'build';

export interface Loaded<T> {
  exports: T;
  /**
   * Write the cache if this load had none or V8 rejected it, or if this run appended and the cache
   * does not hold the append yet (call once the run's work is done). A run that built writes none.
   */
  save(work?: RunWork): void;
}

/**
 * The cache file for `file` under `dir`, or null when the bundle cannot be read. `variant` names the
 * command the cache is for (a bundle serving several commands keeps one cache each: a cache holds
 * what its first run compiled, and each command compiles its own part of the bundle).
 */
export function cacheFileFor(file: string, dir: string, variant = ''): string | null {
  const tag = buildTag(file);
  if (tag === null) return null;
  return path.join(dir, 'code', `${tag}${variant ? `-${variant.replace(/[^\w.-]/g, '_')}` : ''}.v8`);
}

/** The start of the cache names of this build of the bundle (its installation, size and mtime, and this Node). */
function buildTag(file: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  return `${installTag(file)}${st.size}-${Math.floor(st.mtimeMs)}-${process.version}-${process.arch}`.replace(/[^\w.-]/g, '_');
}

/** The start of the cache names of this bundle of this installation (others share the directory). */
function installTag(file: string): string {
  return `${path.basename(file)}-${fnv1a(Buffer.from(path.resolve(file), 'utf8')).toString(16)}-`;
}

/** The CommonJS function around a bundle's code (scripts/build.mjs writes rows.cjs and cli.cjs inside it). */
export const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
export const WRAP_TAIL = '\n});';

const MAGIC = 0x32434352; // "RCC2", little-endian
/** magic, checksum, and what the cache holds beyond its command's usual code (1: an append's) */
const HEAD = 12;

/**
 * FNV-1a over 32-bit words (lib/util/wordhash.ts). Each step is a bijection of the running value,
 * so any one changed word changes the result; more than one collides with odds of about 2^-32.
 */
let hasher: WordHasher | undefined;
const theHasher = (): WordHasher => (hasher ??= new WordHasher());
const checksum = (data: Buffer): number => theHasher().hash(data);

/** A cache file's bytes, read into the hasher's memory (its checksum is taken in place); undefined when it cannot be read. */
function readCache(file: string): Buffer | undefined {
  return withFile(
    file,
    (fd) => {
      const size = fs.fstatSync(fd).size;
      const buf = theHasher().room(size);
      return readFully(fd, buf, 0, size, 0) === size ? buf : undefined;
    },
    undefined,
  );
}

/** The V8 data of a cache file and whether it holds an append's code, or undefined when it is not one of ours or its checksum fails. */
function unwrap(buf: Buffer): { data: Buffer; append: boolean } | undefined {
  if (buf.length <= HEAD || buf.readUInt32LE(0) !== MAGIC) return undefined;
  const data = buf.subarray(HEAD);
  return checksum(data) === buf.readUInt32LE(4) ? { data, append: buf.readUInt32LE(8) === 1 } : undefined;
}

function wrap(data: Buffer, append: boolean): Buffer {
  const head = Buffer.alloc(HEAD);
  head.writeUInt32LE(MAGIC, 0);
  head.writeUInt32LE(checksum(data), 4);
  head.writeUInt32LE(append ? 1 : 0, 8);
  return Buffer.concat([head, data]);
}

/**
 * Compile and run the CommonJS file `file`, with the code cache `cacheFile` when it is usable.
 * `req`: the `require` the file gets (the caller's own, from the same directory: node:module and
 * its ESM loader stay unloaded).
 */
export function loadCached<T>(file: string, cacheFile: string | null, req: NodeRequire): Loaded<T> {
  const source = readText(file);
  let cached: ReturnType<typeof unwrap>;
  if (cacheFile) {
    const buf = readCache(cacheFile);
    cached = buf && unwrap(buf);
  }
  const cachedData = cached?.data;
  // what Module.wrap gives (the CommonJS function around the source); the build writes the bundles so
  // already, and a string made by joining would be copied whole (flattened) by V8 before it looks the
  // cache up (~0.6 ms and 50 fresh pages for rows.cjs)
  const wrapped = source.startsWith(WRAP_HEAD) && source.endsWith(WRAP_TAIL) ? source : `${WRAP_HEAD}${source}${WRAP_TAIL}`;
  const script = new vm.Script(wrapped, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const fn = script.runInThisContext() as (
    exports: unknown,
    require: NodeRequire,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const mod = { exports: {} as unknown };
  fn.call(mod.exports, mod.exports, req, mod, file, path.dirname(file));
  const stale = !cachedData || script.cachedDataRejected === true;
  return {
    exports: mod.exports as T,
    save(work = 'none') {
      if (!cacheFile || work === 'build') return;
      const append = work === 'append';
      if (!stale && !(append && !cached?.append)) return;
      try {
        const data = wrap(script.createCachedData(), append);
        makeDir(path.dirname(cacheFile));
        // caches of this installation's earlier builds, or of another Node, are of no more use
        const mine = installTag(file).replace(/[^\w.-]/g, '_');
        const now = buildTag(file);
        for (const old of fs.readdirSync(path.dirname(cacheFile))) {
          if (old.endsWith('.v8') && old.startsWith(mine) && (now === null || !old.startsWith(now)))
            removeFile(path.join(path.dirname(cacheFile), old));
        }
        writeAtomic(cacheFile, data);
      } catch {
        /* no cache: the next run compiles again */
      }
    },
  };
}
