// Factory Droid adapter, on what Droid 0.225.2 wrote (test/fixtures/real/droid-0.225.2, recorded by
// test/real/): a /rename that rewrites line 1 in place, the fork flag, a store found through
// RESUME_DROID_DIRS or FACTORY_HOME_OVERRIDE, an appended prompt counted and injected records not,
// and deep search telling a prompt of the session's own from a fork's copy of it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { byId, FIXTURES, lsJson, must, recordedHome, run } from './helpers.js';
import type { Found, Manifest, Recorded } from './json.js';

const SET = path.join(FIXTURES, 'real', 'droid-0.225.2');
const manifest: Manifest = JSON.parse(fs.readFileSync(path.join(SET, 'manifest.json'), 'utf8'));
const recorded = (mode: string, pick: (s: Recorded) => boolean = () => true) =>
  must(manifest.sessions.find((s) => s.mode === mode && pick(s)));
/** the session /rename named (started with its first prompt on the command line) */
const RENAMED = recorded('interactive', (s) => s.started === 'argv');
/** the session typed into from the start in proj-b (titled by Droid's title model) */
const TYPED = recorded('interactive', (s) => s.started === 'typed');
/** the TUI's fork of RENAMED */
const FORK = recorded('interactive', (s) => s.forkedFrom === RENAMED.id);

const home = (): string => recordedHome(SET, manifest);

const transcript = (h: string, s: { id: string; cwd: string }) =>
  path.join(h, '.factory', 'sessions', s.cwd.replace(/\//g, '-'), `${s.id}.jsonl`);

const dryRun = (h: string, args: string[], env: Record<string, string> = {}) => {
  const r = run(h, ['--dry-run', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('droid', () => {
  it('takes a rename, which rewrites the first line in place, on the next listing', () => {
    const h = home();
    expect(byId(lsJson(h), TYPED.id).title).toBe('Mock session title');
    // /rename rewrites line 1 as Droid does: the title and isSessionTitleManuallySet, nothing appended
    const file = transcript(h, TYPED);
    const [first, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
    const head = { ...JSON.parse(first), title: 'Second name given', isSessionTitleManuallySet: true };
    fs.writeFileSync(file, [JSON.stringify(head), ...rest].join('\n'));
    expect(byId(lsJson(h), TYPED.id).title).toBe('Second name given');
  });

  it("forks with --fork, in the session's directory", () => {
    const h = home();
    expect(dryRun(h, ['--fork', RENAMED.id])).toEqual({
      harness: 'droid',
      id: RENAMED.id,
      cwd: RENAMED.cwd,
      argv: ['droid', '--fork', RENAMED.id],
      env: {},
    });
  });

  it('points Droid at a store found through RESUME_DROID_DIRS with FACTORY_HOME_OVERRIDE, and not at one it already uses', () => {
    const h = home();
    const moved = path.join(h, 'elsewhere', '.factory');
    fs.mkdirSync(path.dirname(moved));
    fs.renameSync(path.join(h, '.factory'), moved);
    expect(dryRun(h, [TYPED.id], { RESUME_DROID_DIRS: moved }).env).toEqual({ FACTORY_HOME_OVERRIDE: path.dirname(moved) });
    expect(dryRun(h, [TYPED.id], { FACTORY_HOME_OVERRIDE: path.dirname(moved) }).env).toEqual({});
    expect(lsJson(h).filter((s) => s.harness === 'droid')).toEqual([]);
    // FACTORY_HOME_OVERRIDE names a home: a store not called .factory cannot be pointed at
    const odd = path.join(h, 'odd-store');
    fs.renameSync(moved, odd);
    const r = run(h, ['--dry-run', TYPED.id], { RESUME_DROID_DIRS: odd });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/reads sessions only from <home>\/\.factory/);
  });

  it('counts a prompt appended to a listed session, and not injected context or a task report', () => {
    const h = home();
    const before = byId(lsJson(h), TYPED.id);
    expect(before.prompts).toBe(TYPED.prompts.length);
    const file = transcript(h, TYPED);
    const later = (l: string) => l.replace(/"timestamp":"[^"]+"/, '"timestamp":"2027-01-01T00:00:00.000Z"');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const context = must(lines.find((l) => l.startsWith('{"type":"message","id":"context-')));
    const own = must(lines.find((l) => l.includes('"userMessageSource":"cli_tui"') && l.includes('"role":"user"')));
    // a background task's report, as Droid writes it into the calling session
    const report = JSON.stringify({
      type: 'message',
      id: 'task-completion:x',
      timestamp: '2027-01-01T00:00:01.000Z',
      message: { role: 'user', content: [{ type: 'text', text: 'Background task completed.' }], visibility: 'llm_only' },
    });
    fs.appendFileSync(file, `${later(context)}\n${later(own)}\n${report}\n`);
    const after = byId(lsJson(h), TYPED.id);
    expect(after.prompts).toBe(TYPED.prompts.length + 1);
    expect(after.lastPrompt).toBe(TYPED.prompts[0]);
    // the report is the session's latest activity all the same
    expect(after.updated).toBe('2027-01-01T00:00:01.000Z');
  });

  it("searches a prompt in the session that has it, the fork's copy marked as copied", () => {
    const h = home();
    const r = run(h, ['search', '--all', '--json', 'resumed prompt']);
    expect(r.code, r.stderr).toBe(0);
    const hits: Found[] = JSON.parse(r.stdout);
    const of = (id: string) => hits.find((x) => x.id === id);
    expect(of(RENAMED.id)).toMatchObject({
      original: true,
      evidence: [
        { role: 'user', copied: false },
        { role: 'assistant', copied: false },
      ],
    });
    // the fork copied it from its parent: found, as a copy, below the original
    expect(of(FORK.id)).toMatchObject({
      original: false,
      evidence: [
        { role: 'user', copied: true },
        { role: 'assistant', copied: true },
      ],
    });
    expect(hits[0].id).toBe(RENAMED.id);
  });
});
