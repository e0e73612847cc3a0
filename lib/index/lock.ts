// One builder at a time: a run that has to parse takes `index.lock` in the cache directory
// (created with O_EXCL); a run that finds it taken waits until it is gone and then starts over, so
// it reads the builder's result and brings it up to date with whatever changed since (never stale).
//
// A lock is stale, and is taken over, when the process named in it is gone (same host), when it is
// older than STALE_MS (a reused pid, or another host on a shared home), or when it is still empty
// or unreadable after EMPTY_MS (a builder that died between creating and writing it). Taking over
// renames the stale file aside and checks that what was renamed is the file judged stale, so two
// waiters cannot both take over and one cannot remove a fresh lock another just created.
import fs from 'node:fs';
import { nodeOs } from '../util/lazy.js';
import { removeFile } from '../util/fsx.js';
import { alive } from '../util/alive.js';

export const STALE_MS = 15 * 60_000;
export const EMPTY_MS = 5_000;

export interface LockInfo {
  pid: number;
  host: string;
  started: number;
}

function readLock(file: string): { info: LockInfo | null; ino: number; mtime: number } | null {
  let st: fs.Stats;
  let text: string;
  try {
    st = fs.statSync(file);
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let info: LockInfo | null = null;
  try {
    const o = JSON.parse(text) as LockInfo;
    if (o && Number.isInteger(o.pid) && o.pid > 0 && typeof o.host === 'string' && typeof o.started === 'number') info = o;
  } catch {
    info = null;
  }
  return { info, ino: st.ino, mtime: st.mtimeMs };
}


/** Is this lock stale (its builder gone)? */
export function isStale(l: { info: LockInfo | null; mtime: number }, now = Date.now()): boolean {
  if (!l.info) return now - l.mtime > EMPTY_MS;
  if (now - l.info.started > STALE_MS) return true;
  if (l.info.host === nodeOs().hostname() && l.info.pid !== process.pid) return !alive(l.info.pid);
  return false;
}

/** Try once to take the lock: true when taken. Throws only when the directory cannot hold it. */
export function tryLock(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const l = readLock(file);
    if (!l) return false; // gone meanwhile: the caller tries again
    if (!isStale(l)) return false;
    // Take over: move the stale file aside, and make sure it was the one judged stale.
    const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      return false;
    }
    let ino = -1;
    try {
      ino = fs.statSync(aside).ino;
    } catch {
      /* raced away */
    }
    if (ino !== l.ino) {
      // A fresh lock was created in between and we moved it: put it back unless another exists.
      try {
        fs.linkSync(aside, file);
      } catch {
        /* another lock exists now: theirs stands */
      }
      removeFile(aside);
      return false;
    }
    removeFile(aside);
    return tryLock(file);
  }
  try {
    fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: nodeOs().hostname(), started: Date.now() } satisfies LockInfo));
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Remove the lock if it is ours. */
export function unlock(file: string): void {
  const l = readLock(file);
  if (l?.info && l.info.pid === process.pid && l.info.host === nodeOs().hostname()) removeFile(file);
}

/**
 * Wait while another live builder holds the lock (polling), without taking it. Returns when the lock
 * is gone or stale.
 */
export async function waitUnlocked(file: string, pollMs = 40): Promise<void> {
  for (;;) {
    const l = readLock(file);
    if (!l || isStale(l)) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
