// The group map: which search group (groups.ts) each session and each searched file is in, and
// each group's metadata, kept in the index database (`sgroup`, `schild`, `smeta`). With it, the
// picker's search as you type loads only the groups that may hold a word, not the whole listing:
// at 22,000 sessions, loading and grouping the listing, statting and weighing every file's
// signature took ~400 ms of a ~490 ms reload for a word in no file.
//
// The map is made by a reload that went the whole way (it has the groups of the listing, and found
// every signature current), and holds while the listing's build, the signatures (a fill writes a
// new `sigs-written`) and the snapshot names (a title is metadata) are what they were; a build that
// leaves every group as it was, and a fill, carry it over (index/mapstamp.ts), the build naming the
// files it read, whose groups are then loaded whatever their signatures say. Then the
// groups that may hold a term are a superset of those the search's own candidates() lets through:
// a file whose signature lets a term through, metadata holding one, a member its harness reads
// itself, a session a shared store (prompt history) credits with one. The search then runs on
// those groups' sessions only, as it runs on all of them, so its results are the same. When most
// groups may hold a word, the whole listing is loaded as before (fewer queries).
import fs from 'node:fs';
import type { App } from '../app.js';
import { namesFile, storeDir } from '../harness/claude/care/store.js';
import { readStamp, type Stamp, writeStamp } from '../index/mapstamp.js';
import { type Db, getMeta } from '../index/store.js';
import type { Harness, Session } from '../types.js';
import { addTo } from '../util/multimap.js';
import { childFiles, groupSessions, metadataText } from './groups.js';
import { type FilePieces, firstPrompts, piecesHolding } from './pieces.js';
import { allNeedles, type Term, termMask } from './query.js';
import { HOOKS } from './registry.js';
import { LINE_BARE, scanFile } from './scan.js';
import { sharedPieces } from './search.js';
import { SIGS_WRITTEN, Signatures, sameFile, statOf } from './sigs.js';
import type { SharedPiece } from './types.js';

/**
 * Past this share of the groups (and FEW), the whole listing is loaded instead: one query for all
 * of it costs less than looking up each group's sessions (a word in every file: at 22,000 sessions
 * ~130 ms more by the map, at 686 ~5%). Files are counted against the same bound before their
 * groups are known: at 686 sessions, whose files are large, a project's name may be in a third of
 * their signatures and a third of the groups, and the map still answers it quicker.
 */
const MOST = 0.5;
const FEW = 100;

/** The snapshot names' file as it is now (its titles are part of the metadata searched). */
export function namesStamp(app: App): string {
  try {
    const st = fs.statSync(namesFile(storeDir(app.ctx)));
    return `${st.size}.${st.mtimeMs}.${st.ino}`;
  } catch {
    return '';
  }
}

/** What the map is stamped with as the database is now: its build and signatures, and the names. */
export function stampOf(app: App, db: Db): { build: string; sigs: string; names: string } {
  return { build: getMeta(db, 'build') ?? '', sigs: getMeta(db, SIGS_WRITTEN) ?? '', names: namesStamp(app) };
}

/** The map is of this stamp already, and of as many signatures as there are. */
export function mapHolds(db: Db, now: { build: string; sigs: string; names: string }): boolean {
  return stampHolds(db, readStamp(db), now);
}

function stampHolds(db: Db, s: Stamp | null, now: { build: string; sigs: string; names: string }): s is Stamp {
  return !!s && s.build === now.build && s.sigs === now.sigs && s.names === now.names && s.signed === signedCount(db);
}

/** The shared stores (prompt history) of the sessions in `all`, with the harness each is of. */
function sharedStores(all: Session[]): Stamp['shared'] {
  const byHarness = new Map<Harness, Session[]>();
  for (const s of all) if (HOOKS[s.harness]?.shared) addTo(byHarness, s.harness, s);
  const out: Stamp['shared'] = [];
  for (const [h, list] of byHarness) for (const src of HOOKS[h].shared?.(list) ?? []) out.push({ harness: h, file: src.file });
  return out;
}

/**
 * The map of `all` (the listing as a search saw it, every signature current at `at`), written in
 * one transaction, unless the database moved on since (another build, another fill: then the next
 * search makes it). `db`: open for writing.
 */
export function saveMap(db: Db, all: Session[], at: { build: string; sigs: string; names: string }, home: string): boolean {
  const groups = groupSessions(all, home);
  const shared = sharedStores(all);
  db.exec('BEGIN IMMEDIATE');
  let ok = false;
  try {
    if ((getMeta(db, 'build') ?? '') !== at.build || (getMeta(db, SIGS_WRITTEN) ?? '') !== at.sigs) return false;
    db.exec('DELETE FROM sgroup; DELETE FROM schild; DELETE FROM smeta;');
    // (only what the listing does not say: most sessions are their group's root, and their
    // transcripts are the sessions' own files)
    const member = db.prepare('INSERT OR REPLACE INTO sgroup(key, root) VALUES(?, ?)');
    const child = db.prepare('INSERT OR REPLACE INTO schild(path, root) VALUES(?, ?)');
    const meta = db.prepare('INSERT INTO smeta(root, meta, plain, scan) VALUES(?, ?, ?, ?)');
    for (const [root, g] of groups) {
      let scan = 0;
      for (const m of g.members) {
        if (m.key !== root) member.run(m.key, root);
        if (HOOKS[m.harness]?.scan) scan = 1;
        for (const c of childFiles(m)) child.run(c, root);
      }
      const text = metadataText(g.root, home);
      meta.run(root, text, plainText(text) ? 1 : 0, scan);
    }
    const inferred = Object.entries(HOOKS)
      .filter(([, k]) => k?.parents)
      .map(([h]) => h as Harness);
    writeStamp(db, { ...at, groups: groups.size, signed: signedCount(db), shared, inferred, written: [] });
    ok = true;
    return true;
  } finally {
    db.exec(ok ? 'COMMIT' : 'ROLLBACK');
  }
}

