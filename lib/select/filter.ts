// Filters shared by every listing command, and shortest unique id prefixes.
import path from 'node:path';
import type { Harness, Session } from '../types.js';
import { HARNESSES } from '../types.js';

export interface Filters {
  all?: boolean;
  harness?: Harness[];
  /** absolute directory: sessions whose cwd is it or below */
  dir?: string;
}

export class UsageError extends Error {}

export function parseHarnesses(v: string | undefined): Harness[] | undefined {
  if (!v) return undefined;
  const out: Harness[] = [];
  for (const part of v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    if (!(HARNESSES as readonly string[]).includes(part)) {
      throw new UsageError(`unknown harness '${part}' (expected ${HARNESSES.join(', ')})`);
    }
    out.push(part as Harness);
  }
  return out.length ? out : undefined;
}

export function resolveDir(v: string | undefined, cwd = process.cwd()): string | undefined {
  if (v == null || v === '') return undefined;
  return path.resolve(cwd, v);
}

export function under(cwd: string | null, dir: string): boolean {
  if (!cwd) return false;
  if (dir === '/') return cwd.startsWith('/');
  return cwd === dir || cwd.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

export function applyFilters<T extends Pick<Session, 'hidden' | 'harness' | 'cwd'>>(sessions: T[], f: Filters): T[] {
  return sessions.filter((s) => (f.all || !s.hidden) && (!f.harness || f.harness.includes(s.harness)) && (!f.dir || under(s.cwd, f.dir)));
}

/** The least length of a short id. */
export const MIN_SHORT = 8;

/** Shortest unique prefix per id across all sessions, at least `min` characters. */
export function shortIds(sessions: { id: string }[], min = MIN_SHORT): Map<string, string> {
  const ids = [...new Set(sessions.map((s) => s.id))].sort();
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const l = Math.max(i > 0 ? lcp(id, ids[i - 1]) : 0, i + 1 < ids.length ? lcp(id, ids[i + 1]) : 0);
    out.set(id, cutId(id, l, min));
  }
  return out;
}

/** The short id of one id among others, by the rule of shortIds (one pass, no sort: for a preview). */
export function shortOf(id: string, ids: Iterable<string>, min = MIN_SHORT): string {
  let l = 0;
  for (const other of ids) if (other !== id) l = Math.max(l, lcp(id, other));
  return cutId(id, l, min);
}

function lcp(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** One character past the longest prefix shared with another id, at least `min`. */
function cutId(id: string, shared: number, min: number): string {
  return id.slice(0, Math.min(id.length, Math.max(min, shared + 1)));
}

/** Hidden sessions by reason, for the stderr summary of a listing. */
export function hiddenSummary(all: Pick<Session, 'hidden' | 'harness' | 'cwd' | 'hiddenReason'>[], shown: Filters): string | null {
  if (shown.all) return null;
  const by = new Map<string, number>();
  let n = 0;
  for (const s of all) {
    if (!s.hidden) continue;
    if (shown.harness && !shown.harness.includes(s.harness)) continue;
    if (shown.dir && !under(s.cwd, shown.dir)) continue;
    n++;
    const r = s.hiddenReason ?? 'other';
    by.set(r, (by.get(r) ?? 0) + 1);
  }
  if (n === 0) return null;
  const parts = [...by.entries()].sort((a, b) => b[1] - a[1]).map(([r, c]) => `${c} ${REASON_LABEL[r] ?? r}`);
  return `+${n} hidden: ${parts.join(', ')}; --all shows them`;
}

const REASON_LABEL: Record<string, string> = {
  subagent: 'workers',
  headless: 'print-mode',
  sdk: 'SDK',
  exec: 'exec',
  empty: 'empty',
  archived: 'archived',
};
