// GitHub Copilot CLI adapter, on what Copilot CLI 1.0.102 wrote (test/fixtures/real/copilot-1.0.102,
// recorded by test/real/): a rename that touches only workspace.yaml, the fork command, a store
// found through RESUME_COPILOT_DIRS or COPILOT_HOME, and an append that grows a session.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { byId, FIXTURES, lsJson, must, recordedHome, run } from './helpers.js';
import type { Manifest, Recorded } from './json.js';

const SET = path.join(FIXTURES, 'real', 'copilot-1.0.102');
const manifest: Manifest = JSON.parse(fs.readFileSync(path.join(SET, 'manifest.json'), 'utf8'));
const recorded = (mode: string, pick: (s: Recorded) => boolean = () => true) =>
  must(manifest.sessions.find((s) => s.mode === mode && pick(s)));
/** the session /rename named (interactive, typed, not a fork) */
const RENAMED = recorded('interactive', (s) => s.title === 'Renamed copilot session' && !s.forkedFrom);
/** the session started with `--name N -i PROMPT` */
const NAMED = recorded('interactive', (s) => s.started === 'argv');

const home = (): string => recordedHome(SET, manifest);

const dryRun = (h: string, args: string[], env: Record<string, string> = {}) => {
  const r = run(h, ['--dry-run', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('copilot', () => {
  it('takes a rename, which rewrites only workspace.yaml, on the next listing', () => {
    const h = home();
    expect(byId(lsJson(h), NAMED.id).title).toBe('Named copilot session');
    // /rename rewrites workspace.yaml as Copilot does: the name and user_named, nothing else
    const ws = path.join(h, '.copilot', 'session-state', NAMED.id, 'workspace.yaml');
    const text = fs.readFileSync(ws, 'utf8');
    fs.writeFileSync(ws, text.replace(/^name: .*$/m, 'name: Second name given').replace(/^user_named: .*$/m, 'user_named: true'));
    expect(byId(lsJson(h), NAMED.id).title).toBe('Second name given');
  });

  it("forks with /fork run as the resumed session opens, in the session's directory", () => {
    const h = home();
    expect(dryRun(h, ['--fork', RENAMED.id])).toEqual({
      harness: 'copilot',
      id: RENAMED.id,
      cwd: RENAMED.cwd,
      argv: ['copilot', '--resume', RENAMED.id, '-i', '/fork'],
      env: {},
    });
  });

  it('points Copilot at a store found through RESUME_COPILOT_DIRS with COPILOT_HOME, and not at one it already uses', () => {
    const h = home();
    const moved = path.join(h, 'elsewhere');
    fs.renameSync(path.join(h, '.copilot'), moved);
    expect(dryRun(h, [NAMED.id], { RESUME_COPILOT_DIRS: moved }).env).toEqual({ COPILOT_HOME: moved });
    expect(dryRun(h, [NAMED.id], { COPILOT_HOME: moved }).env).toEqual({});
    expect(lsJson(h).filter((s) => s.harness === 'copilot')).toEqual([]);
  });

  it("counts a prompt appended to a listed session, and not a subagent's", () => {
    const h = home();
    const before = byId(lsJson(h), RENAMED.id);
    expect(before.prompts).toBe(RENAMED.prompts.length);
    const file = path.join(h, '.copilot', 'session-state', RENAMED.id, 'events.jsonl');
    // the user.message records of this very file, the person's and the subagent's, appended again later
    const lines = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"type":"user.message"'));
    const later = (l: string) => l.replace(/"timestamp":"[^"]+"/, '"timestamp":"2027-01-01T00:00:00.000Z"');
    const own = must(lines.find((l) => !l.includes('"agentId"')));
    const sub = must(lines.find((l) => l.includes('"agentId"')));
    fs.appendFileSync(file, `${later(own)}\n${later(sub)}\n`);
    const after = byId(lsJson(h), RENAMED.id);
    expect(after.prompts).toBe(RENAMED.prompts.length + 1);
    expect(after.lastPrompt).toBe(RENAMED.prompts[0]);
  });
});
