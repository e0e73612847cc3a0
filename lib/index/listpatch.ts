// list.patch: an append's change to the stored listing, written beside list.json and rows.json
// instead of rewriting them (lib/index/index.ts says when, and how the build ids chain).
//
// The file is one JSON document:
//   {"v": INDEX_VERSION, "id": <build id>, "base": <build id of list.json and rows.json>,
//    "built": <ms>, "skipped": {...}, "drop": [<key>...], "put": [<Session>...], "short": [<id>...],
//    "gone": [<key>...]}
// The listing of build `id` is the base listing without the sessions whose key is in `drop`, with
// `put` added (whole sessions, without `allPrompts`, as list.json holds them; `short[i]` is the short
// id of `put[i]`, for the rows of rows.json), sorted by `byRecency` as a build sorts it. Every key of
// `put` is in `drop` (a session new to the listing too) and no key is put twice, so a key is listed
// once; every other dropped key is in `gone` (a session whose file went away), and no key is in
// both. A patch that breaks this, or any other malformed one, is not applied at all.
//
// The same module reads the head of list.json (its first line: version, build id, and the keys a
// patch may not touch), which an append needs without parsing the listing. Its change to rows.bin
// and check.bin is lib/index/overlay.ts.
import fs from 'node:fs';
import type { Session } from '../types.js';
import { byRecency } from './stream.js';
import { readFirstLine, readText } from '../util/fsx.js';

/** Successive appends merge into one patch up to these bounds; past them the listing is rewritten. */
export const PATCH_MAX_SESSIONS = 256;
export const PATCH_MAX_BYTES = 1 << 20;

export interface ListPatch<K = unknown> {
  v: number;
  id: string;
  base: string;
  built: number;
  skipped: K;
  drop: string[];
  put: Session[];
  short: string[];
  /** the dropped keys not put again (sessions gone) */
  gone?: string[];
}

/** A patch read and checked for shape (see the top); null when missing or malformed. */
export function readPatch(file: string, version: number): ListPatch | null {
  let p: ListPatch;
  try {
    p = JSON.parse(readText(file)) as ListPatch;
  } catch {
    return null;
  }
  if (
    !p || typeof p !== 'object' || p.v !== version || typeof p.id !== 'string' || typeof p.base !== 'string' || typeof p.built !== 'number' ||
    !p.skipped || typeof p.skipped !== 'object' || !Array.isArray(p.drop) || !Array.isArray(p.put) || !Array.isArray(p.short) ||
    p.short.length !== p.put.length
  ) return null;
  const drop = new Set<string>();
  for (const k of p.drop) {
    if (typeof k !== 'string') return null;
    drop.add(k);
  }
  const put = new Set<string>();
  for (let i = 0; i < p.put.length; i++) {
    const s = p.put[i];
    if (!s || typeof s !== 'object' || typeof s.key !== 'string' || typeof s.id !== 'string' || typeof p.short[i] !== 'string') return null;
    if (!drop.has(s.key) || put.has(s.key)) return null;
    put.add(s.key);
  }
  const gone = new Set<string>();
  if (p.gone !== undefined) {
    if (!Array.isArray(p.gone)) return null;
    for (const k of p.gone) {
      if (typeof k !== 'string' || !drop.has(k) || put.has(k) || gone.has(k)) return null;
      gone.add(k);
    }
  }
  return put.size + gone.size === drop.size ? p : null;
}

/** The base listing with the patch applied: dropped keys out, put sessions in, sorted as a build sorts. */
export function applyPatch<S extends { key: string; id: string; updated: number | null; started: number | null }>(
  base: S[],
  p: ListPatch,
  as: (s: Session, short: string) => S,
): S[] {
  const drop = new Set(p.drop);
  const out = base.filter((s) => !drop.has(s.key));
  for (let i = 0; i < p.put.length; i++) out.push(as(p.put[i]!, p.short[i]!));
  // all but the few put sessions are in order already (the sort takes the runs as they are)
  return out.sort(byRecency as unknown as (a: S, b: S) => number);
}

export interface ListHead {
  v: number;
  id: string;
  built: number;
  /** keys an append may not patch (a linked harness's forks and shared link keys); absent before patches existed */
  hold?: string[];
}

/**
 * The first line of list.json or rows.json (the writer puts a line break before `"sessions"`, the
 * only one in the file: JSON.stringify never writes one), parsed; null when it cannot be.
 */
export function readHead(file: string | number, maxBytes = 4 << 20): ListHead | null {
  const first = readFirstLine(file, maxBytes);
  if (!first) return null;
  try {
    const line = first.toString('utf8');
    if (!line.endsWith(',')) return null;
    const h = JSON.parse(line.slice(0, -1) + '}') as ListHead;
    if (!h || typeof h.v !== 'number' || typeof h.id !== 'string' || typeof h.built !== 'number') return null;
    if (h.hold !== undefined && !(Array.isArray(h.hold) && h.hold.every((k) => typeof k === 'string'))) return null;
    return h;
  } catch {
    return null;
  }
}
