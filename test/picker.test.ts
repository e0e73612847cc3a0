// The fzf picker driven through the real fzf in tmux (issue 5): keys are sent about 0.3 s apart and
// the screen is read with capture-pane, polling for the expected text (never a fixed sleep as proof).

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, envFor, jsonl, must, needs, tempHome, write } from './helpers.js';
import { claudeLine } from './launch-helpers.js';
import { calls, claudeOnPath } from './shell-helpers.js';
import { shq, sleep, Term } from './tmux-term.js';

const SKIP = needs('fzf', 'tmux');
/** The installed fzf's minor version (0.MINOR.x), for the keys whose meaning depends on it. */
const FZF_VERSION = !SKIP ? Number(/^0\.(\d+)/.exec(spawnSync('fzf', ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? 0) : 0;

interface Sess {
  id: string;
  dir: string;
  prompts: string[];
  at: string;
  extra?: Record<string, unknown>;
}

const S1 = 'a1111111-0000-4000-8000-000000000001';
const S2 = 'b2222222-0000-4000-8000-000000000002';
const S3 = 'c3333333-0000-4000-8000-000000000003';
const HID = 'd4444444-0000-4000-8000-000000000004';

/** A HOME with three visible Claude sessions (newest S1) and a newer hidden SDK run. */
function pickerHome(): string {
  const home = tempHome('resume-picker-');
  const sessions: Sess[] = [
    { id: S1, dir: 'proj-alpha', prompts: ['alpha newest task', 'alpha follow-up question'], at: '2026-11-20T10:00:00.000Z' },
    { id: S2, dir: 'proj-beta', prompts: ['beta second task'], at: '2026-11-19T10:00:00.000Z' },
    { id: S3, dir: 'proj-gamma', prompts: ['gamma third session'], at: '2026-11-18T10:00:00.000Z' },
    { id: HID, dir: 'proj-hidden', prompts: ['hidden sdk probe'], at: '2026-11-21T10:00:00.000Z', extra: { entrypoint: 'sdk-cli' } },
  ];
  for (const s of sessions) {
    const cwd = path.join(home, s.dir);
    fs.mkdirSync(cwd, { recursive: true });
    const line = (type: string, i: number, message: object) =>
      claudeLine(
        { id: s.id, cwd, type, uuid: `${s.id}-${type}-${i}`, at: s.at.replace('00.000Z', `${String(i).padStart(2, '0')}.000Z`) },
        { message, ...s.extra },
      );
    write(
      home,
      `.claude/projects/-p-${s.id.slice(0, 8)}/${s.id}.jsonl`,
      jsonl(
        ...s.prompts.flatMap((p, i) => [
          line('user', 2 * i, { role: 'user', content: p }),
          line('assistant', 2 * i + 1, { role: 'assistant', content: [{ type: 'text', text: `reply to ${p}` }] }),
        ]),
      ),
    );
  }
  return home;
}

const LIST = /alpha newest task[\s\S]*beta second task[\s\S]*gamma third session/;
/** The finished list's status line: on a cold index the streamed rows come first, then this. */
const READY = /· 3 sessions \(\+1 hidden\)/;

const S5 = 'e5555555-0000-4000-8000-000000000005';

/**
 * A warm index of pickerHome, a new session since (S5, the newest), and another builder holding
 * the index lock (`holder`: kill it to let the check go on), so the picker's check must wait.
 */
const SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');

function changedWhileLocked(): { home: string; holder: ReturnType<typeof spawn> } {
  const home = pickerHome();
  expect(spawnSync(process.execPath, [BIN, 'index'], { env: envFor(home) }).status).toBe(0);
  const cwd = path.join(home, 'proj-epsilon');
  fs.mkdirSync(cwd, { recursive: true });
  write(
    home,
    `.claude/projects/-p-e5555555/${S5}.jsonl`,
    jsonl(
      claudeLine(
        { id: S5, cwd, type: 'user', uuid: `${S5}-u`, at: '2026-11-22T10:00:00.000Z' },
        { message: { role: 'user', content: 'epsilon arrives late' } },
      ),
    ),
  );
  // a builder still at work: a process holding the index database's write lock
  const held = path.join(home, 'held');
  const holder = spawn(
    process.execPath,
    [
      '-e',
      "const D = require(process.argv[1]); const db = new D(process.argv[2]); db.exec('BEGIN IMMEDIATE'); require('fs').writeFileSync(process.argv[3], ''); setTimeout(() => {}, 120000);",
      SQLITE,
      path.join(home, '.cache/resume/index.db'),
      held,
    ],
    { stdio: 'ignore' },
  );
  while (!fs.existsSync(held)) spawnSync('sleep', ['0.05']);
  return { home, holder };
}

/** Start `resume ARGS` in tmux on `home` and wait for the finished list. */
async function opened(home: string, args: string[], env: Record<string, string | undefined> = {}): Promise<Term> {
  const t = new Term(home, args, env);
  await t.waitList([LIST, READY]);
  return t;
}

describe.skipIf(SKIP)('picker in tmux (real fzf)', { timeout: 120_000 }, () => {
  it('opens newest first with the keys in the header; query + Enter prints the id', async () => {
    const home = pickerHome();
    const t = new Term(home, ['__pick']);
    // a cold index: rows stream in under an "indexing" line, then fzf's load event swaps in the
    // finished list with its real status line
    const screen = await t.waitList([LIST, /3 sessions \(\+1 hidden\)/], ['indexing: sessions appear']);
    expect(screen).toContain('enter resume');
    expect(screen).toContain('ctrl-t hidden');
    expect(screen).not.toContain('hidden sdk probe');
    await t.type('beta');
    // resume matches the words (fzf only draws): the status line counts the matches
    await t.waitList([/^> beta/m, /1 of 3 sessions match/, 'beta second task'], ['alpha newest task']);
    await t.keys('Enter');
    const r = await t.exit();
    expect(r).toEqual({ code: 0, out: `${S2}\n` });
  });

  it('colours the harness column unless NO_COLOR is set', async () => {
    const home = pickerHome();
    const t = await opened(home, ['__pick'], { NO_COLOR: undefined });
    expect(t.tmux('capture-pane', '-p', '-e')).toMatch(/\x1b\[[0-9;]*38;5;173m[^\n]*claude/);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
  });

  it('Esc cancels with exit 130 and prints nothing', async () => {
    const home = pickerHome();
    const t = new Term(home, ['__pick', 'gamma']);
    await t.waitFor(/gamma third session/);
    await t.keys('Escape');
    expect(await t.exit()).toEqual({ code: 130, out: '' });
  });

  it('the preview shows the prompts and the last reply', async () => {
    const home = pickerHome();
    const t = new Term(home, ['__pick']);
    const screen = await t.waitFor(/last reply:[\s\S]*reply to alpha follow-up question/);
    expect(screen).toMatch(/first prompt:[\s\S]*alpha newest task/);
    expect(screen).toMatch(/last prompt:[\s\S]*alpha follow-up question/);
    await t.keys('Down');
    await t.waitFor(/first prompt:[\s\S]*beta second task/);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
  });

  it("at 80x24 the preview's first row keeps the title clear of fzf's scroll information, and deep search's status line is whole", async () => {
    const home = tempHome('resume-picker-title-');
    const id = 'f6666666-0000-4000-8000-000000000006';
    const cwd = path.join(home, 'proj-billing');
    fs.mkdirSync(cwd, { recursive: true });
    const title = 'move the billing webhook handler to the job queue with retries and exponential backoff';
    const line = (type: string, i: number, message: object) =>
      claudeLine({ id, cwd, type, uuid: `${id}-${i}`, at: `2026-11-20T10:00:0${i}.000Z` }, { message });
    write(
      home,
      `.claude/projects/-p-f6666666/${id}.jsonl`,
      jsonl(
        line('user', 0, { role: 'user', content: title }),
        line('assistant', 1, { role: 'assistant', content: [{ type: 'text', text: 'moved it over '.repeat(40) }] }),
        line('user', 2, { role: 'user', content: 'now the retries' }),
      ),
    );
    const t = new Term(home, ['__pick'], {}, [80, 24]);
    // below the list at 80 columns, the preview scrolls (fzf draws `1/N` over its first row's end)
    const screen = await t.waitFor(/│ move the billing webhook handler[^│]*1\/\d+│/);
    const rows = screen.split('\n').filter((l) => l.startsWith('│'));
    // the title's words whole, on the first two rows, none under `1/N`
    const first = must(/^│ (.+?) {2,}1\/\d+││$/.exec(rows[0]))[1];
    const next = must(/^│ (.+?) *│?│$/.exec(rows[1]))[1];
    expect(`${first} ${next}`).toBe(title);
    // deep search's status line, whole at 80 columns: how to get back
    await t.keys('C-s');
    await t.waitFor(/^ {2}deep search: type words .*\(ctrl-s: back to the list\)$/m);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
  });

  it('ctrl-t reloads with hidden sessions, and again without', async () => {
    const home = pickerHome();
    const t = await opened(home, ['__pick']);
    await t.keys('C-t');
    await t.waitList([/4 sessions incl\. hidden/, /hidden sdk probe[\s\S]*alpha newest task/, '4/4']);
    await t.keys('C-t');
    await t.waitList([/3 sessions \(\+1 hidden\)/, LIST, '3/3'], ['hidden sdk probe']);
    await t.keys('Enter');
    expect(await t.exit()).toEqual({ code: 0, out: `${S1}\n` });
  });

  it('a warm index: the list is there at once, and Enter picks from it', async () => {
    const home = pickerHome();
    expect(spawnSync(process.execPath, [BIN, 'index'], { env: envFor(home) }).status).toBe(0);
    const t = await opened(home, ['__pick']);
    expect(t.list()).not.toMatch(/indexing/);
    await t.keys('Down', 'Enter');
    expect(await t.exit()).toEqual({ code: 0, out: `${S2}\n` });
  });

  it('a warm index that changed: the last rows show while the check waits, then the fresh rows replace them', async () => {
    const { home, holder } = changedWhileLocked();
    try {
      const t = new Term(home, ['__pick']);
      if (FZF_VERSION >= 45) {
        // fzf with transform: the last build's rows at once, without the new session
        await t.waitList([LIST, READY], ['epsilon']);
      } else {
        // older fzf: nothing is listed before the check
        await sleep(1500);
        expect(t.list()).not.toMatch(/alpha newest task/);
      }
      holder.kill();
      await t.waitList([/epsilon arrives late[\s\S]*alpha newest task/, /· 4 sessions \(\+1 hidden\)/]);
      await t.keys('Enter');
      expect(await t.exit()).toEqual({ code: 0, out: `${S5}\n` });
    } finally {
      holder.kill();
    }
  });

  it('a warm index that changed: Ctrl-R pressed before the check ends is not undone by the fresh rows', async () => {
    // the check waits for the lock: Ctrl-R comes while fzf still reads the last build's rows
    const { home, holder } = changedWhileLocked();
    try {
      const t = new Term(home, ['__pick']);
      // fzf with transform lists the last build's rows at once; older fzf shows nothing before the check
      if (FZF_VERSION >= 45) await t.waitList([LIST, READY], ['epsilon']);
      else await t.waitFor('ctrl-r harness');
      await t.keys('C-r');
      holder.kill();
      // the check's fresh rows (all harnesses) were left for fzf's load; the key's list stays
      await t.waitList([/claude · 4 sessions/, /epsilon arrives late[\s\S]*alpha newest task/, '4/4']);
      await sleep(1500);
      expect(t.list()).toMatch(/claude · 4 sessions/);
      await t.keys('C-r');
      await t.waitList([/all harnesses · 4 sessions/, /epsilon arrives late[\s\S]*alpha newest task/]);
      await t.keys('Escape');
      expect((await t.exit()).code).toBe(130);
    } finally {
      holder.kill();
    }
  });

  it('a query matching nothing says what it probably meant, a word put right by one edit', async () => {
    const home = pickerHome();
    const t = await opened(home, ['__pick']);
    await t.type('gamam');
    await t.waitList([/0 of 3 sessions match · did you mean 'gamma'\?/], ['gamma third session']);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
  });

  it('a query matching nothing and Enter is exit 1', async () => {
    const home = pickerHome();
    const t = new Term(home, ['__pick', 'zzzqqq']);
    await t.waitFor(/0 of 3 sessions match/);
    await t.keys('Enter');
    expect((await t.exit()).code).toBe(1);
  });

  it('vim mode (0.38 bind/unbind table): Esc j Enter picks the second-newest', async () => {
    const home = pickerHome();
    write(home, '.config/resume/config', 'keys = "vim"\n');
    const t = await opened(home, ['__pick']);
    await t.keys('Escape');
    await t.waitFor(/^N> /m);
    await t.keys('j', 'Enter');
    expect(await t.exit()).toEqual({ code: 0, out: `${S2}\n` });
  });

  it('vim mode: insert mode types normal-mode letters; Esc, i returns to insert', async () => {
    const home = pickerHome();
    write(home, '.config/resume/config', 'keys = "vim"\n');
    const t = await opened(home, ['__pick']);
    await t.type('gamma');
    await t.waitFor(/^> gamma/m);
    await t.keys('Escape');
    await t.waitFor(/^N> gamma/m);
    await t.keys('0', 'x', 'i');
    await t.waitFor(/^> amma/m);
    await t.type('g');
    await t.waitList([/^> gamma/m, /1 of 3 sessions match/, 'gamma third session'], ['alpha newest task']);
    await t.keys('Enter');
    expect(await t.exit()).toEqual({ code: 0, out: `${S3}\n` });
  });

  it('vim mode: q in normal mode quits with 130', async () => {
    const home = pickerHome();
    write(home, '.config/resume/config', 'keys = "vim"\n');
    const t = await opened(home, ['__pick']);
    await t.keys('Escape');
    await t.waitFor(/^N> /m);
    await t.keys('q');
    expect((await t.exit()).code).toBe(130);
  });

  it('vim mode: a appends after the cursor, / clears the query into insert mode, j j k moves back up, Ctrl-D per mode', {
    timeout: 60000,
  }, async () => {
    const home = pickerHome();
    write(home, '.config/resume/config', 'keys = "vim"\n');
    const t = await opened(home, ['__pick']);
    await t.type('beta');
    await t.keys('Escape');
    await t.waitFor(/^N> beta/m);
    await t.keys('0', 'a');
    await t.waitFor(/^> beta/m);
    await t.type('X');
    await t.waitList([/^> bXeta$/m]);
    await t.keys('Escape', '/');
    await t.waitList([/^> *$/m, '3/3']);
    // Ctrl-D in insert mode: delete-char where fzf can tell the modes apart (transform and
    // $FZF_PROMPT, fzf >= 0.46); before that it is half-page-down in both modes
    await t.type('gammaz');
    await t.keys('Left', 'C-d');
    await t.waitList([FZF_VERSION >= 46 ? /^> gamma$/m : /^> gammaz$/m]);
    await t.keys('Escape', '/', 'Escape');
    await t.waitList([/^N> *$/m, '3/3']);
    await t.keys('j', 'j', 'k', 'Enter');
    expect(await t.exit()).toEqual({ code: 0, out: `${S2}\n` });
  });

  it('vim mode: Ctrl-D in normal mode is half-page-down (to the last of three rows)', async () => {
    const home = pickerHome();
    write(home, '.config/resume/config', 'keys = "vim"\n');
    const t = await opened(home, ['__pick']);
    await t.keys('Escape');
    await t.waitFor(/^N> /m);
    await t.keys('C-d', 'Enter');
    expect(await t.exit()).toEqual({ code: 0, out: `${S3}\n` });
  });

  it('ctrl-r cycles the harness filter', async () => {
    const home = pickerHome();
    write(
      home,
      '.pi/agent/sessions/--x--/2026-11-22T00-00-00-000Z_p1.jsonl',
      jsonl(
        { type: 'session', version: 3, id: 'p1', timestamp: '2026-11-22T00:00:00.000Z', cwd: home },
        {
          type: 'message',
          id: 'm1',
          parentId: null,
          timestamp: '2026-11-22T00:00:01.000Z',
          message: { role: 'user', content: 'pi only prompt' },
        },
        {
          type: 'message',
          id: 'm2',
          parentId: 'm1',
          timestamp: '2026-11-22T00:00:02.000Z',
          message: { role: 'user', content: 'pi again' },
        },
      ),
    );
    const t = new Term(home, ['__pick']);
    await t.waitList([/pi only prompt[\s\S]*alpha newest task/]);
    await t.keys('C-r');
    await t.waitList([/claude · 3 sessions/, LIST, '3/3'], ['pi only prompt']);
    await t.keys('C-r');
    await t.waitList([/pi · 1 session/, 'pi only prompt', '1/1'], ['alpha newest task']);
    await t.keys('C-r');
    await t.waitList([/all harnesses · 4 sessions/, /pi only prompt[\s\S]*alpha newest task/, '4/4']);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
  });

  it('ctrl-s searches every transcript for the query as it is typed, and back', async () => {
    const home = pickerHome();
    const t = await opened(home, ['__pick']);
    // a word only a reply holds: naming sessions finds none
    await t.type('reply to beta');
    await t.waitFor(/0 of 3 sessions match/);
    await t.keys('C-s');
    await t.waitList([/deep search: reply to beta · 1 session/, 'beta second task', /^> reply to beta$/m], ['alpha newest task']);
    // the preview starts with where the words are
    await t.waitFor(/│ reply: «reply» «to» «beta» second task/);
    // typing goes on searching
    await t.keys('BSpace', 'BSpace', 'BSpace', 'BSpace');
    await t.type('gamma');
    await t.waitList([/deep search: reply to gamma · 1 session/, 'gamma third session'], ['beta second task']);
    await t.waitFor(/│ reply: «reply» «to» «gamma» third session/);
    // Ctrl-S again: back to naming sessions, the query kept
    await t.keys('C-s');
    await t.waitList([/0 of 3 sessions match/, /^> reply to gamma$/m], ['gamma third session']);
    await t.keys('C-u');
    await t.waitList([/all harnesses · 3 sessions/, LIST]);
    await t.type('follow');
    await t.waitList([/1 of 3 sessions match/, 'alpha newest task'], ['beta second task']);
    await t.keys('C-s');
    await t.waitList([/deep search: follow · 1 session/, 'alpha newest task', /^> follow$/m]);
    await t.keys('Enter');
    expect(await t.exit()).toEqual({ code: 0, out: `${S1}\n` });
  });

  it('ctrl-s and words typed at once after it: the words are a deep search', async () => {
    const home = pickerHome();
    const t = await opened(home, ['__pick']);
    // (one tmux call: the keys arrive together, as a fast typist's do; as a reload of its own, the
    // state change was stopped by the first word's reload before it was written)
    t.tmux('send-keys', 'C-s', 'r', 'e', 'p', 'l', 'y', ' ', 't', 'o', ' ', 'b', 'e', 't', 'a');
    await t.waitList([/deep search: reply to beta · 1 session/, 'beta second task', /^> reply to beta$/m], ['alpha newest task']);
    t.tmux('send-keys', 'C-s', 'x');
    await t.waitList([/0 of 3 sessions match/, /^> reply to betax$/m]);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
  });

  it('ctrl-v shows the whole transcript in $PAGER, then the picker is back', async () => {
    const home = pickerHome();
    const paged = path.join(home, 'paged');
    const t = await opened(home, ['__pick'], { PAGER: `cat > ${shq(paged)}` });
    await t.keys('C-v');
    const t0 = Date.now();
    while (!(fs.existsSync(paged) && fs.readFileSync(paged, 'utf8').includes('reply to alpha follow-up question'))) {
      if (Date.now() - t0 > 20000) throw new Error('the pager never got the transcript');
      await sleep(150);
    }
    const text = fs.readFileSync(paged, 'utf8');
    expect(text).toMatch(/── user · [^\n]*──\nalpha newest task\n/);
    expect(text).toMatch(/── assistant · [^\n]*──\nreply to alpha newest task\n/);
    await t.waitList([LIST, READY]);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
  });
});

describe.skipIf(SKIP)('resume [QUERY] through the picker (real fzf, stand-in claude)', { timeout: 120_000 }, () => {
  it('bare resume: Enter emits the line for the newest session (RESUME_EMIT_FILE)', async () => {
    const home = pickerHome();
    const emit = path.join(home, 'emit');
    fs.writeFileSync(emit, '');
    const t = await opened(home, [], { RESUME_EMIT_FILE: emit, PATH: claudeOnPath(home), RESUME_SHELL: 'bash' });
    await t.keys('Enter');
    expect(await t.exit()).toEqual({ code: 0, out: '' });
    expect(fs.readFileSync(emit, 'utf8')).toBe(`cd ${path.join(home, 'proj-alpha')} && claude --resume ${S1}\n`);
  });

  it('an ambiguous query opens the picker with it filled in; Enter resumes the chosen one in its directory', async () => {
    const home = pickerHome();
    const t = new Term(home, ['task'], { PATH: claudeOnPath(home) });
    // the query shows before fzf has read and filtered every row: wait for both
    await t.waitList([/^> task$/m, /2 of 3 sessions match/, /alpha newest task[\s\S]*beta second task/], ['gamma third session']);
    await t.keys('Down', 'Enter');
    expect((await t.exit()).code).toBe(0);
    expect(calls(home)).toEqual([{ cwd: path.join(home, 'proj-beta'), argv: ['--resume', S2] }]);
  });

  it('a session whose transcript was deleted while the picker was open is not resumed: exit 1, one line', async () => {
    const home = pickerHome();
    const t = await opened(home, [], { PATH: claudeOnPath(home) });
    const file = path.join(home, `.claude/projects/-p-${S1.slice(0, 8)}/${S1}.jsonl`);
    fs.rmSync(file);
    await t.keys('Enter');
    // (the path wraps at the pane's width)
    const screen = await t.waitFor('the picked session is gone');
    expect(screen.replace(/\n/g, '')).toContain(`${S1}.jsonl was moved or deleted since the list was made`);
    expect(await t.exit()).toEqual({ code: 1, out: '' });
    expect(calls(home)).toEqual([]);
  });

  it('ctrl-y prints the command instead of running it', async () => {
    const home = pickerHome();
    const t = await opened(home, [], { PATH: claudeOnPath(home), RESUME_SHELL: 'bash' });
    await t.keys('C-y');
    expect(await t.exit()).toEqual({ code: 0, out: `cd ${path.join(home, 'proj-alpha')} && claude --resume ${S1}\n` });
    expect(calls(home)).toEqual([]);
  });

  it('alt-c copies the resume line to the clipboard instead of running it', async () => {
    const home = pickerHome();
    // a stand-in xclip: what it was given lands in a file
    const bin = path.join(home, 'clip-bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'xclip'), `#!/bin/sh\n/bin/cat > ${shq(path.join(home, 'xclip.got'))}\n`, { mode: 0o755 });
    // TMUX emptied: the picker runs inside the test's tmux, whose buffer would take the line first
    const t = await opened(home, [], { PATH: `${bin}:${claudeOnPath(home)}`, RESUME_SHELL: 'bash', DISPLAY: ':0', TMUX: '' });
    await t.keys('Down', 'M-c');
    expect(await t.exit()).toEqual({ code: 0, out: '' });
    expect(fs.readFileSync(path.join(home, 'xclip.got'), 'utf8')).toBe(`cd ${path.join(home, 'proj-beta')} && claude --resume ${S2}`);
    expect(calls(home)).toEqual([]);
  });

  it('ctrl-o forks the chosen session', async () => {
    const home = pickerHome();
    const t = await opened(home, [], { PATH: claudeOnPath(home) });
    await t.keys('Down', 'Down', 'C-o');
    expect((await t.exit()).code).toBe(0);
    expect(calls(home)).toEqual([{ cwd: path.join(home, 'proj-gamma'), argv: ['--resume', S3, '--fork-session'] }]);
  });

  it('Esc in the picker of `resume` is exit 130, quietly', async () => {
    const home = pickerHome();
    const t = await opened(home, [], { PATH: claudeOnPath(home) });
    await t.keys('Escape');
    expect(await t.exit()).toEqual({ code: 130, out: '' });
    expect(calls(home)).toEqual([]);
  });

  it('vim mode: y in normal mode prints the command (0.38: through the action file)', async () => {
    const home = pickerHome();
    write(home, '.config/resume/config', 'keys = "vim"\n');
    const t = await opened(home, [], { PATH: claudeOnPath(home), RESUME_SHELL: 'bash' });
    await t.keys('Escape');
    await t.waitFor(/^N> /m);
    await t.keys('j', 'y');
    expect(await t.exit()).toEqual({ code: 0, out: `cd ${path.join(home, 'proj-beta')} && claude --resume ${S2}\n` });
    expect(calls(home)).toEqual([]);
  });

  it('FZF_DEFAULT_OPTS still apply and fzf_opts from the config come after them', async () => {
    const home = pickerHome();
    const t = new Term(home, ['__pick'], { FZF_DEFAULT_OPTS: "--prompt='dflt> '" });
    await t.waitFor(/^dflt> /m);
    await t.keys('Escape');
    expect((await t.exit()).code).toBe(130);
    write(home, '.config/resume/config', 'fzf_opts = "--prompt=\'cfg> \'"\n');
    const t2 = new Term(home, ['__pick'], { FZF_DEFAULT_OPTS: "--prompt='dflt> '" });
    await t2.waitFor(/^cfg> [\s\S]*alpha newest task/m);
    await t2.keys('Escape');
    expect((await t2.exit()).code).toBe(130);
  });

  it("an option fzf rejects (fzf_opts) is exit 2 with fzf's message", async () => {
    const home = pickerHome();
    write(home, '.config/resume/config', 'fzf_opts = "--no-such-option"\n');
    const t = new Term(home, ['__pick']);
    await t.waitFor(/unknown option: --no-such-option[\s\S]*resume: fzf 0\.\d+\.\d+ .* failed with exit status 2/);
    expect(await t.exit()).toEqual({ code: 2, out: '' });
  });
});
