// The index's files in the cache directory and the one version that covers them all.
//
//   index.db    the index: one SQLite database (lib/index/store.ts) with every source's stat, byte
//               offset and parser state, every session and every prompt, the search index and
//               the directory listings discovery reuses (lib/index/dirs.ts). Written in transactions:
//               one writer at a time, readers see the last commit and never wait.
//   check.bin   the no-change check (lib/index/check.ts): every source's stat and the discovery
//               memos, so a run that finds nothing changed answers without opening the database.
//   rows.bin    the rows `resume rows` prints, rendered (lib/index/rowbin.ts), of the same build.
//   rows.out …  output printed again while nothing it shows has changed (lib/index/rowsout.ts).
// check.bin and rows.bin are written from the database after each commit and name its build; a
// run that finds them missing, damaged or of another build writes them again from the database.
import path from 'node:path';
import type { Ctx } from '../types.js';
import { cacheDir } from '../util/paths.js';

/**
 * The version of the database's layout and of what the parsers extract, and of check.bin and
 * rows.bin: a database of another version is removed and built again (21: one SQLite database in
 * place of the state shards, listing files and patches; 22: a session's prompts in one row; 23: indexes for the listing's order and the failed sources; 24: records and prompts folded for words; 30: each piece's key kept with it; 31: the sources' paths indexed by harness, so that a finish pass
 * finds a harness's files by name without reading their rows; 32: states kept without their
 * prompts, Claude Code's keeping its first 50 as read; 33: the search's group map;
 * 34: a piece's file told by its id;
 * 35: the directory listings in the database, no longer dirs.json; 36: more secrets redacted;
 * 37: a Gemini subagent named by its task, not by the result it handed back; htpasswd -b
 * passwords and Teams webhooks redacted; 38: Discord bot tokens redacted; 39: the group map's
 * metadata names a directory from ~).
 */
export const INDEX_VERSION = 39;

export interface IndexFiles {
  dir: string;
  db: string;
  check: string;
  rowbin: string;
}

export function indexFiles(ctx: Ctx): IndexFiles {
  const dir = cacheDir(ctx);
  const j = (n: string) => path.join(dir, n);
  return { dir, db: j('index.db'), check: j('check.bin'), rowbin: j('rows.bin') };
}

export interface Skipped {
  /** named like a session file but not a regular file (FIFO, socket, device, directory) */
  notRegular: number;
  /** could not be stat'ed or read */
  unreadable: number;
  /** sources whose parse failed (message per harness) */
  failed: Record<string, string>;
}

/** Files of earlier versions of the index, removed when the database is first written. */
export const OLD_NAMES = [
  'list.json',
  'rows.json',
  'list.idx',
  'list.patch',
  'check.patch',
  'links.bin',
  'reach.json',
  'index.lock',
  'files.json',
  'state.json',
];
