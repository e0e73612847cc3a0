// Naming a session (issue 11): words from ANY prompt (kept out of the listing), `-n 0`, `-p`, the
// hidden counts beside `ls --json`, and the JSON fields in `ls --help` / `show --help`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, run, tempHome, write } from './helpers.js';
import { claudeSession, piSession } from './launch-helpers.js';
import { reviveEntry, SAME_AS_STATE } from '../lib/index/promptfile.js';
import { allPrompts } from '../lib/index/prompts.js';
import { makeCtx } from '../lib/util/paths.js';

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
    parentUuid: n ? `u${n - 1}` : null, isSidechain: false, userType: 'external', cwd, sessionId: cid, version: '2.1.0',
    gitBranch: 'main', type, uuid: `u${n}`, timestamp: at, entrypoint: 'cli', ...extra,
  });
  write(home, `.claude/projects/-src-shop/${cid}.jsonl`, jsonl(
    line(0, 'user', { message: { role: 'user', content: 'start the refactor' } }),
    line(1, 'assistant', { message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } }),
    line(2, 'user', { message: { role: 'user', content: 'rename the quokka helper, token=abcdefgh12345678' } }),
    line(3, 'assistant', { message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } }),
    line(4, 'user', { message: { role: 'user', content: 'run the tests' } }),
  ));
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
    // rows and ls read list.json only: it holds no middle prompt
    const list = fs.readFileSync(path.join(home, '.cache', 'resume', 'list.json'), 'utf8');
    expect(list).not.toContain('zeppelin');
    expect(list).not.toContain('quokka');
    // and the prompts kept for words are sanitised like everything else the index hands out
    const dir = path.join(home, '.cache', 'resume', 'state');
    const files = fs.readdirSync(dir);
    type Stored = { state: { all?: string[] }; sessions: { id: string; allPrompts?: string[] | string }[] };
    const stored = files.filter((f) => !f.endsWith('.prompts.json')).flatMap((f) => Object.values(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).entries as Record<string, Stored>));
    // a session's list that is its parser state's is written once, as a marker; one that differs
    // (sanitised: the quokka prompt's token) is written whole
    const of = (id: string) => stored.find((e) => e.sessions.some((x) => x.id === id))!;
    expect(of(pi).sessions[0]!.allPrompts).toBe(SAME_AS_STATE);
    expect(of(pi).state.all).toContain('now the zeppelin middleware please');
    expect(Array.isArray(of(cid).sessions[0]!.allPrompts)).toBe(true);
    const kept = stored.map((e) => reviveEntry(e)).flatMap((e) => e.sessions.flatMap((x) => (x.allPrompts as string[] | undefined) ?? []));
    expect(kept).toContain('now the zeppelin middleware please');
    expect(kept).toContain('rename the quokka helper, token=[REDACTED:token]');
    expect(kept.join('\n')).not.toContain('abcdefgh12345678');
    // the prompt files beside the shards hold the same
    const again = files.filter((f) => f.endsWith('.prompts.json')).flatMap((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).e as [string, string[]][][]).flat().flatMap(([, ps]) => ps));
    expect(again.sort()).toEqual([...kept].sort());
  });
});

describe('prompt files', () => {
  it('words are read from a shard\'s prompt file only while it carries its shard\'s token; else from the shard', () => {
    const { home, pi } = corpus();
    expect(run(home, ['resolve', 'zeppelin']).stdout).toBe(`pi:${pi}\n`);
    const dir = path.join(home, '.cache', 'resume', 'state');
    const file = fs.readdirSync(dir).filter((f) => f.endsWith('.prompts.json')).map((f) => path.join(dir, f))
      .find((f) => fs.readFileSync(f, 'utf8').includes('zeppelin'))!;
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    // what the file says is what words see (a word only it holds names the session)
    const edit = ([k, ps]: [string, string[]]) => [k, k === `pi:${pi}` ? [...ps, 'the wombat gateway'] : ps];
    const edited = { ...doc, e: doc.e.map((pairs: [string, string[]][]) => pairs.map(edit)) };
    fs.writeFileSync(file, JSON.stringify(edited));
    expect(run(home, ['resolve', 'wombat']).stdout).toBe(`pi:${pi}\n`);
    // a prompt file written before the line layout (its pairs in one array) is read too
    fs.writeFileSync(file, JSON.stringify({ v: doc.v, tok: doc.tok, p: doc.e.flat().map(edit) }));
    expect(run(home, ['resolve', 'wombat']).stdout).toBe(`pi:${pi}\n`);
    // another token (a file older or newer than its shard): passed over, the shard read instead
    fs.writeFileSync(file, JSON.stringify({ ...edited, tok: 'zz0' }));
    expect(run(home, ['resolve', 'wombat']).code).toBe(1);
    expect(run(home, ['resolve', 'zeppelin']).stdout).toBe(`pi:${pi}\n`);
    // damaged or gone: the same
    for (const bad of ['{"v":12,"tok":', '']) {
      fs.writeFileSync(file, bad);
      expect(run(home, ['resolve', 'zeppelin']).stdout).toBe(`pi:${pi}\n`);
    }
    fs.rmSync(file);
    expect(run(home, ['resolve', 'zeppelin']).stdout).toBe(`pi:${pi}\n`);
    // an append writes the shard and its prompt file again: a new prompt is found, and from the file
    const piFile = fs.readdirSync(path.join(home, '.pi/agent/sessions'), { recursive: true }).map(String).find((f) => f.endsWith('.jsonl') && f.includes(pi))!;
    const full = path.join(home, '.pi/agent/sessions', piFile);
    fs.appendFileSync(full, JSON.stringify({ type: 'message', id: 'late', parentId: null, timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text: 'one more about the narwhal cache' }], timestamp: Date.now() } }) + '\n');
    expect(run(home, ['resolve', 'narwhal']).stdout).toBe(`pi:${pi}\n`);
    expect(fs.readFileSync(file, 'utf8')).toContain('narwhal');
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
      for (const f of ['harness', 'id', 'short', 'cwd', 'title', 'firstPrompt', 'lastPrompt', 'prompts', 'branch', 'model', 'started', 'updated', 'file', 'hidden', 'hiddenReason', 'parent', 'forkedFrom', 'live', 'pid', 'resume']) {
        expect(h, `${cmd} --help: ${f}`).toMatch(new RegExp(`\\b${f}\\b`));
      }
    }
  });
});

