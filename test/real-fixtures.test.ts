// The transcripts today's clients wrote (test/fixtures/real/<client>-<version>/, recorded by
// test/real/): every recorded session is listed with the right id, directory, own first and last
// prompt (never an injected block), title, prompt count, hidden status, parent and fork link, and
// the command that resumes it. Fast: no client is needed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapter } from '../lib/harness/registry.js';
import type { Harness } from '../lib/types.js';
import { FIXTURES, lsJson, must, sharedTempHome } from './helpers.js';
import type { Listed, Recorded } from './json.js';

const REAL = path.join(FIXTURES, 'real');
const sets = fs.existsSync(REAL)
  ? fs
      .readdirSync(REAL)
      .filter((d) => fs.existsSync(path.join(REAL, d, 'manifest.json')))
      .sort()
  : [];

/**
 * Why a recorded session is hidden from the listing, by how it was made: a one-shot run is hidden
 * because the client marks it (Claude `entrypoint: "sdk-cli"`, Codex `source: "exec"`, opencode the
 * permission rules `run` gives its session) or because every prompt came in the burst that started
 * it (pi, Gemini: `headless`); a worker is a subagent; a person's session is listed.
 */
const HIDDEN_AS: Record<string, string> = {
  'claude:print': 'sdk',
  'codex:exec': 'exec',
  'pi:print': 'headless',
  'opencode:run': 'headless',
  'gemini:print': 'headless',
  // Qwen Code: only its terminal UI writes `<id>.runtime.json` beside the transcript.
  'qwen:print': 'headless',
  // Copilot CLI: the system prompt of a `-p` run says it is non-interactive, and no startup model change
  'copilot:print': 'print',
  // Factory Droid: no prompt came from its terminal UI (`userMessageSource`); a stub the trust dialog left is empty
  'droid:exec': 'exec',
  'droid:stub': 'empty',
  // Kilo CLI: opencode's `run` permission rules
  'kilo:run': 'headless',
};

/**
 * One-shot runs that end up listed, and why: the client marks neither, and a person could have made
 * them the same way.
 */
const LISTED_RUNS: Record<string, string> = {
  // `pi -p` started it; its second prompt came from a later `pi --session ID -p`, not from the
  // burst that started it, as a prompt typed into a resumed session does.
  'pi:01a22c97-421f-779a-a9d6-44d642c7e755': 'resumed by a later run',
  // `opencode run --session ID --fork`: opencode makes the fork through session.fork, which gives
  // it none of the permission rules `run` gives a session it creates.
  'opencode:ses_dd3615250ffe1MK77AzM1of2Kx': 'forked by run',
  // `kilo run --session ID --fork` of a TUI session: the fork keeps its parent's (no) rules, as opencode's
  'kilo:ses_db6444584ffePDsW27TcCAW5Pq': 'forked by run',
};

function hiddenAs(client: string, r: Recorded): string | null {
  if (r.mode === 'subagent') return 'subagent';
  if (LISTED_RUNS[`${client}:${r.id}`]) return null;
  return HIDDEN_AS[`${client}:${r.mode}`] ?? null;
}

/** The argv resume runs for a session, per harness (`file` for pi, which resumes by path). */
function argvFor(client: string, id: string, file: string): string[] {
  switch (client) {
    case 'claude':
      return ['claude', '--resume', id];
    case 'codex':
      return ['codex', 'resume', id];
    case 'pi':
      return ['pi', '--session', file];
    case 'opencode':
      return ['opencode', '--session', id];
    case 'gemini':
      return ['gemini', '--resume', id];
    case 'qwen':
      return ['qwen', '--resume', id];
    case 'copilot':
      return ['copilot', '--resume', id];
    case 'droid':
      return ['droid', '--resume', id];
    case 'kilo':
      return ['kilo', '--session', id];
    default:
      throw new Error(`no argv rule for ${client}`);
  }
}

/**
 * `opencode run MESSAGE` (1.18.33) and `kilo run MESSAGE` (7.7.9) store the message wrapped in double
 * quotes, and that is what the listing shows (it is the stored prompt); the manifest names the prompts
 * as typed.
 */
