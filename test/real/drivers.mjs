// One driver per client: seeds a throwaway HOME, runs the scenarios (print/exec, interactive in tmux,
// resume, fork, rename, shell tool, subagent, task list), copies the store into the fixture dir and
// returns { home, note, sessions: [{ id, cwd, prompts, title, mode, parent, forkedFrom, ... }] }.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { baseEnv, copyStore, FAKE_KEYS, freshBase, listFiles, log, run, sleep, Tmux } from './lib.mjs';
import { SCRIPTS } from './mock-server.mjs';

const tmux = new Tmux('resume-real');
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

async function claude({ bin, mock, dest }) {
  const { home, projA, projB } = freshBase('claude');
  const key = FAKE_KEYS.anthropic;
  const trust = { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] };
  writeFileSync(join(home, '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true, theme: 'dark', numStartups: 5,
    customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
    projects: { [projA]: trust, [projB]: trust },
  }, null, 2));
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({
    permissions: { defaultMode: 'acceptEdits', allow: ['Bash', 'Agent', 'Task', 'TaskCreate', 'TaskUpdate', 'TaskList', 'TodoWrite', 'ToolSearch'] },
  }, null, 2));
  const env = baseEnv(home, dirname(bin), {
    ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: key,
    DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // 2.1.332 offers TaskCreate/TaskUpdate (deferred, loaded through ToolSearch) only with these.
    CLAUDE_CODE_ENABLE_TASKS: '1', CLAUDE_CODE_ENABLE_TODO_TOOLS: '1',
  });
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
      await tmux.type(s);
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
  sessions.push({ id: printId, cwd: projA, prompts: ['hello from print mode'], title: null, mode: 'print', parent: null, forkedFrom: null });
  log(`claude: print ${printId}`);

  // 2. interactive: a shell tool call, a subagent, a rename
  before = snapshot(store);
  await interactive(projA, [], [SCRIPTS.shell, SCRIPTS.subagent, '/rename Renamed interactive session']);
  const interId = newSession(before);
  sessions.push({ id: interId, cwd: projA, prompts: [SCRIPTS.shell, SCRIPTS.subagent], title: 'Renamed interactive session', mode: 'interactive', parent: null, forkedFrom: null });
  for (const f of listFiles(join(store))) {
    const m = new RegExp(`${interId}/subagents/(agent-[^/]+)\\.jsonl$`).exec(f);
    if (m) sessions.push({ id: m[1], cwd: projA, prompts: ['Reply with the word hi.'], title: null, mode: 'subagent', parent: interId, forkedFrom: null, file: join('home/.claude/projects', f) });
  }
  log(`claude: interactive ${interId}`);

  // 3. interactive in another project: a task list, renamed
  before = snapshot(store);
  await interactive(projB, [], [SCRIPTS.tasks, '/rename Task list session']);
  const taskId = newSession(before);
  sessions.push({ id: taskId, cwd: projB, prompts: [SCRIPTS.tasks], title: 'Task list session', mode: 'interactive', parent: null, forkedFrom: null });
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
  sessions.push({ id: forkId, cwd: projB, prompts: ['forked prompt'], title: 'Task list session', titleCopiedFromParent: true, mode: 'print', parent: null, forkedFrom: taskId, copiedPrompts: [SCRIPTS.tasks] });
  before = snapshot(store);
  await interactive(projA, ['--resume', interId, '--fork-session'], ['interactive fork prompt']);
  const fork2 = newSession(before);
  sessions.push({ id: fork2, cwd: projA, prompts: ['interactive fork prompt'], title: 'Renamed interactive session', titleCopiedFromParent: true, mode: 'interactive', parent: null, forkedFrom: interId, copiedPrompts: [SCRIPTS.shell, SCRIPTS.subagent, 'resumed prompt'] });
  log(`claude: forks ${forkId} ${fork2}`);

  // 6. print-mode resume of the print session (same transcript grows)
  await print(projA, ['--resume', printId, '-p', 'second print prompt'], 'claude --resume -p');
  sessions.find((s) => s.id === printId).prompts.push('second print prompt');

  const tasksAtEnd = listFiles(join(home, '.claude', 'tasks'));
  copyStore(home, ['.claude/projects', '.claude/tasks', '.claude/history.jsonl'], dest, { skip: (f) => f.endsWith('.key') });
  return {
    home, sessions,
    note: { tasksAfterTaskSessionExit: tasksAfterExit, tasksAtEnd, env: Object.keys(env).filter((k) => !['PATH', 'HOME'].includes(k)) },
  };
}

/** Wait until the screen shows `re` more often than `count` times. */
async function waitMore(re, count, ms) {
  const g = new RegExp(re.source, 'g');
  await tmux.waitFor({ test: (s) => (s.match(g) || []).length > count }, ms, `an answer (${re})`);
}

export const drivers = { claude };
