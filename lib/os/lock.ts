// One holder at a time: a lock file created with O_EXCL, holding who took it as JSON (pid, host,
// the time it was taken, and on Linux the process's start time). It is stale, and may be taken
// over, when
//   - the process named in it is gone (same host; with its start time, a later process given the
//     same pid does not count),
//   - it is still empty or unreadable after EMPTY_MS (a holder that died between creating the file
//     and writing it; before that it is a holder at work, not a stale lock),
//   - or, when the caller sets `staleMs`, it is older than that (another host on a shared home,
//     whose pids cannot be asked about).
// Taking over renames the stale file aside and checks that what was renamed is the file judged
// stale (the same inode), so two processes finding one stale lock cannot both take it, and neither
// removes a fresh lock the other has just made. A lock holding only a pid (as resume wrote before)
// reads as taken on this host when the file was last written.
import fs from 'node:fs';
import path from 'node:path';
import { makeDir, removeFile } from '../util/fsx.js';
import { nodeOs } from '../util/lazy.js';
import { alive, procStat } from './proc.js';

export const EMPTY_MS = 5_000;

export interface LockInfo {
  pid: number;
  host: string;
  /** when it was taken, epoch ms */
  started: number;
  /** the holder's start time (lib/os/proc.ts procStat), Linux only */
  start?: string | null;
}

export interface LockRules {
  /** a lock older than this (ms) is stale whoever holds it; default: only a gone holder is */
  staleMs?: number;
}

export interface ReadLock {
  info: LockInfo | null;
  ino: number;
  mtime: number;
}

export type Acquired = { ok: true; release: () => void } | { ok: false; holder: number };

function infoOf(text: string, mtime: number): LockInfo | null {
  if (/^\d+\s*$/.test(text)) return { pid: Number(text), host: nodeOs().hostname(), started: mtime };
  try {
    const o = JSON.parse(text) as LockInfo;
    if (o && Number.isInteger(o.pid) && o.pid > 0 && typeof o.host === 'string' && typeof o.started === 'number') return o;
  } catch {
    /* not written yet, or not a lock */
  }
  return null;
}

/** The lock as it stands, or null when there is none. */
export function readLock(file: string): ReadLock | null {
  try {
    const st = fs.statSync(file);
    return { info: infoOf(fs.readFileSync(file, 'utf8'), st.mtimeMs), ino: st.ino, mtime: st.mtimeMs };
  } catch {
    return null;
  }
}

/** Is this lock stale (its holder gone)? */
export function isStale(l: { info: LockInfo | null; mtime: number }, rules: LockRules = {}, now = Date.now()): boolean {
  if (!l.info) return now - l.mtime > EMPTY_MS;
  if (rules.staleMs != null && now - l.info.started > rules.staleMs) return true;
  if (l.info.host === nodeOs().hostname() && l.info.pid !== process.pid) return !alive(l.info.pid, l.info.start);
  return false;
}

/** Move the stale lock `l` aside, unless it is no longer the file there; true when it was removed. */
function takeOver(file: string, l: ReadLock): boolean {
  const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return false; // gone meanwhile: the caller tries again
  }
  let ino = -1;
  try {
    ino = fs.statSync(aside).ino;
  } catch {
    /* raced away */
  }
  if (ino !== l.ino) {
    // A fresh lock was made in between and we moved it: put it back unless another exists now.
    try {
      fs.linkSync(aside, file);
    } catch {
      /* another lock stands */
    }
  }
  removeFile(aside);
  return ino === l.ino;
}

/** Remove the lock if it is this process's. */
export function unlock(file: string): void {
  const l = readLock(file);
  if (l?.info && l.info.pid === process.pid && l.info.host === nodeOs().hostname()) removeFile(file);
}

/** Try to take the lock (taking a stale one over). Throws only when the directory cannot hold it. */
export function tryLock(file: string, rules: LockRules = {}): Acquired {
  makeDir(path.dirname(file));
  // what the lock will hold, made before it is created: a holder killed between creating the file and
  // writing it leaves an empty lock that others wait EMPTY_MS for (the picker's search as you type is
  // stopped by fzf at every key); reading /proc for the start time took most of that gap
  const info = JSON.stringify({
    pid: process.pid,
    host: nodeOs().hostname(),
    started: Date.now(),
    start: procStat(process.pid)?.start ?? null,
  } satisfies LockInfo);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const l = readLock(file);
      if (!l) continue; // released meanwhile
      if (!isStale(l, rules)) return { ok: false, holder: l.info?.pid ?? -1 };
      takeOver(file, l);
      continue;
    }
    try {
      fs.writeSync(fd, info);
    } finally {
      fs.closeSync(fd);
    }
    return { ok: true, release: () => unlock(file) };
  }
  return { ok: false, holder: -1 };
}

/**
 * Wait for the lock, polling while a live process holds it; `onWait` is told the holder once, and
 * `stopped` ends the wait (null then).
 */
export async function acquireWait(
  file: string,
  o: LockRules & { onWait?: (holder: number) => void; stopped?: () => boolean; pollMs?: number } = {},
): Promise<Acquired | null> {
  let told = false;
  for (;;) {
    const l = tryLock(file, o);
    if (l.ok) return l;
    if (o.stopped?.()) return null;
    if (!told && l.holder > 0) {
      o.onWait?.(l.holder);
      told = true;
    }
    await new Promise((r) => setTimeout(r, o.pollMs ?? 250));
  }
}