describe('words matched only in the prompt files that hold them', () => {
  it('a prompt file holding none of the words is left out, unless it is cut or of another shard; the same sessions are named', () => {
    const home = tempHome();
    const cwd = path.join(home, 'src', 'shop');
    fs.mkdirSync(cwd, { recursive: true });
    const id = (i: number) => `abcdef${String(i).padStart(2, '0')}-1111-4111-8111-111111111111`;
    // 70 sessions: four state shards; the words only in middle prompts
    for (let i = 0; i < 70; i++) {
      // (40: `kiwi` written with a Kelvin sign, whose lower case is `k`)
      const words = i === 17 ? 'the zanzibar parser' : i === 40 ? 'the Zanzibar \u212aiwi stand' : `filler ${i}`;
      piSession(home, { id: id(i), cwd, prompts: [`start ${i}`, words, `end ${i}`], at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() });
    }
    expect(run(home, ['index']).code).toBe(0);
    const ctx = makeCtx({ HOME: home, RESUME_CACHE_DIR: path.join(home, '.cache', 'resume') });
    const every = allPrompts(ctx);
    expect(every.size).toBe(70);
    const state = path.join(home, '.cache', 'resume', 'state');
    const files = fs.readdirSync(state).filter((f) => f.endsWith('.prompts.json')).map((f) => path.join(state, f));
    expect(files.length).toBeGreaterThan(2);
    const holding = (w: string) => files.filter((f) => fs.readFileSync(f, 'latin1').toLowerCase().includes(w));
    const keysIn = (f: string) => (JSON.parse(fs.readFileSync(f, 'utf8')).e as [string, string[]][][]).flat().map(([k]) => k);
    // only the prompt files holding a word are parsed (in any case); every prompt of them is there
    const some = allPrompts(ctx, ['zanzibar']);
    expect([...some.keys()].sort()).toEqual(holding('zanzibar').flatMap(keysIn).sort());
    expect(some.get(`pi:${id(17)}`)).toEqual(every.get(`pi:${id(17)}`));
    expect(some.size).toBeLessThan(70);
    // a word with a `k`: a file holding a Kelvin sign is read for it
    expect(fs.readFileSync(holding('zanzibar').find((f) => keysIn(f).includes(`pi:${id(40)}`))!, 'utf8')).toContain('\u212aiwi');
    expect(allPrompts(ctx, ['kiwi']).has(`pi:${id(40)}`)).toBe(true);
    expect(run(home, ['resolve', 'kiwi']).stdout).toBe(`pi:${id(40)}\n`);
    // the same sessions named as with every prompt
    for (const q of [['zanzibar'], ['zanzibar', 'parser'], ['ZANZIBAR', 'kiwi'], ['shop', 'filler'], ['nothing-here']]) {
      const r = run(home, ['resolve', '-a', ...q]);
      const want = [...every].filter(([, ps]) => q.every((w) => ps.some((p) => p.toLowerCase().includes(w.toLowerCase())) || cwd.includes(w.toLowerCase()))).map(([k]) => k);
      expect(r.stdout.split('\n').filter(Boolean).sort(), q.join(' ')).toEqual(want.sort());
    }
    // a prompt file cut short, or of another shard's token, is refused and its shard read instead
    const [other, rest] = files.filter((f) => !holding('zanzibar').includes(f));
    const mine = keysIn(other!);
    const text = fs.readFileSync(other!, 'utf8');
    const read = () => [...allPrompts(ctx, ['zanzibar']).keys()];
    expect(read()).not.toContain(mine[0]);
    fs.writeFileSync(other!, text.slice(0, -3));
    expect(read()).toEqual(expect.arrayContaining(mine));
    fs.writeFileSync(other!, text.replace(/"tok":"[^"]*"/, '"tok":"someoneelse0"'));
    expect(read()).toEqual(expect.arrayContaining(mine));
    // (the others still left out)
    if (rest) expect(read()).not.toContain(keysIn(rest)[0]);
  });
});
