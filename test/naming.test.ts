// Naming a session (issue 11): words from ANY prompt (kept out of the listing), `-n 0`, `-p`, the
// hidden counts beside `ls --json`, and the JSON fields in `ls --help` / `show --help`.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeApp } from '../lib/app.js';
import { promptQualities, setManyKeys } from '../lib/index/holding.js';
import { allPrompts } from '../lib/index/prompts.js';
import { namedBy } from '../lib/select/find.js';
import { PromptQualities, parseQuery } from '../lib/select/rank.js';
import { resolve } from '../lib/select/resolve.js';
import { makeCtx } from '../lib/util/paths.js';
import { jsonl, run, tempHome, write } from './helpers.js';
import { LS_JSON_FIELDS } from './json.js';
import { claudeSession, piSession } from './launch-helpers.js';

/** 40 words, none inside another */
const MANY = Array.from({ length: 40 }, (_, i) => `qa${String(i).padStart(2, '0')}`);

function corpus() {
  const home = tempHome();
  const cwd = path.join(home, 'src', 'shop');
  fs.mkdirSync(cwd, { recursive: true });
  const pi = 'abcdef99-1111-4111-8111-111111111111';
  piSession(home, { id: pi, cwd, prompts: ['Rate limiting for login', 'now the zeppelin middleware please', 'and tests', 'last one'] });
  // a Claude session with a middle prompt: user, reply, user, reply, user
  const cid = 'c1aude00-0000-4000-8000-000000000001';
  const at = '2026-01-01T00:00:00.000Z';
  const line = (n: number, type: string, extra: object) => ({
    parentUuid: n ? `u${n - 1}` : null,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: cid,
    version: '2.1.0',
    gitBranch: 'main',
    type,
    uuid: `u${n}`,
    timestamp: at,
    entrypoint: 'cli',
    ...extra,
  });
  write(
    home,
    `.claude/projects/-src-shop/${cid}.jsonl`,
    jsonl(
      line(0, 'user', { message: { role: 'user', content: 'start the refactor' } }),
      line(1, 'assistant', { message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } }),
      line(2, 'user', { message: { role: 'user', content: 'rename the quokka helper, token=abcdefgh12345678' } }),
      line(3, 'assistant', { message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } }),
      line(4, 'user', { message: { role: 'user', content: 'run the tests' } }),
    ),
  );
  for (let i = 0; i < 4; i++) claudeSession(home, { id: `0000000${i}-0000-4000-8000-00000000000${i}`, cwd, prompt: `filler ${i}` });
  claudeSession(home, { id: 'feedface-0000-4000-8000-000000000009', cwd, prompt: 'sdk run', entrypoint: 'sdk-cli' });
  return { home, pi, cid };
}