/**
 * Metadata whose letters SQLite's LIKE folds as the search's regular expressions do: ASCII, but
 * for the separators metadataText puts between its parts.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is what LIKE folds
const plainText = (text: string): boolean => /^[\x00-\x7f]*$/.test(text.replaceAll(' · ', ''));

/** What a search from the map has: the sessions of the groups that may hold a term, and what it read for them. */
export interface FromMap {
  sessions: Session[];
  shorts: Map<string, string>;
  sigs: Signatures;
  pieces: Map<string, FilePieces>;
  shared: SharedPiece[];
}

/** A term's longest word, lower case (a phrase holds it; so does every line that holds the term). */
const anchorOf = (t: Term): string =>
  t.text
    .split(/\s+/)
    .reduce((a, b) => (b.length > a.length ? b : a), '')
    .toLowerCase();

/**
 * The sessions the map puts in the group of root `key`, the root left out, as stored ([] when the
 * map was never made). Not checked against the listing: a map a build made stale may name a member
 * less or more (the picker's preview asks this, where a near answer serves).
 */
export function membersOf(db: Db, key: string): Session[] {
  const docs = db.prepare('SELECT doc FROM sessions WHERE key IN (SELECT key FROM sgroup WHERE root = ?)').pluck().all(key) as string[];
  return docs.map((d) => JSON.parse(d) as Session);
}

/**
 * The groups that may hold a term and what the search needs of them, from the map; 'stale' when the
 * map does not hold (the listing or the signatures changed since it was made, a child transcript
 * changed), 'most' when most groups may hold one. `view`: the app's view of stored sessions (named,
 * and the demo's directories). The search hooks must be loaded (registry.ts loadExtractors).
 */
export function fromMap(app: App, db: Db, terms: Term[], view: (s: Session[]) => Session[]): FromMap | 'stale' | 'most' {
  const stamp = readStamp(db);
  if (!stampHolds(db, stamp, stampOf(app, db)) || childChanged(db)) return 'stale';
  const most = Math.max(FEW, stamp.groups * MOST);
  // a group holds every term, so it holds the one fewest files may hold: only those that may hold it are looked up
  const picked = keyTerm(db, terms, most);
  if (!picked) return 'most';
  const { key } = picked;
  // (files written since the map was made, which their signatures may not cover: their groups are
  // loaded whatever their signatures say, and each is read unless its signature is current again)
  const written = new Set(stamp.written ?? []);
  const signed = signedRoots(db, [...picked.files, ...written]);
  const roots = new Set([...signed, ...metaRoots(db, terms, key)]);
  if (roots.size > most) return 'most';
  const shared = sharedCredit(db, stamp.shared, terms, key, view);
  for (const r of shared.roots) roots.add(r);
  if (roots.size > most) return 'most';
  const groups = loadGroups(db, terms, roots, view, written);
  return {
    ...groups,
    pieces: piecesHolding(db, terms, { files: groups.files, firsts: firstPrompts(groups.sessions) }),
    shared: shared.pieces,
  };
}

/**
 * The term the fewest files' signatures let through, and those files; null when every term has
 * more than `most` (each term's files are counted only as far as they could still be the fewest).
 */
function keyTerm(db: Db, terms: Term[], most: number): { key: number; files: string[] } | null {
  const probe = new Signatures(
    new Map(),
    terms.map((t) => t.needles),
  );
  let best: { key: number; files: string[] } | null = null;
  for (let i = 0; i < terms.length && i < 31; i++) {
    const limit = best ? best.files.length : most + 1;
    const files = db
      .prepare(`SELECT path FROM sigs WHERE ${probe.termSql(i)} LIMIT ${limit}`)
      .pluck()
      .all() as string[];
    if (files.length < limit) best = { key: i, files };
  }
  return best;
}

/** How many files have a signature (the map's stamp holds the count it was made with). */
export const signedCount = (db: Db): number => db.prepare('SELECT count(*) FROM sigs').pluck().get() as number;

