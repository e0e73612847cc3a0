// Real SQLite databases for the opencode and Cursor tests, built from the fixture SQL dumps in WAL
// mode, the way the harnesses keep them.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Db, openDatabase } from '../lib/os/sqlite.js';
import { FIXTURES } from './helpers.js';

// through the engine resume uses (lib/os/sqlite.ts), so that under Node 22 better-sqlite3 is never loaded
export { openDatabase };

export const OPENCODE_SCHEMA = fs.readFileSync(path.join(FIXTURES, 'opencode', 'schema-v1.2-migrations.sql'), 'utf8');
/**
 * The opencode 2.x tables as opencode's core package declares them (dev: packages/core/src/session/sql.ts):
 * sessions in `session_v2`, transcript entries in `session_message`.
 */
export const OPENCODE_V2_SCHEMA = `
    CREATE TABLE session_v2 (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text,
      fork_session_id text, fork_boundary integer, slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL,
      version text NOT NULL, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL,
      time_compacting integer, time_archived integer);
    CREATE TABLE session_message (id text PRIMARY KEY, session_id text NOT NULL, type text NOT NULL, seq integer NOT NULL,
      time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
`;
export const CURSOR_STORE_SQL = fs.readFileSync(path.join(FIXTURES, 'cursor', 'store-db.dump.sql'), 'utf8');

export interface OcSession {
  id: string;
  directory?: string;
  title?: string;
  parent?: string | null;
  created?: number;
  updated?: number;
  archived?: number | null;
  project?: string;
}

export interface OcMessage {
  id: string;
  session: string;
  data: Record<string, unknown> | string;
  parts?: (Record<string, unknown> | string)[];
}

/** A WAL-mode opencode database with the v1.2 schema from the fixture. The connection is returned open. */
export function opencodeDb(file: string, schema = OPENCODE_SCHEMA): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = openDatabase(file);
  db.pragma('journal_mode = WAL');
  db.exec(schema);
  return db;
}

export function addSessions(db: Db, sessions: OcSession[], messages: OcMessage[] = []): void {
  const projects = new Set(sessions.map((s) => s.project ?? 'global'));
  const pj = db.prepare('INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES (?, ?, 1, 1, ?)');
  for (const p of projects) pj.run(p, '/', '[]');
  const ss = db.prepare(
    `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated, time_archived)
     VALUES (?, ?, ?, ?, ?, ?, '1.2.0', ?, ?, ?)`,
  );
  for (const s of sessions) {
    ss.run(
      s.id,
      s.project ?? 'global',
      s.parent ?? null,
      s.id.slice(-6),
      s.directory ?? '/tmp',
      s.title ?? `New session - 2026-02-01T10:00:00.000Z`,
      s.created ?? 1770000000000,
      s.updated ?? s.created ?? 1770000000000,
      s.archived ?? null,
    );
  }
  const ms = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, 1, 1, ?)');
  const ps = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 1, 1, ?)');
  for (const m of messages) {
    ms.run(m.id, m.session, typeof m.data === 'string' ? m.data : JSON.stringify(m.data));
    (m.parts ?? []).forEach((p, i) => {
      ps.run(
        `${m.id.replace(/^msg_/, 'prt_')}_${String(i).padStart(3, '0')}`,
        m.id,
        m.session,
        typeof p === 'string' ? p : JSON.stringify(p),
      );
    });
  }
}

export const user = (id: string, session: string, ...texts: (string | Record<string, unknown>)[]): OcMessage => ({
  id,
  session,
  data: { role: 'user', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4' } },
  parts: texts.map((t) => (typeof t === 'string' ? { type: 'text', text: t } : t)),
});

export const assistant = (id: string, session: string, text: string, model = 'gpt-5'): OcMessage => ({
  id,
  session,
  data: { role: 'assistant', modelID: model, providerID: 'openai', mode: 'build' },
  parts: [{ type: 'step-start' }, { type: 'text', text }, { type: 'step-finish' }],
});

export function md5(s: string): string {
  return crypto.createHash('md5').update(s, 'utf8').digest('hex');
}

/** A Cursor chat store.db (the fixture's tables) whose meta['0'] is the given object, hex-encoded. */
export function cursorStore(file: string, meta: Record<string, unknown> | null): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = openDatabase(file);
  db.pragma('journal_mode = WAL');
  db.exec(CURSOR_STORE_SQL);
  if (meta) db.prepare(`UPDATE meta SET value = ? WHERE key = '0'`).run(Buffer.from(JSON.stringify(meta), 'utf8').toString('hex'));
  db.close();
}

/** sha256 of a file's bytes ('' when absent), to show a database was not written. */
export function digest(file: string): string {
  try {
    return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return '';
  }
}