describe('words match every prompt', () => {
  it('a word from a middle prompt names its session, cold and warm; the listing never holds it', () => {
    const { home, pi, cid } = corpus();
    // cold: the index is built in the same run
    expect(run(home, ['resolve', 'zeppelin'])).toMatchObject({ code: 0, stdout: `pi:${pi}\n` });
    // warm: the listing is reused; every prompt comes from the index's state
    expect(run(home, ['resolve', 'zeppelin', 'middleware'])).toMatchObject({ code: 0, stdout: `pi:${pi}\n` });
    expect(run(home, ['resolve', 'quokka'])).toMatchObject({ code: 0, stdout: `claude:${cid}\n` });
    expect(run(home, ['show', 'quokka']).stdout).toContain(`id:           ${cid}`);
    expect(run(home, ['quokka', '--dry-run']).stdout).toContain(`--resume ${cid}`);
    // all words must appear (one from a middle prompt, one from the directory)
    expect(run(home, ['resolve', 'quokka', 'shop']).stdout).toBe(`claude:${cid}\n`);
    expect(run(home, ['resolve', 'quokka', 'zeppelin']).code).toBe(1);
    // rows and ls read the sessions' records only: they hold no middle prompt
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const db = new Sqlite(path.join(home, '.cache', 'resume', 'index.db'), { readonly: true });
    const docs = (db.prepare('SELECT doc FROM sessions').pluck().all() as string[]).join('\n');
    expect(docs).not.toContain('zeppelin');
    expect(docs).not.toContain('quokka');
    // and the prompts kept for words are sanitised like everything else the index hands out
    const kept = (db.prepare('SELECT texts FROM prompts').pluck().all() as string[]).flatMap((t) => JSON.parse(t) as string[]);
    db.close();
    expect(kept).toContain('now the zeppelin middleware please');
    expect(kept).toContain('rename the quokka helper, token=[REDACTED:token]');
    expect(kept.join('\n')).not.toContain('abcdefgh12345678');
  });

  it('TAB shows the prompt a word named a session from before its title, when nothing else the candidate shows holds it', () => {
    const { home, pi } = corpus();
    const desc = (word: string) =>
      run(home, ['__complete', '--', word])
        .stdout.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[1]);
    // the prompt (from the word on, past 12 characters; clipped to 30) before the title
    expect(desc('zeppelin')).toEqual([expect.stringMatching(/ {2}now the zeppelin middleware p… · Rate limiting for login$/)]);
    expect(desc('middleware')).toEqual([expect.stringMatching(/ {2}…middleware please · Rate limiting for login$/)]);
    // redacted as everything the index keeps
    expect(desc('token')).toEqual([expect.stringMatching(/ {2}…token=\[REDACTED:token\] · start the refactor \(main\)$/)]);
    // a word in the title (here the first prompt), or the start of an id: the title, as ever
    expect(desc('limiting')).toEqual([expect.stringMatching(/ {2}Rate limiting for login$/)]);
    expect(desc(pi.slice(0, 6))).toEqual([expect.stringMatching(/ {2}Rate limiting for login$/)]);
  });
});

