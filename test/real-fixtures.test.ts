// The transcripts today's clients wrote (test/fixtures/real/<client>-<version>/, recorded by
// test/real/): every recorded session is listed with the right id, directory, own first and last
// prompt (never an injected block), title, prompt count, hidden status, parent and fork link, and
// the command that resumes it. Fast: no client is needed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, lsJson, sharedTempHome } from './helpers.js';
import { adapter } from '../lib/harness/registry.js';
import type { Harness } from '../lib/types.js';

const REAL = path.join(FIXTURES, 'real');
const sets = fs.existsSync(REAL)
  ? fs.readdirSync(REAL).filter((d) => fs.existsSync(path.join(REAL, d, 'manifest.json'))).sort()
  : [];

interface Recorded {
  id: string;
  cwd: string;
  prompts: string[];
  title: string | null;
  mode: string;
  parent: string | null;
  forkedFrom: string | null;
  titleCopiedFromParent?: boolean;
  copiedPrompts?: string[];
}

/** Modes that are runs without a person at the keyboard, or workers: hidden. */
const HIDDEN_MODES = new Set(['print', 'exec', 'sdk', 'subagent']);

/**
 * Runs the client writes no marker for, which resume does not tell apart from interactive sessions
 * yet (listed as shown): opencode `run`, Gemini `-p` (same `kind: "main"` header and records).
 */
const UNMARKED = new Set(['opencode:run', 'gemini:print']);

/** The argv resume runs for a session, per harness (`file` for pi, which resumes by path). */
function argvFor(client: string, id: string, file: string): string[] {
  switch (client) {
    case 'claude': return ['claude', '--resume', id];
    case 'codex': return ['codex', 'resume', id];
    case 'pi': return ['pi', '--session', file];
    case 'opencode': return ['opencode', '--session', id];
    case 'gemini': return ['gemini', '--resume', id];
    default: throw new Error(`no argv rule for ${client}`);
  }
}

/**
 * `opencode run MESSAGE` (1.18.33) stores the message wrapped in double quotes, and that is what the
 * listing shows (it is the stored prompt); the manifest names the prompts as typed.
 */
const unquote = (client: string, v: string | null) => (client === 'opencode' && v ? v.replace(/^"([\s\S]*)"$/, '$1') : v);

/** The last `$set.summary` of a Gemini session file, or null. */
function geminiSummary(file: string): string | null {
  let out: string | null = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"summary"')) continue;
    try {
      const o = JSON.parse(line);
      if (o && o.$set && typeof o.$set.summary === 'string') out = o.$set.summary;
    } catch {
      /* a partial line */
    }
  }
  return out;
}

describe('recorded sets', () => {
  it('are present for the clients recorded so far', () => {
    expect(sets.map((s) => s.split('-')[0])).toEqual(expect.arrayContaining(['claude', 'codex']));
  });
});

for (const set of sets) {
  const dir = path.join(REAL, set);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const client: string = manifest.client;
  const sessions: Recorded[] = manifest.sessions;

  describe(`${set}`, () => {
    // One HOME for the set, shared by its tests though the first of them makes it (removed after
    // the file's last test).
    let cache: { home: string; list: any[] } | null = null;
    const listed = () => {
      if (cache) return cache;
      const home = sharedTempHome();
      fs.cpSync(path.join(dir, 'home'), home, { recursive: true });
      cache = { home, list: lsJson(home) };
      return cache;
    };

    it(`the adapter's tested version is the recorded one (${manifest.version})`, () => {
      expect(adapter(client as Harness).testedVersion).toBe(manifest.version);
    });

    // Claude Code subagents live in <session>/subagents/ and are not sessions of their own.
    const expected = sessions.filter((s) => !(client === 'claude' && s.mode === 'subagent'));

    it('lists every recorded session and nothing else', () => {
      const { list } = listed();
      expect(list.filter((s) => s.harness === client).map((s) => s.id).sort()).toEqual(expected.map((s) => s.id).sort());
    });

    for (const r of expected) {
      it(`${r.mode} ${r.id}${r.forkedFrom ? ' (fork)' : ''}`, () => {
        const { home, list } = listed();
        const s = list.find((x) => x.harness === client && x.id === r.id);
        expect(s, r.id).toBeTruthy();
        const own = r.prompts;
        expect({
          cwd: s.cwd, prompts: s.prompts, firstPrompt: unquote(client, s.firstPrompt), lastPrompt: unquote(client, s.lastPrompt),
          hidden: s.hidden, parent: s.parent, forkedFrom: s.forkedFrom,
        }).toEqual({
          cwd: r.cwd, prompts: own.length, firstPrompt: own[0] ?? null, lastPrompt: own[own.length - 1] ?? null,
          hidden: HIDDEN_MODES.has(r.mode) && !UNMARKED.has(`${client}:${r.mode}`), parent: r.parent, forkedFrom: r.forkedFrom,
        });
        // A fork is listed by its own first prompt, not by the title it copied from its parent.
        const parentTitle = sessions.find((x) => x.id === r.forkedFrom)?.title ?? null;
        const copied = !!r.forkedFrom && (r.titleCopiedFromParent || /\(fork #\d+\)$/.test(r.title ?? '') || (r.title != null && r.title === parentTitle));
        // Gemini's title is the summary it writes into the session (`$set.summary`), which its
        // picker shows; the manifest records no title for those sessions.
        const title = copied ? own[0] : (r.title ?? (client === 'gemini' ? geminiSummary(s.file) : null) ?? own[0]);
        expect(unquote(client, s.title)).toBe(title);
        // found in the harness's default store: no variable to set
        expect(s.resume).toEqual({ cwd: r.cwd, argv: argvFor(client, r.id, s.file) });
        if (client === 'pi') expect(s.file.startsWith(home + path.sep)).toBe(true);
      });
    }
  });
}
