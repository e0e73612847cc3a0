// The process table as restart needs it (Linux /proc): parent, process group, the terminal's
// foreground process group, start time. Elsewhere every answer is null (restart then refuses).
import fs from 'node:fs';
import path from 'node:path';

export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  /** the foreground process group of the process's controlling terminal (-1: none) */
  tpgid: number;
  start: string;
}

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
  if (f.length < 20) return null;
  return { pid, ppid: n(1), pgrp: n(2), tpgid: n(5), start: f[19]! };
}

/** pid, its parent, … up to 1. */
export function ancestry(pid: number, root = '/proc'): number[] {
  const out: number[] = [];
  let p: number | null = pid;
  for (let i = 0; p && p > 0 && i < 4096; i++) {
    out.push(p);
    const s = procStat(p, root);
    if (!s || s.ppid === p) break;
    p = s.ppid;
  }
  return out;
}

/** Is `anc` the process `pid` or one of its ancestors? */
export function isAncestor(anc: number, pid: number, root = '/proc'): boolean {
  return ancestry(pid, root).includes(anc);
}

/** Is the process in its terminal's foreground process group? */
export function inForeground(pid: number, root = '/proc'): boolean {
  const s = procStat(pid, root);
  return !!s && s.tpgid > 0 && s.pgrp === s.tpgid;
}

/** The real uid of a process (Linux /proc/<pid>/status), or null. */
export function procUid(pid: number, root = '/proc'): number | null {
  try {
    const m = /^Uid:\s+(\d+)/m.exec(fs.readFileSync(path.join(root, String(pid), 'status'), 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