describe('options', () => {
  it('-n 0 means no limit (ls and search); -n N cuts', () => {
    const { home } = corpus();
    const all = JSON.parse(run(home, ['ls', '--json']).stdout).length;
    expect(all).toBe(6);
    expect(JSON.parse(run(home, ['ls', '--json', '-n', '0']).stdout).length).toBe(all);
    expect(JSON.parse(run(home, ['ls', '--json', '-n', '2']).stdout).length).toBe(2);
    expect(run(home, ['ls', '-n', '0']).stdout.trim().split('\n').length).toBe(all);
    expect(JSON.parse(run(home, ['search', '--json', '-n', '0', 'filler']).stdout).length).toBe(4);
    expect(JSON.parse(run(home, ['search', '--json', '-n', '1', 'filler']).stdout).length).toBe(1);
    expect(run(home, ['ls', '-n', '-1']).code).toBe(2);
  });

  it('ls --json still names the hidden sessions on stderr; --all has none', () => {
    const { home } = corpus();
    const r = run(home, ['ls', '--json']);
    expect(JSON.parse(r.stdout).some((s: { hidden: boolean }) => s.hidden)).toBe(false);
    expect(r.stderr).toMatch(/^\+1 hidden: 1 SDK; --all shows them\n$/);
    expect(run(home, ['ls', '--json', '--all']).stderr).toBe('');
  });

  it('-p is --print', () => {
    const { home, pi } = corpus();
    const a = run(home, ['zeppelin', '-p', '--shell', 'bash']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(run(home, ['zeppelin', '--print', '--shell', 'bash']).stdout);
    expect(a.stdout).toContain(pi);
  });

  it('ls --help and show --help list the JSON fields', () => {
    const home = tempHome();
    for (const cmd of ['ls', 'show']) {
      const h = run(home, [cmd, '--help']).stdout;
      for (const f of LS_JSON_FIELDS) {
        expect(h, `${cmd} --help: ${f}`).toMatch(new RegExp(`\\b${f}\\b`));
      }
    }
  });
});

/** A home of pi sessions whose middle prompts are `texts`, indexed; `dir(i)`: session i's project under ~/src. */
function promptsHome(prefix: string, texts: string[], dir: (i: number) => string): { home: string; id: (i: number) => string } {
  const home = tempHome();
  const id = (i: number) => `${prefix}${String(i).padStart(4, '0')}-1111-4111-8111-111111111111`;
  for (const [i, t] of texts.entries()) middlePrompt(home, id(i), path.join(home, 'src', dir(i)), i, t);
  expect(run(home, ['index']).code).toBe(0);
  return { home, id };
}

/** Pi session `i` in `cwd` whose middle prompt is `text`, a minute after session i - 1. */
function middlePrompt(home: string, id: string, cwd: string, i: number, text: string): void {
  fs.mkdirSync(cwd, { recursive: true });
  piSession(home, { id, cwd, prompts: [`start ${i}`, text, `end ${i}`], at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() });
}

describe('ranking by where the words are in the stored prompts, without reading them', () => {
  it('orders as reading every prompt does: whole words, word starts, inside words, escapes beside them, `!` words', async () => {
    const texts = [
      'the webhook fails',
      'prewebhook tidy',
      'webhooks again',
      'a line\nwebhook\tafter tabs',
      'say "webhook"',
      'Webhook',
      'Café webhook',
      'nothing here',
      'webhook retry backoff',
      'retry the WEBHOOKRETRIER',
    ];
    const { home } = promptsHome('fade', texts, (i) => (i % 2 ? 'shop' : 'api'));
    const app = makeApp({ env: { HOME: home, RESUME_CACHE_DIR: path.join(home, '.cache', 'resume') } });
    for (const q of [
      ['webhook'],
      ['webhook', 'retry'],
      ['retry', 'webhook'],
      ['webhook', '!backoff'],
      ['shop', 'webhook'],
      ['"webhook retry"'],
      ['cafe'],
      ['nwebhook'],
    ]) {
      const keys = async (shown: boolean) => {
        const n = await namedBy(app, q, { shown });
        const r = resolve(q, n.sessions, { all: true, prompts: n.prompts, home });
        return r.kind === 'one' ? [r.session.key] : r.kind === 'none' ? [] : r.candidates.map((s) => s.key);
      };
      const byQuality = await keys(false);
      expect(byQuality, q.join(' ')).toEqual(await keys(true));
      if (q[0] === 'webhook' && q.length === 1) expect(byQuality.length).toBe(9);
    }
  });
});

describe("the picker's words in the stored prompts, narrowed by or read in one pass", () => {
  it('gives every session that may match them all the same qualities either way', () => {
    const texts = [
      'the webhook fails',
      'retry the webhook',
      'a line\nretry\tafter tabs',
      'say "webhook"',
      'nothing here',
      'webhookretrier',
      'Retry',
    ];
    const { home, id } = promptsHome('face', texts, (i) => `p${i}`);
    const ctx = makeCtx({ HOME: home, RESUME_CACHE_DIR: path.join(home, '.cache', 'resume') });
    const qualities = (q: string, many: number) => {
      setManyKeys(many);
      try {
        const found = new PromptQualities(parseQuery(q));
        expect(promptQualities(ctx, found, () => [])).toBe(true);
        return found;
      } finally {
        setManyKeys();
      }
    };
    for (const q of ['webhook retry', 'retry webhook', 'webhook "retry the"', 'tabs retry', 'webhook retrier']) {
      const narrowedBy = qualities(q, Number.POSITIVE_INFINITY);
      const inOnePass = qualities(q, 0);
      const all = (x: PromptQualities) => texts.map((_, i) => [...(x.get(`pi:${id(i)}`) ?? [])]);
      const matchAll = (v: number[]) => v.length > 0 && v.every((n) => n > 0);
      // (the sessions narrowing leaves: those with every word in a prompt; one pass gives others too, each missing a word)
      expect(
        all(narrowedBy).map((v) => (matchAll(v) ? v : null)),
        q,
      ).toEqual(all(inOnePass).map((v) => (matchAll(v) ? v : null)));
      // (not vacuous: some session holds them all, and one pass read sessions narrowing left out)
      expect(all(narrowedBy).some(matchAll), q).toBe(true);
      expect(inOnePass.size, q).toBeGreaterThan(narrowedBy.size);
    }
  });
});

describe('words are matched with accents folded wherever the index narrows', () => {
  it('a plain word finds an accented middle prompt, title and directory (resolve, completion)', () => {
    const home = tempHome();
    const cwd = path.join(home, 'src', 'pâtisserie');
    fs.mkdirSync(cwd, { recursive: true });
    const id = 'acce0001-1111-4111-8111-111111111111';
    piSession(home, { id, cwd, prompts: ['start here', 'the Crème brûlée recipe', 'end here'] });
    piSession(home, { id: 'acce0002-1111-4111-8111-111111111111', cwd: path.join(home, 'src', 'other'), prompts: ['nothing sweet'] });
    expect(run(home, ['index']).code).toBe(0);
    for (const q of [['creme'], ['brulee'], ['CREME', 'brulee'], ['patisserie']]) {
      expect(run(home, ['resolve', ...q]).stdout, q.join(' ')).toBe(`pi:${id}\n`);
    }
    expect(run(home, ['__complete', '--', 'creme']).stdout.split('\t')[0]).toBe(id.slice(0, 8));
    expect(run(home, ['__complete', '--', 'patisserie']).stdout.split('\t')[0]).toBe(id.slice(0, 8));
  });
});

describe('words read only the prompts of sessions that hold one of them', () => {
  it('the sessions with no prompt holding a word are left out; the same sessions are named', () => {
    const home = tempHome();
    const cwd = path.join(home, 'src', 'shop');
    fs.mkdirSync(cwd, { recursive: true });
    const id = (i: number) => `abcdef${String(i).padStart(2, '0')}-1111-4111-8111-111111111111`;
    // 70 sessions; the words only in middle prompts
    for (let i = 0; i < 70; i++) {
      // (40: `kiwi` written with a Kelvin sign, whose lower case is `k`)
      // (23: words beside characters the stored JSON escapes)
      const words =
        i === 17
          ? 'the zanzibar parser'
          : i === 40
            ? 'the Zanzibar \u212aiwi stand'
            : i === 23
              ? 'say "zanzibar"\nthen\tstop\\here'
              : i === 55
                ? MANY.slice(8).join(' ')
                : `filler ${i}`;
      middlePrompt(home, id(i), cwd, i, words);
    }
    expect(run(home, ['index']).code).toBe(0);
    const ctx = makeCtx({ HOME: home, RESUME_CACHE_DIR: path.join(home, '.cache', 'resume') });
    const every = allPrompts(ctx);
    expect(every.size).toBe(70);
    // only the sessions with a prompt holding the word (in any case), with every prompt of theirs
    const some = allPrompts(ctx, ['ZANZIBAR']);
    expect([...some.keys()].sort()).toEqual([`pi:${id(17)}`, `pi:${id(23)}`, `pi:${id(40)}`].sort());
    expect(some.get(`pi:${id(17)}`)).toEqual(every.get(`pi:${id(17)}`));
    // a word with a `k` is not narrowed by: a Kelvin sign's lower case holds it
    expect(allPrompts(ctx, ['kiwi']).has(`pi:${id(40)}`)).toBe(true);
    expect(run(home, ['resolve', 'kiwi']).stdout).toBe(`pi:${id(40)}\n`);
    // the same sessions named as with every prompt
    for (const q of [
      ['zanzibar'],
      ['zanzibar', 'parser'],
      ['ZANZIBAR', 'kiwi'],
      ['zanzibar', 'then'],
      ['stop', 'here'],
      ['shop', 'filler'],
      ['nothing-here'],
      ['100%'],
      ['a_b'],
    ]) {
      const r = run(home, ['resolve', '-a', ...q]);
      const want = [...every]
        .filter(([, ps]) => q.every((w) => ps.some((p) => p.toLowerCase().includes(w.toLowerCase())) || cwd.includes(w.toLowerCase())))
        .map(([k]) => k);
      expect(r.stdout.split('\n').filter(Boolean).sort(), q.join(' ')).toEqual(want.sort());
    }
    // the picker's list for a typed query: a word in a prompt and one in the row (the directory)
    const pick = path.join(home, 'pick');
    fs.mkdirSync(pick);
    fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: true, harness: null, dir: null, deep: false, cols: 200 }));
    const listed = (q: string) => {
      const r = run(home, ['__feed', '--query', q], { RESUME_PICK_DIR: pick, NO_COLOR: '1' });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t')[0]);
    };
    expect(listed('zanzibar shop').sort()).toEqual([17, 23, 40].map((i) => `pi:${id(i)}`).sort());
    expect(listed('shop then zanzibar')).toEqual([`pi:${id(23)}`]);
    expect(listed('zanzibar nowhere')).toEqual([]);
    expect(listed('shop')).toHaveLength(70);
    // a query of 40 words (more than a 32-bit mask would tell apart): 8 in the directory, 32 in a prompt
    const many = [...Array(8).fill('shop'), ...MANY.slice(8)];
    expect(run(home, ['resolve', ...many]).stdout).toBe(`pi:${id(55)}\n`);
    expect(listed(many.join(' '))).toEqual([`pi:${id(55)}`]);
  });
});

