// Group membership: a session and everything below it (subagent transcripts next to it, child
// sessions whose parent points at it, workers a harness attributes to it) form a group that is
// reported on the root, the resumable session.

import { applyFilters, type Filters } from '../select/filter.js';
import type { Harness, Session } from '../types.js';
import { addTo } from '../util/multimap.js';
import { tildify } from '../util/paths.js';
import { HOOKS } from './registry.js';
import type { Hit } from './score.js';

export interface SearchFilters extends Filters {
  /** epoch ms: sessions active at or after */
  since?: number;
  /** epoch ms: sessions started at or before */
  until?: number;
}

export interface Group {
  root: Session;
  members: Session[];
  mask: number;
  hits: Hit[];
  nHits: number;
  keys: Set<number>;
  /** metadataText of its root, once asked for (groupMeta) */
  meta?: string;
  /**
   * Weighed only: its hits keep no text and get no snippet (a search whose results show no evidence,
   * the picker's rows). Their scores, and so the ranking, are the same either way.
   */
  bare: boolean;
  /** the home directory, `~` in its metadata ('': none) */
  home: string;
}

/** The group's metadata line (asked for when its files are scanned, and again as evidence of its own). */
export function groupMeta(g: Group): string {
  g.meta ??= metadataText(g.root, g.home);
  return g.meta;
}

export function newGroup(root: Session, members: Session[], bare = false, home = ''): Group {
  return { root, members, mask: 0, hits: [], nHits: 0, keys: new Set(), bare, home };
}

/**
 * Subagent transcripts a harness keeps beside a session file (not sessions of their own). Found once
 * a session and process: a search asks it of each session up to four times (whether the group may
 * hold the words, whether its pieces settle it, which files to mark, what to read), and a harness
 * finds them in directories.
 */
export function childFiles(s: Session): string[] {
  let out = childrenOf.get(s);
  if (!out) {
    out = findChildren(s);
    childrenOf.set(s, out);
  }
  return out;
}
const childrenOf = new WeakMap<Session, string[]>();

function findChildren(s: Session): string[] {
  const hooked = HOOKS[s.harness]?.children?.(s);
  // (most sessions have none: a search asks this of every session, 22,000 at a time)
  if (!s.children?.length && !hooked?.length) return [];
  const out: string[] = [...(s.children ?? []), ...(hooked ?? [])];
  return [...new Set(out)].filter((f) => f !== s.file);
}

/**
 * Group sessions under their root: parent links within a harness (the index's, else the ones the
 * harness's `parents` hook infers), cycles cut.
 */
export function groupSessions(all: Session[], home = ''): Map<string, Group> {
  // (one pass: this runs over every session a search may read, 22,000 at a time)
  const byKey = new Map<string, Session>();
  const inferOf = new Map<Harness, Session[]>();
  for (const s of all) {
    byKey.set(s.key, s);
    if (HOOKS[s.harness]?.parents) addTo(inferOf, s.harness, s);
  }
  const inferred = new Map<string, string>();
  for (const [h, list] of inferOf) for (const [k, p] of HOOKS[h].parents?.(list) ?? []) inferred.set(k, p);
  const parentOf = (s: Session) => s.parent ?? inferred.get(s.key) ?? null;
  const rootOf = (s: Session): Session => {
    if (parentOf(s) === null) return s;
    let cur = s;
    // (made only for a session with a parent: most have none)
    let seen: Set<string> | null = null;
    for (let p = parentOf(cur); p; p = parentOf(cur)) {
      const ps = byKey.get(`${cur.harness}:${p}`);
      seen ??= new Set([s.key]);
      if (!ps || seen.has(ps.key)) break;
      seen.add(ps.key);
      cur = ps;
    }
    return cur;
  };
  const groups = new Map<string, Group>();
  for (const s of all) {
    const r = rootOf(s);
    let g = groups.get(r.key);
    if (!g) {
      g = newGroup(r, [], false, home);
      groups.set(r.key, g);
    }
    if (s === r) g.members.unshift(s);
    else g.members.push(s);
  }
  return groups;
}

/**
 * Whether a group's root is searched. Hidden sessions (archived, exec, SDK, headless, workers) are
 * searched too, and labelled in the results: `all` does not narrow a search.
 */
export function passes(s: Session, f: SearchFilters): boolean {
  if (applyFilters([s], { ...f, all: true }).length === 0) return false;
  const upd = s.updated ?? s.started;
  const start = s.started ?? s.updated;
  if (f.since != null && (upd == null || upd < f.since)) return false;
  if (f.until != null && (start == null || start > f.until)) return false;
  return true;
}

/**
 * What the index knows of a session, as one searchable line: title, branch, directory, repository,
 * harness, id. The directory as listings show it, from `~` (`home`): the home directory's own path
 * is in every session's, and a search for its name (`alice`, `home`, `Users`) would find them all.
 */
export function metadataText(s: Session, home: string): string {
  // (made for every session a search reads: joined as it goes, no arrays)
  let out = '';
  // a title that is only the first prompt is in the transcript already (and copied, in a fork)
  if (s.title && s.title !== s.firstPrompt) out += `title: ${s.title} · `;
  if (s.branch) out += `branch: ${s.branch} · `;
  if (s.cwd) {
    out += `directory: ${tildify(s.cwd, home)} · `;
    // the last name in the path (trailing slashes aside); none for the home directory itself
    let e = s.cwd === home ? 0 : s.cwd.length;
    while (e > 0 && s.cwd.charCodeAt(e - 1) === 47) e--;
    const repo = s.cwd.slice(s.cwd.lastIndexOf('/', e - 1) + 1, e);
    if (repo) out += `repository: ${repo} · `;
  }
  return `${out}${s.harness} ${s.id}`;
}
