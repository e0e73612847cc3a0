// The group map's stamp (lib/search/groupmap.ts): what the map was made of, and how a build or a
// fill that leaves it as it was carries it over. Kept apart from groupmap.ts because the listing's
// build runs it, in its own transaction, on the hot path of `resume rows` (this module loads
// nothing else).
//
// Why carry it: on an active machine an agent appends to its transcript every few seconds, and each
// picker or `resume search` builds the listing first. A map of the build before would then not
// hold, and a search would load the whole listing (~600 ms at 22,000 sessions against ~75 from the
// map). An append changes a session's times and counts, which the map does not hold: the groups,
// each group's metadata and children are what they were, and only the files written since are no
// longer covered by their signatures, so the map names them (`written`) and a search reads them.

import type { Harness, Session } from '../types.js';
import { type Db, getMeta, setMeta } from './store.js';

const MAP = 'group-map';

/** files a carried map names as written since it was made; past this, a build leaves the map behind */
const WRITTEN_MAX = 64;
/** sessions a build may put and still carry the map (each is compared with its row) */
const PUT_MAX = 256;

/** What the map was made of (the meta row `group-map`). */
export interface Stamp {
  build: string;
  sigs: string;
  names: string;
  groups: number;
  /** the signatures there were (one gone without a fill, as by hand, and the map does not hold) */
  signed: number;
  /** the shared stores (prompt history) and the harness whose sessions they credit */
  shared: Array<{ harness: Harness; file: string }>;
  /** the harnesses whose sessions' parents a search infers (their `parents` hook) */
  inferred?: Harness[];
  /** session files written since the map was made (carried over those builds): a search reads them */
  written?: string[];
}

export function readStamp(db: Db): Stamp | null {
  try {
    return JSON.parse(getMeta(db, MAP) ?? 'null') as Stamp | null;
  } catch {
    return null;
  }
}

export function writeStamp(db: Db, s: Stamp): void {
  setMeta(db, MAP, JSON.stringify(s));
}

/**
 * What of a session the map is made of: its group (parent links, and the facts a harness infers
 * parents from, but for `updated`: see startedSince), its children and its metadata (groups.ts
 * groupSessions, childFiles, metadataText; the harnesses' hooks name children by file and id).
 */
function facts(s: Session): string {
  return JSON.stringify([
    s.harness,
    s.id,
    s.file,
    s.parent ?? null,
    s.forkedFrom ?? null,
    s.hiddenReason ?? null,
    s.started ?? null,
    s.children ?? [],
    s.title ?? null,
    s.firstPrompt ?? null,
    s.branch ?? null,
    s.cwd ?? null,
  ]);
}

/**
 * A session of `harness` started after `t`, other than `key`. A harness that infers parents (pi:
 * a worker belongs to the main session going when it started) reads a session's `updated` only to
 * ask whether it was going when a later one started: when none started after it last was, its
 * `updated` moving on changes no parent.
 */
function startedSince(db: Db, harness: Harness, t: number, key: string): boolean {
  // (by time, the sessions active since: few, where the harness's index would walk all of its sessions)
  const q = db.prepare('SELECT doc FROM sessions WHERE at > ? AND +harness = ?').pluck();
  for (const doc of q.iterate(t, harness) as Iterable<string>) {
    const s = JSON.parse(doc) as Session;
    if (s.key !== key && (s.started ?? s.updated ?? 0) > t) return true;
  }
  return false;
}

/**
 * Whether a build's change carries the map over (read before its sessions are put: it compares each
 * with the row it replaces): the map was of the build before (`had`), no session comes or goes,
 * and none of those put changes what the map is made of. Then the returned function, called in the
 * build's transaction with the new build's id, stamps the map with it and with the files the build
 * read (`files`); null leaves the map of the build before, which then does not hold.
 */
export function carryMap(
  db: Db,
  had: string,
  change: { put: Session[]; drop: ReadonlySet<string> },
  files: Iterable<string>,
): ((id: string) => void) | null {
  const stamp = readStamp(db);
  // (a stamp that does not say which harnesses infer parents was made before maps were carried)
  if (!stamp?.inferred || stamp.build !== had || change.drop.size > 0 || change.put.length > PUT_MAX) return null;
  const written = new Set([...(stamp.written ?? []), ...files]);
  if (written.size > WRITTEN_MAX) return null;
  const inferred = new Set(stamp.inferred);
  const docOf = db.prepare('SELECT doc FROM sessions WHERE key = ?').pluck();
  for (const s of change.put) {
    const doc = docOf.get(s.key) as string | undefined;
    if (doc === undefined) return null;
    let was: Session;
    try {
      was = JSON.parse(doc) as Session;
    } catch {
      return null;
    }
    if (facts(was) !== facts(s)) return null;
    if (inferred.has(s.harness) && was.updated !== s.updated) {
      const t = was.updated ?? was.started;
      if (t == null || startedSince(db, s.harness, t, s.key)) return null;
    }
  }
  return (id) => writeStamp(db, { ...stamp, build: id, written: [...written] });
}

/**
 * A fill's write of the signatures (sigs.ts SIGS_WRITTEN: `before` to `now`) carries the map: it
 * makes signatures cover more of their files, never less, and the map does not hold what they say.
 * (A signature gone changes the count the map was made with, and it stops holding.)
 */
export function carrySigs(db: Db, before: string | null, now: string): void {
  const stamp = readStamp(db);
  if (stamp && stamp.sigs === (before ?? '')) writeStamp(db, { ...stamp, sigs: now });
}
