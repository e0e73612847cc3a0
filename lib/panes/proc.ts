// The process table as restart needs it: parent, process group, the terminal's foreground process
// group, start time, uid and environment. Two sources behind one interface: Linux /proc, and ps(1)
// everywhere else (macOS, the BSDs). RESUME_PROC_TABLE=ps picks ps on Linux too (the tests run
// restart through it there).

import fs from 'node:fs';
import path from 'node:path';
import { type ProcStat, procStat } from '../os/proc.js';
import { runSync } from '../os/run.js';
import { onPath } from '../util/which.js';

export interface ProcTable {
  kind: 'proc' | 'ps';
  stat(pid: number): ProcStat | null;
  uid(pid: number): number | null;
  /** the process's environment, or null when it cannot be read */
  environ(pid: number): Record<string, string> | null;
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

/** /proc/<pid>/environ as a record, or null. */
export function procEnviron(pid: number, root = '/proc'): Record<string, string> | null {
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(root, String(pid), 'environ'), 'utf8');
  } catch {
    return null;
  }
  const env: Record<string, string> = {};
  for (const kv of raw.split('\0')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

export function linuxTable(root = '/proc'): ProcTable {
  return { kind: 'proc', stat: (pid) => procStat(pid, root), uid: (pid) => procUid(pid, root), environ: (pid) => procEnviron(pid, root) };
}

function ps(args: string[]): string | null {
  const r = runSync('ps', args, { env: { ...process.env, LC_ALL: 'C' } });
  return r.ok ? r.stdout : null;
}

/**
 * `ps -A` once per quarter second: pid, ppid, pgid, tpgid, uid and lstart (the start time to the
 * second, which with the pid tells one process from a later one). The environment comes from
 * `ps eww` (the command line followed by the environment): each NAME=value word after the command
 * is read, the last of a name winning, so a value holding a space is cut at it.
 */
export function psTable(): ProcTable {
  let at = 0;
  let rows = new Map<number, ProcStat & { uid: number }>();
  const table = () => {
    if (Date.now() - at < 250) return rows;
    const text = ps(['-A', '-o', 'pid=,ppid=,pgid=,tpgid=,uid=,lstart=']) ?? '';
    rows = new Map();
    for (const line of text.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(\d+)\s+(.+?)\s*$/.exec(line);
      if (!m) continue;
      const [, pid = '', ppid, pgrp, tpgid, uid, start = ''] = m;
      rows.set(Number(pid), {
        pid: Number(pid),
        ppid: Number(ppid),
        pgrp: Number(pgrp),
        tpgid: Number(tpgid),
        uid: Number(uid),
        start,
      });
    }
    at = Date.now();
    return rows;
  };
  return {
    kind: 'ps',
    stat: (pid) => {
      const r = table().get(pid);
      return r ? { pid: r.pid, ppid: r.ppid, pgrp: r.pgrp, tpgid: r.tpgid, start: r.start } : null;
    },
    uid: (pid) => table().get(pid)?.uid ?? null,
    environ: (pid) => {
      const text = ps(['eww', '-o', 'command=', '-p', String(pid)]);
      if (text == null) return null;
      const env: Record<string, string> = {};
      for (const w of text.trim().split(/\s+/)) {
        const [, name, value] = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(w) ?? [];
        if (name !== undefined && value !== undefined) env[name] = value;
      }
      return env;
    },
  };
}

const hasProc = () => fs.existsSync('/proc/self/stat');

/** /proc where it exists (and RESUME_PROC_TABLE is not `ps`), else ps(1). */
export function procTable(env: NodeJS.ProcessEnv = process.env): ProcTable {
  return env.RESUME_PROC_TABLE !== 'ps' && hasProc() ? linuxTable() : psTable();
}

/** pid, its parent, … up to 1. */
export function ancestry(pid: number, t: ProcTable = linuxTable()): number[] {
  const out: number[] = [];
  let p: number | null = pid;
  for (let i = 0; p && p > 0 && i < 4096; i++) {
    out.push(p);
    const s = t.stat(p);
    if (!s || s.ppid === p) break;
    p = s.ppid;
  }
  return out;
}

/** Is `anc` the process `pid` or one of its ancestors? */
export function isAncestor(anc: number, pid: number, t: ProcTable = linuxTable()): boolean {
  return ancestry(pid, t).includes(anc);
}

/** Is the process in its terminal's foreground process group? */
export function inForeground(pid: number, t: ProcTable = linuxTable()): boolean {
  const s = t.stat(pid);
  return !!s && s.tpgid > 0 && s.pgrp === s.tpgid;
}

/** Why restart cannot prove a session safe to stop here (neither /proc nor ps), or null. */
export function noProcTable(envPath: string | undefined): string | null {
  return hasProc() || onPath('ps', envPath) ? null : 'restart needs /proc or ps(1) to prove a session is safe to stop';
}