const unquote = (client: string, v: string | null) =>
  (client === 'opencode' || client === 'kilo') && v ? v.replace(/^"([\s\S]*)"$/, '$1') : v;

/** The last `$set.summary` of a Gemini session file, or null. */
function geminiSummary(file: string): string | null {
  let out: string | null = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"summary"')) continue;
    try {
      const o = JSON.parse(line);
      if (o?.$set && typeof o.$set.summary === 'string') out = o.$set.summary;
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
    let cache: { home: string; list: Listed[] } | null = null;
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
      expect(
        list
          .filter((s) => s.harness === client)
          .map((s) => s.id)
          .sort(),
      ).toEqual(expected.map((s) => s.id).sort());
    });

    for (const r of expected) {
      it(`${r.mode} ${r.id}${r.forkedFrom ? ' (fork)' : ''}`, () => {
        const { home, list } = listed();
        const s = must(
          list.find((x) => x.harness === client && x.id === r.id),
          r.id,
        );
        const own = r.prompts;
        expect({
          cwd: s.cwd,
          prompts: s.prompts,
          firstPrompt: unquote(client, s.firstPrompt),
          lastPrompt: unquote(client, s.lastPrompt),
          hidden: s.hidden,
          hiddenReason: s.hiddenReason,
          parent: s.parent,
          forkedFrom: s.forkedFrom,
        }).toEqual({
          cwd: r.cwd,
          prompts: own.length,
          firstPrompt: own[0] ?? null,
          lastPrompt: own[own.length - 1] ?? null,
          hidden: hiddenAs(client, r) != null,
          hiddenReason: hiddenAs(client, r),
          parent: r.parent,
          forkedFrom: r.forkedFrom,
        });
        // A fork is listed by its own first prompt, not by the title it copied from its parent.
        const parentTitle = sessions.find((x) => x.id === r.forkedFrom)?.title ?? null;
        const copied =
          !!r.forkedFrom &&
          (r.titleCopiedFromParent || /\(fork #\d+\)$/.test(r.title ?? '') || (r.title != null && r.title === parentTitle));
        // Gemini's title is the summary it writes into the session (`$set.summary`), which its
        // picker shows; the manifest records no title for those sessions. A subagent's summary is
        // the result it handed back: it is named by its task.
        // (a session with neither, such as Droid's empty stub, has none)
        const title = copied
          ? own[0]
          : (r.title ?? (client === 'gemini' && r.mode !== 'subagent' ? geminiSummary(s.file) : null) ?? own[0] ?? null);
        expect(unquote(client, s.title)).toBe(title);
        // found in the harness's default store: no variable to set
        expect(s.resume).toEqual({ cwd: r.cwd, argv: argvFor(client, r.id, s.file) });
        if (client === 'pi') expect(s.file.startsWith(home + path.sep)).toBe(true);
      });
    }
  });
}

// How a session began, recorded per client (`npm run real:record -- --starts`): an interactive session
// started with its first prompt on the command line and then typed into, one typed into from the
// start, and the client's one-shot run. The first two are a person's and listed by plain `resume ls`;
// the run is not (it is under --all, with why).
const startSets = sets.filter((s) => s.endsWith('-starts'));

describe('how a session began', () => {
  it('is recorded for every client with an npm package', () => {
    expect(startSets.map((s) => s.split('-')[0]).sort()).toEqual(['claude', 'codex', 'gemini', 'opencode', 'pi']);
  });

  for (const set of startSets) {
    const dir = path.join(REAL, set);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const sessions: Recorded[] = manifest.sessions;
    it(`${set}: a person's sessions are listed, one-shot runs are not`, () => {
      const home = sharedTempHome();
      fs.cpSync(path.join(dir, 'home'), home, { recursive: true });
      const listed = lsJson(home, {}, [])
        .map((s) => s.id)
        .sort();
      const person = sessions.filter((s) => s.started === 'argv' || s.started === 'typed');
      expect(person.map((s) => s.started).sort()).toEqual(['argv', 'typed']);
      expect(person.every((s) => s.prompts.length === 2)).toBe(true);
      const runs = sessions.filter((s) => s.started === 'print');
      expect(runs.length).toBeGreaterThan(0);
      expect(listed).toEqual(person.map((s) => s.id).sort());
    });
  }
});
