// The group map (lib/search/groupmap.ts): the picker's search as you type loads only the groups
// that may hold its words. On every real client's transcripts, each query and filter gives the rows
// the whole listing gives; the map is used for words few groups hold, is carried over a build that
// leaves its groups as they were (an append), and stops being used the moment anything else in the
// listing, the snapshot names or a subagent's transcript change, until a search or Ctrl-S makes it
// again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type App, makeApp } from '../lib/app.js';
import { namesFile, storeDir } from '../lib/harness/claude/care/store.js';
import { indexFiles } from '../lib/index/files.js';
import { openWrite, withRead } from '../lib/index/store.js';
import { fromMap } from '../lib/search/groupmap.js';
import { parseQuery } from '../lib/search/query.js';
import { loadExtractors } from '../lib/search/registry.js';
import { prepareSearch, searchRows } from '../lib/search/run.js';
import type { SearchFilters } from '../lib/search/search.js';
import type { Session } from '../lib/types.js';
import { envFor, must, ROOT, realClientsHome, run } from './helpers.js';

const realHome = () => realClientsHome('resume-groupmap-');

const appOf = (h: string): App => makeApp({ env: envFor(h), distDir: path.join(ROOT, 'dist') });

/** What the map answers for the query: the sessions it loads, or why it does not. */
function loads(app: App, query: string): 'stale' | 'most' | Session[] | null {
  const got = withRead(indexFiles(app.ctx).db, (db) =>
    fromMap(app, db, parseQuery([query], true), (l: Session[]) => app.named(app.view(l))),
  );
  return got === null || typeof got === 'string' ? got : got.sessions;
}

/** The keys of the sessions the map loads for the query, or why it loads none. */
function mapSays(app: App, query: string): 'stale' | 'most' | string[] | null {
  const got = loads(app, query);
  return Array.isArray(got) ? got.map((s) => s.key).sort() : got;
}

/** Rows without their age: the clock moves between two searches, and a session just copied is seconds old. */
const ageless = (rows: string[][]): string[][] => rows.map((r) => r.filter((_, i) => i !== 2));

/** The rows with the map forgotten (the whole listing loaded), the map left as it was not. */
async function wholeWay(app: App, query: string, filters: SearchFilters): Promise<string[][]> {
  const db = openWrite(indexFiles(app.ctx).db);
  let kept: string | undefined;
  try {
    kept = db.prepare("SELECT v FROM meta WHERE k = 'group-map'").pluck().get() as string | undefined;
    db.prepare("DELETE FROM meta WHERE k = 'group-map'").run();
  } finally {
    db.close();
  }
  try {
    return (await searchRows(app, query, filters)).rows;
  } finally {
    const w = openWrite(indexFiles(app.ctx).db);
    try {
      if (kept !== undefined) w.prepare("INSERT INTO meta(k, v) VALUES('group-map', ?)").run(kept);
    } finally {
      w.close();
    }
  }
}

const QUERIES = [
  'zanzibarquux',
  'hi',
  'echo',
  'subagent',
  'Renamed',
  'proj-a',
  'proj-b',
  'claude',
  'codex',
  'json',
  '"run echo"',
  'résumé',
  'src/',
  'echo zanzibarquux',
  'please run',
  'the',
  // two words, one in many files and one in few (or only in metadata, or only in a subagent)
  'the subagent',
  'hi proj-a',
  'json codex',
  'claude echo',
  'proj-b the',
];
const FILTERS: SearchFilters[] = [
  { all: true },
  { all: false },
  { all: true, harness: ['claude'] },
  { all: true, harness: ['pi', 'codex'] },
];

