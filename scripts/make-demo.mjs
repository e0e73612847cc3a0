// Builds the binary parts of the demo HOME (demo/home) from the fixture schemas, so no opaque file is
// committed without its source:
//   .local/share/opencode/opencode.db                      opencode v1.2 schema (fixture SQL) + demo rows
//   .cursor/chats/<md5 of cwd>/<chatId>/store.db              Cursor chat store (fixture SQL) + hex meta
// The text parts (Cursor transcripts, the opencode JSON tree) are committed as they are.
//
// The databases are written in rollback-journal mode, not WAL as the harnesses keep them: the demo
// may be installed read-only, and a WAL database cannot be opened read-only without its -shm/-wal
// companions (SQLite would try to create them). The schema and rows are the real format.
//
// Usage: node scripts/make-demo.mjs   (idempotent: the databases are rebuilt from scratch)
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const home = path.join(root, 'demo', 'home');
const fixture = (p) => fs.readFileSync(path.join(root, 'test', 'fixtures', p), 'utf8');

function fresh(file) {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = DELETE');
  return db;
}

const t = (iso) => Date.parse(iso);

// ---- opencode ---------------------------------------------------------------------------------
{
  const db = fresh(path.join(home, '.local/share/opencode/opencode.db'));
  db.exec(fixture('opencode/schema-v1.2-migrations.sql'));
  const project = db.prepare(`INSERT INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', ?, ?, ?, '[]')`);
  project.run('4b1c0d6a2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c', '/home/demo/src/webshop', 'webshop', t('2026-10-01T09:00:00Z'), t('2026-11-27T16:40:00Z'));
  project.run('9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b1c0d6a2f', '/home/demo/src/resume-cli', 'resume-cli', t('2026-10-03T09:00:00Z'), t('2026-11-26T11:05:00Z'));
  const session = db.prepare(
    `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated, time_archived)
     VALUES (?, ?, ?, ?, ?, ?, '1.2.10', ?, ?, ?)`,
  );
  const message = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)');
  const part = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)');
  let n = 0;
  const id = (prefix) => `${prefix}_demo${String(++n).padStart(4, '0')}`; // ascending, as opencode's are
  const say = (sid, at, role, parts, extra = {}) => {
    const mid = id('msg');
    const data = role === 'user'
      ? { role, time: { created: at }, agent: 'build', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' }, ...extra }
      : { role, time: { created: at, completed: at + 9000 }, parentID: '', modelID: 'claude-sonnet-4-5', providerID: 'anthropic', mode: 'build', agent: 'build', path: { cwd: extra.cwd, root: extra.cwd }, cost: 0.0123, tokens: { input: 5210, output: 388, reasoning: 0, cache: { read: 0, write: 0 } }, finish: 'stop' };
    message.run(mid, sid, at, at, JSON.stringify(data));
    for (const p of parts) part.run(id('prt'), mid, sid, at, at, JSON.stringify(p));
  };
  const text = (s, more = {}) => ({ type: 'text', text: s, ...more });

  const shop = '/home/demo/src/webshop';
  const s1 = 'ses_52f3a9c1dffeDemoCheckout01';
  session.run(s1, '4b1c0d6a2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c', null, 'gentle-otter', shop, 'Cache product images at the CDN edge', t('2026-11-27T15:10:00Z'), t('2026-11-27T16:40:00Z'), null);
  say(s1, t('2026-11-27T15:10:00Z'), 'user', [text('product images load slowly on the listing page; can we cache them at the edge?'), text('<file name="cdn.config.ts">export default { ttl: 0 }</file>', { synthetic: true })]);
  say(s1, t('2026-11-27T15:12:00Z'), 'assistant', [{ type: 'step-start' }, text('The CDN config sets ttl to 0, so every image is fetched from the origin. I will set a day-long TTL with stale-while-revalidate.'), { type: 'step-finish', reason: 'stop' }], { cwd: shop });
  say(s1, t('2026-11-27T16:35:00Z'), 'user', [text('also purge the cache when a product image changes')]);
  say(s1, t('2026-11-27T16:40:00Z'), 'assistant', [text('Added a purge call to the image upload handler.')], { cwd: shop });

  const child = 'ses_52f3a8e0aa01DemoSubagent01';
  session.run(child, '4b1c0d6a2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c', s1, 'quiet-heron', shop, 'Child session - 2026-11-27T15:13:00.000Z', t('2026-11-27T15:13:00Z'), t('2026-11-27T15:20:00Z'), null);
  say(child, t('2026-11-27T15:13:00Z'), 'user', [text('Find every place that builds an image URL')]);

  const cli = '/home/demo/src/resume-cli';
  const s2 = 'ses_52f5c2d7e1f0DemoFlagParse1';
  session.run(s2, '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b1c0d6a2f', null, 'brave-lynx', cli, 'New session - 2026-11-26T10:30:00.000Z', t('2026-11-26T10:30:00Z'), t('2026-11-26T11:05:00Z'), null);
  say(s2, t('2026-11-26T10:30:00Z'), 'user', [text('why does `--dir .` match sessions in sibling directories?')]);
  say(s2, t('2026-11-26T10:33:00Z'), 'assistant', [text('The prefix test compares strings without a trailing slash, so /src/app also matches /src/app2.')], { cwd: cli });

  const s3 = 'ses_5301a0b2c3d4DemoArchived01';
  session.run(s3, '4b1c0d6a2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c', null, 'old-crow', shop, 'Try a GraphQL gateway (abandoned)', t('2026-11-02T09:00:00Z'), t('2026-11-02T09:40:00Z'), t('2026-11-03T08:00:00Z'));
  say(s3, t('2026-11-02T09:00:00Z'), 'user', [text('sketch a GraphQL gateway in front of the REST API')]);
  db.close();
}

// ---- Cursor: one store.db per chat, under chats/<md5 of the chat's directory>/<chatId>/ ---------
const md5 = (s) => crypto.createHash('md5').update(s, 'utf8').digest('hex');
function cursorChat(cwd, chatId, meta) {
  const db = fresh(path.join(home, '.cursor', 'chats', md5(cwd), chatId, 'store.db'));
  db.exec(fixture('cursor/store-db.dump.sql'));
  db.prepare(`UPDATE meta SET value = ? WHERE key = '0'`).run(Buffer.from(JSON.stringify({ agentId: chatId, ...meta }), 'utf8').toString('hex'));
  db.close();
}
cursorChat('/home/demo/src/webshop', '7d0c3a52-4b8e-4f1a-9c6d-2e5f8a1b3c4d', {
  name: 'Fix tax rounding at checkout', mode: 'default', createdAt: t('2026-11-28T09:12:00Z'), lastUsedModel: 'claude-4.5-sonnet', latestRootBlobId: 'deadbeef',
});
cursorChat('/home/demo/src/dotfiles', 'e4a1f2b3-5c6d-4e7f-8a9b-0c1d2e3f4a5b', {
  name: 'New Agent', mode: 'default', createdAt: t('2026-11-25T18:00:00Z'), lastUsedModel: 'default', latestRootBlobId: 'deadbeef',
});
console.log(`demo databases written under ${path.relative(root, home)}`);