describe('words narrow the sessions one after another', () => {
  it('a word in over a thousand sessions, then one in a few: the same sessions as matching each', () => {
    const home = tempHome();
    const id = (i: number) => `bcdef${String(i).padStart(3, '0')}-1111-4111-8111-111111111111`;
    const shop = path.join(home, 'src', 'shop');
    const kiwi = path.join(home, 'src', 'kiwi-land');
    fs.mkdirSync(shop, { recursive: true });
    fs.mkdirSync(kiwi, { recursive: true });
    // 1,100 sessions (past the thousand a word's sessions are followed by key): `orchestra` in a
    // prompt of all but 44; `kiwi` in a prompt of 4, and in the directory of 5 others (one of
    // them without `orchestra`)
    const prompts = new Map<string, string[]>();
    const dirs = new Map<string, string>();
    for (let i = 0; i < 1100; i++) {
      const p = [`start ${i}`, i % 300 === 7 ? 'the orchestra of kiwi' : i % 25 === 0 ? `a piano ${i}` : `the orchestra ${i}`, `end ${i}`];
      const cwd = i % 250 === 3 || i === 1000 ? kiwi : shop;
      piSession(home, { id: id(i), cwd, prompts: p, at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() });
      prompts.set(`pi:${id(i)}`, p);
      dirs.set(`pi:${id(i)}`, cwd);
    }
    expect(run(home, ['index']).code).toBe(0);
    for (const q of [
      ['orchestra', 'kiwi'],
      ['kiwi', 'orchestra', 'end'],
      ['orchestra', 'land'],
      ['orchestra', 'start', 'end'],
      ['kiwi', '1003'],
    ]) {
      const want = [...prompts]
        .filter(([k, ps]) => q.every((w) => ps.some((p) => p.includes(w)) || (dirs.get(k) ?? '').includes(w)))
        .map(([k]) => k);
      expect(want.length, q.join(' ')).toBeGreaterThan(0);
      const r = run(home, ['resolve', ...q]);
      expect(r.stdout.split('\n').filter(Boolean).sort(), q.join(' ')).toEqual(want.sort());
    }
  });
});
