// Is a process running, and is it still the one we mean? The one check every lock, registry and
// restart uses. A pid alone can be reused by a later process; on Linux the start time in
// /proc/<pid>/stat (clock ticks since boot) tells the two apart, so a caller that recorded it gets
// that answer, and everyone else the kill(pid, 0) one.
import fs from 'node:fs';
import path from 'node:path';

export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  /** the foreground process group of the process's controlling terminal (-1: none) */
  tpgid: number;
  /** the start time as this table tells it: clock ticks since boot (/proc), or ps's lstart */
  start: string;
}

/** /proc/<pid>/stat read (Linux), or null when there is no such process. */
export function procStat(pid: number, root = '/proc'): ProcStat | null {
  let st: string;
  try {
    st = fs.readFileSync(path.join(root, String(pid), 'stat'), 'utf8');
  } catch {
    return null;
  }
  // fields after "(comm)": state ppid pgrp session tty_nr tpgid … starttime (index 19)
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  const n = (i: number) => Number(f[i]);
  const start = f[19];
  if (start === undefined) return null;
  return { pid, ppid: n(1), pgrp: n(2), tpgid: n(5), start };
}

/**
 * Does process `pid` run (EPERM: it does, owned by someone else)? With the start time recorded of
 * it (`procStat(pid).start`), on Linux: is it still that process, not a later one given its pid.
 */
export function alive(pid: number, start?: string | null, o: { procRoot?: string; platform?: NodeJS.Platform } = {}): boolean {
  if (start != null && (o.platform ?? process.platform) === 'linux') return procStat(pid, o.procRoot)?.start === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