/** A child transcript the map knows was written since its signature: the search reads it the whole way, which makes that first. */
function childChanged(db: Db): boolean {
  for (const [f, size, mtime, ino] of db
    .prepare('SELECT c.path, g.size, g.mtime, g.ino FROM schild c JOIN sigs g ON g.path = c.path')
    .raw()
    .iterate() as Iterable<[string, number, number, number]>) {
    try {
      if (!sameFile(statOf(f), { size, mtime, ino })) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** The groups with one of these files: a session's own, or a child transcript. */
function signedRoots(db: Db, files: string[]): Set<string> {
  const roots = new Set<string>();
  const wanted = JSON.stringify(files);
  for (const r of db
    .prepare(
      'SELECT coalesce(g.root, s.key) FROM sessions s LEFT JOIN sgroup g ON g.key = s.key WHERE s.file IN (SELECT value FROM json_each(?)) ' +
        'UNION SELECT root FROM schild WHERE path IN (SELECT value FROM json_each(?))',
    )
    .pluck()
    .iterate(wanted, wanted) as Iterable<string>)
    roots.add(r);
  return roots;
}

/** The groups whose metadata holds term `key`, and those with a member its harness reads itself (that may hold anything). */
function metaRoots(db: Db, terms: Term[], key: number): Set<string> {
  const roots = new Set<string>();
  const anchor = anchorOf(terms[key]);
  // SQLite's LIKE folds ASCII only: a term with other letters asks every group's metadata
  const ascii = /^[\x21-\x7e]+$/.test(anchor);
  const like = ascii ? [`%${anchor.replace(/[\\%_]/g, '\\$&')}%`] : [];
  for (const [root, meta, scan] of db
    .prepare(`SELECT root, meta, scan FROM smeta WHERE scan = 1 OR plain = 0 OR ${ascii ? "meta LIKE ? ESCAPE '\\'" : '1'}`)
    .raw()
    .iterate(...like) as Iterable<[string, string, number]>) {
    if (scan === 1 || (termMask(terms, meta) & (1 << key)) !== 0) roots.add(root);
  }
  return roots;
}

/**
 * The shared stores' pieces that hold a term, credited to their sessions as the whole listing
 * credits them (each harness's sessions are loaded for that only when its store holds a term: a word
 * typed in a prompt), and the groups credited with term `key`.
 */
function sharedCredit(
  db: Db,
  stores: Stamp['shared'],
  terms: Term[],
  key: number,
  view: (s: Session[]) => Session[],
): { pieces: SharedPiece[]; roots: Set<string> } {
  const pieces: SharedPiece[] = [];
  const roots = new Set<string>();
  const rootOf = db.prepare('SELECT root FROM sgroup WHERE key = ?').pluck();
  for (const h of new Set(stores.filter((s) => holdsAny(s.file, terms)).map((s) => s.harness))) {
    for (const x of sharedPieces(view(sessionsOf(db, h)), terms)) {
      pieces.push(x);
      // (a store's first line comes whether or not it holds a term)
      if ((termMask(terms, x.p.text) & (1 << key)) !== 0) roots.add((rootOf.get(x.key) as string | undefined) ?? x.key);
    }
  }
  return { pieces, roots };
}

/** The sessions of the groups `roots` (newest first, as the listing), their short ids, and their files' signatures. */
function loadGroups(
  db: Db,
  terms: Term[],
  roots: Set<string>,
  view: (s: Session[]) => Session[],
  written: Set<string>,
): Pick<FromMap, 'sessions' | 'shorts' | 'sigs'> & { files: string[] } {
  const wanted = JSON.stringify([...roots]);
  const sessions: Session[] = [];
  const shorts = new Map<string, string>();
  const main = new Set<string>();
  for (const [doc, short] of db
    .prepare(
      'SELECT doc, short FROM sessions WHERE key IN (SELECT value FROM json_each(?)) OR key IN (SELECT key FROM sgroup WHERE root IN (SELECT value FROM json_each(?))) ORDER BY at DESC, id',
    )
    .raw()
    .iterate(wanted, wanted) as Iterable<[string, string]>) {
    const s = JSON.parse(doc) as Session;
    sessions.push(s);
    shorts.set(s.id, short);
    main.add(s.file);
  }
  const files = [...main];
  for (const f of db
    .prepare('SELECT path FROM schild WHERE root IN (SELECT value FROM json_each(?))')
    .pluck()
    .iterate(wanted) as Iterable<string>)
    files.push(f);
  const sigs = Signatures.loadSome(
    db,
    terms.map((t) => t.needles),
    files,
    (f) => main.has(f) && !written.has(f),
  );
  return { sessions: view(sessions), shorts, sigs, files };
}

/** Some line of the file may hold a term (its bytes hold one of the needles). */
function holdsAny(file: string, terms: Term[]): boolean {
  let hit = false;
  try {
    scanFile(file, allNeedles(terms), {
      line(_b, _s, _e, _at, kind) {
        if ((kind & LINE_BARE) === 0) hit = true;
      },
      raw() {
        hit = true;
      },
    });
  } catch {
    /* unreadable: the search finds nothing in it either */
  }
  return hit;
}

function sessionsOf(db: Db, harness: Harness): Session[] {
  return (db.prepare('SELECT doc FROM sessions WHERE harness = ?').pluck().all(harness) as string[]).map((d) => JSON.parse(d) as Session);
}