describe('the group map', () => {
  it('gives the rows the whole listing gives, for every query and filter, and is used for words few groups hold', async () => {
    const h = realHome();
    const ix = run(h, ['index']);
    expect(ix.code, ix.stderr).toBe(0);
    const app = appOf(h);
    let used = 0;
    for (const q of QUERIES) {
      const says = mapSays(app, q);
      expect(says, q).not.toBe('stale');
      if (Array.isArray(says)) used++;
      for (const f of FILTERS) {
        const quick = await searchRows(app, q, f);
        expect(quick.after, 'nothing to make again').toBeUndefined();
        expect(ageless(quick.rows), `${q} ${JSON.stringify(f)}`).toEqual(ageless(await wholeWay(app, q, f)));
      }
    }
    expect(used).toBeGreaterThan(QUERIES.length / 2);
    // a word in no file: nothing loaded but the sessions of the databases opencode and Kilo keep
    // (their harnesses query them: no signature rules them out)
    const absent = loads(app, 'zanzibarquux') as Session[];
    expect(absent.length).toBeGreaterThan(0);
    expect(absent.filter((s) => !s.file.endsWith('.db')).map((s) => s.file)).toEqual([]);
    // the fixtures' subagent and its session are one group: loaded together
    const withChild = mapSays(app, 'subagent');
    expect(Array.isArray(withChild) && withChild.length).toBeGreaterThan(0);
    // a session in another's group (a Codex, Droid, Gemini or Kilo subagent's thread): its id is
    // in its own transcript only, and the map finds it through its group, as the whole listing does
    const members = withRead(indexFiles(app.ctx).db, (db) => db.prepare('SELECT key, root FROM sgroup').raw().all() as [string, string][]);
    expect(must(members).length).toBeGreaterThan(0);
    for (const [key, root] of must(members)) {
      const id = key.slice(key.indexOf(':') + 1);
      const says = mapSays(app, id);
      if (Array.isArray(says)) expect(says, key).toEqual(expect.arrayContaining([key, root]));
      expect(ageless((await searchRows(app, id, { all: true })).rows), key).toEqual(ageless(await wholeWay(app, id, { all: true })));
    }
  });

  it('answers `resume search` too when nothing changed and no filter narrows it, with the same results and evidence', async () => {
    const h = realHome();
    expect(run(h, ['index']).code).toBe(0);
    const app = appOf(h);
    const cli = (q: string, extra: string[] = []) => {
      const r = run(h, ['search', '--json', ...extra, q]);
      expect([0, 1], r.stderr).toContain(r.code);
      return r.stdout;
    };
    for (const q of ['zanzibarquux', 'echo', 'subagent', 'hi proj-a', 'Renamed', 'json codex']) {
      expect(Array.isArray(mapSays(app, q)), q).toBe(true);
      const quick = cli(q);
      const db = openWrite(indexFiles(app.ctx).db);
      let kept: string;
      try {
        kept = db.prepare("SELECT v FROM meta WHERE k = 'group-map'").pluck().get() as string;
        db.prepare("DELETE FROM meta WHERE k = 'group-map'").run();
      } finally {
        db.close();
      }
      expect(quick, q).toBe(cli(q));
      const w = openWrite(indexFiles(app.ctx).db);
      try {
        w.prepare("INSERT INTO meta(k, v) VALUES('group-map', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v").run(kept);
      } finally {
        w.close();
      }
    }
    // a transcript appended to since: the map is not used (the search builds the index first), and
    // the new words are found
    const pi = JSON.parse(run(h, ['ls', '-a', '--json', '--harness', 'pi']).stdout) as Array<{ file: string }>;
    const file = must(pi[0]).file;
    const last = JSON.parse(must(fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop()));
    const said = { role: 'user', content: [{ type: 'text', text: 'the ocelotorbit plan' }], timestamp: Date.now() };
    fs.appendFileSync(file, `${JSON.stringify({ ...last, id: 'feedbeef', parentId: last.id, message: said })}\n`);
    const found = JSON.parse(cli('ocelotorbit')) as Array<{ file: string }>;
    expect(found.map((f) => f.file)).toEqual([file]);
  });

  it('credits a word only the prompt history holds to its session, as the whole listing does', async () => {
    const h = realHome();
    expect(run(h, ['index']).code).toBe(0);
    const history = path.join(h, '.claude/history.jsonl');
    const first = JSON.parse(must(fs.readFileSync(history, 'utf8').split('\n')[0]));
    fs.appendFileSync(history, `${JSON.stringify({ ...first, display: 'the quokkaquill plan', timestamp: first.timestamp + 1 })}\n`);
    const app = appOf(h);
    await loadExtractors();
    expect(mapSays(app, 'quokkaquill')).toContain(`claude:${first.sessionId}`);
    // the picker's reload, in a process of its own (nothing loaded before it but what it loads)
    const pick = path.join(h, 'pick');
    fs.mkdirSync(pick);
    fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: true, harness: null, dir: null, deep: true, cols: 200 }));
    const feed = run(h, ['__feed', '--query', 'quokkaquill'], { RESUME_PICK_DIR: pick, NO_COLOR: '1' });
    expect(feed.code, feed.stderr).toBe(0);
    const [status, ...rows] = feed.stdout.trimEnd().split('\n');
    expect(status).toMatch(/quokkaquill · 1 session/);
    expect(rows.map((r) => r.split('\t')[0])).toEqual([`claude:${first.sessionId}`]);
    expect(ageless((await searchRows(app, 'quokkaquill', { all: true })).rows)).toEqual(
      ageless(await wholeWay(app, 'quokkaquill', { all: true })),
    );
  });

  it('stops holding when a subagent transcript, the snapshot names, or the listing change, until a search or Ctrl-S makes it again', async () => {
    const h = realHome();
    expect(run(h, ['index']).code).toBe(0);
    const app = appOf(h);
    expect(Array.isArray(mapSays(app, 'hi'))).toBe(true);

    // a subagent's transcript grows with a new word: the map is not used; the search reads it
    // (making its signature), finds the word, and makes the map again after its rows
    const child = must(
      fs.readdirSync(h, { recursive: true, encoding: 'utf8' }).find((f) => f.includes('/subagents/agent-') && f.endsWith('.jsonl')),
    );
    const file = path.join(h, child);
    const line = JSON.parse(must(fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop()));
    const said = {
      ...line,
      type: 'user',
      uuid: '00000000-0000-4000-8000-0000000c0de1',
      message: { role: 'user', content: 'tune the wombatwhistle' },
    };
    fs.appendFileSync(file, `${JSON.stringify(said)}\n`);
    expect(mapSays(app, 'wombatwhistle')).toBe('stale');
    const slow = await searchRows(app, 'wombatwhistle', { all: true });
    expect(slow.rows.length).toBe(1);
    await must(slow.after)();
    expect(mapSays(app, 'wombatwhistle')).toEqual(expect.arrayContaining([expect.stringMatching(/^claude:/)]));
    expect((await searchRows(app, 'wombatwhistle', { all: true })).rows).toEqual(slow.rows);

    // a snapshot name (a title is metadata): not used until made again (Ctrl-S, prepareSearch)
    const untitled = JSON.parse(run(h, ['ls', '-a', '--json', '--harness', 'claude']).stdout) as Array<{ id: string }>;
    const names = namesFile(storeDir(app.ctx));
    fs.mkdirSync(path.dirname(names), { recursive: true });
    fs.writeFileSync(names, JSON.stringify({ [must(untitled[0]).id]: 'the marmotmarch notes' }));
    expect(mapSays(app, 'marmotmarch')).toBe('stale');
    await prepareSearch(app);
    const byName = mapSays(app, 'marmotmarch');
    expect(Array.isArray(byName)).toBe(true);
    expect(ageless((await searchRows(app, 'marmotmarch', { all: true })).rows)).toEqual(
      ageless(await wholeWay(app, 'marmotmarch', { all: true })),
    );

    // signatures gone without a fill (by hand): not used (they would rule out files they no longer speak for)
    const gone = openWrite(indexFiles(app.ctx).db);
    try {
      gone.exec("DELETE FROM sigs WHERE path LIKE '%.factory%'");
    } finally {
      gone.close();
    }
    expect(mapSays(app, 'hi')).toBe('stale');
    await prepareSearch(app);
    expect(Array.isArray(mapSays(app, 'hi'))).toBe(true);

    // a listing built again with a session gone: not used until made again
    const main = JSON.parse(run(h, ['ls', '-a', '--json', '--harness', 'codex']).stdout) as Array<{ file: string }>;
    fs.rmSync(must(main[0]).file);
    expect(run(h, ['rows']).code).toBe(0);
    expect(mapSays(app, 'hi')).toBe('stale');
    await prepareSearch(app);
    expect(Array.isArray(mapSays(app, 'hi'))).toBe(true);
  });

  it('is carried over a build that leaves its groups as they were (an append), and finds the appended words', async () => {
    const h = realHome();
    expect(run(h, ['index']).code).toBe(0);
    const app = appOf(h);
    expect(Array.isArray(mapSays(app, 'hi'))).toBe(true);
    const ls = (harness: string) =>
      JSON.parse(run(h, ['ls', '-a', '--json', '--harness', harness]).stdout) as Array<{ id: string; file: string; started: string }>;

    // a prompt appended to a Claude transcript: built again, the map holds, and names the file
    const claude = must(ls('claude').find((s) => s.file.endsWith('.jsonl')));
    const lines = fs.readFileSync(claude.file, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(must(lines.filter((l) => l.includes('"message"')).pop()));
    const said = { ...last, type: 'user', uuid: '00000000-0000-4000-8000-0000000a11ce', parentUuid: last.uuid };
    fs.appendFileSync(claude.file, `${JSON.stringify({ ...said, message: { role: 'user', content: 'the pangolinparade plan' } })}\n`);
    expect(run(h, ['rows']).code).toBe(0);
    // (loaded with the sessions of the databases opencode and Kilo keep, which no signature rules out)
    const loaded = loads(app, 'pangolinparade');
    expect(Array.isArray(loaded), 'the map holds').toBe(true);
    expect((loaded as Session[]).filter((s) => !s.file.endsWith('.db')).map((s) => s.key)).toEqual([`claude:${claude.id}`]);
    expect(ageless((await searchRows(app, 'pangolinparade', { all: true })).rows)).toEqual(
      ageless(await wholeWay(app, 'pangolinparade', { all: true })),
    );
    // the search made the file's signature current again: still carried, and `resume search` answers from it
    expect(Array.isArray(mapSays(app, 'pangolinparade'))).toBe(true);
    const found = JSON.parse(run(h, ['search', '--json', 'pangolinparade']).stdout) as Array<{ file: string }>;
    expect(found.map((f) => f.file)).toEqual([claude.file]);
    for (const q of ['hi', 'echo', 'subagent', 'proj-a']) {
      expect(ageless((await searchRows(app, q, { all: true })).rows), q).toEqual(ageless(await wholeWay(app, q, { all: true })));
    }

    // pi infers a worker's parent from when its sessions were going: a reply appended to the newest
    // session at a later time (none started since it was last going) keeps the map; to the oldest,
    // it does not, since a session started after that one could now be found going inside it
    const pi = ls('pi').sort((a, b) => Date.parse(a.started) - Date.parse(b.started));
    const append = (file: string) => {
      const rec = JSON.parse(must(fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop()));
      const msg = { role: 'assistant', content: [{ type: 'text', text: 'the ibisinlet plan' }], timestamp: Date.now() };
      const line = {
        ...rec,
        type: 'message',
        id: `${rec.id ?? 'ab'}1`,
        parentId: rec.id,
        timestamp: new Date().toISOString(),
        message: msg,
      };
      fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
      expect(run(h, ['rows']).code).toBe(0);
    };
    append(must(pi.at(-1)).file);
    expect(mapSays(app, 'ibisinlet')).toEqual(expect.arrayContaining([expect.stringMatching(/^pi:/)]));
    append(must(pi[0]).file);
    expect(mapSays(app, 'ibisinlet')).toBe('stale');
    expect((await searchRows(app, 'ibisinlet', { all: true })).rows.length).toBe(2);
  });

  it("lists the sessions while a first build has committed no listing yet, never 'no session mentions it'", () => {
    const h = realHome();
    must(run(h, ['index']));
    const pick = path.join(h, 'pick');
    fs.mkdirSync(pick);
    fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: true, harness: null, dir: null, deep: true, cols: 200 }));
    const feed = () => {
      const r = run(h, ['__feed', '--query', 'subagent'], { RESUME_PICK_DIR: pick, NO_COLOR: '1' });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trimEnd().split('\n');
    };
    const [, ...rows] = feed();
    expect(rows.length).toBeGreaterThan(0);
    // the database as a reader sees it while a first build runs (one transaction): its tables, and
    // no listing in them (nor check.bin and rows.bin, written after the commit)
    const files = indexFiles(appOf(h).ctx);
    const db = openWrite(files.db);
    try {
      db.exec("DELETE FROM sessions; DELETE FROM prompts; DELETE FROM meta WHERE k IN ('build', 'group-map')");
    } finally {
      db.close();
    }
    fs.rmSync(files.check, { force: true });
    fs.rmSync(files.rowbin, { force: true });
    // the reload waits for the listing (here: makes it) and finds what it found before
    const [status, ...again] = feed();
    expect(status).toMatch(/deep search: subagent · \d+ sessions? \(best first\)/);
    expect(again.map((r) => r.split('\t')[0]).sort()).toEqual(rows.map((r) => r.split('\t')[0]).sort());
  });
});
