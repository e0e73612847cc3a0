// `npm run real:check [client…]`: for every recorded session under test/fixtures/real/<client>-<version>/,
// ask resume for the command it would launch (`resume --dry-run --json ID`, HOME pointed at a copy of the
// recorded store), run that command through the real client in print mode against the mock model, and
// check that the same transcript grew. For one session per client, `resume --fork --dry-run --json ID`
// is run the same way and a new session must appear in `resume ls --all --json`.
//
// What is appended to resume's argv to make it a one-shot run (resume itself launches the interactive UI):
//   claude    argv + -p PROMPT
//   codex     codex exec --skip-git-repo-check <argv after "codex"> PROMPT   (exec resume ID / exec fork ID)
//   pi        argv + -p PROMPT
//   opencode  opencode run <argv after "opencode"> PROMPT
//   gemini    argv + -p PROMPT
//   qwen      argv + -p PROMPT   (qwen --resume ID [--fork-session] -p PROMPT, run in the session's cwd)
//   droid     none: `droid exec -s ID` asks Factory's API first and fails airgapped, so resume's own argv
//             (droid --resume ID / --fork ID) runs in a private tmux server and PROMPT is typed into it
//   kilo      kilo run <argv after "kilo"> PROMPT   (kilo run --session ID [--fork] PROMPT)
// argv[0] is replaced by the pinned client from the cache; env is the seeded client env plus resume's env.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DROID_READY, quitDroid, setups } from './drivers.mjs';
import { clients, install } from './install.mjs';
import { fixturesRoot, freshBase, listFiles, log, repo, run, sleep, Tmux } from './lib.mjs';
import { startMock } from './mock-server.mjs';

const PROMPT = 'check prompt from real:check';
/** Where each client's store lives under HOME, and the variable that tells resume about another place. */
const OTHER_STORE = {
  claude: { dir: '.claude', var: 'RESUME_CLAUDE_DIRS', alsoMove: ['.claude.json'] },
  // Qwen Code keeps its settings in the same directory: QWEN_HOME moves both.
  qwen: { dir: '.qwen', var: 'RESUME_QWEN_DIRS' },
  copilot: { dir: '.copilot', var: 'RESUME_COPILOT_DIRS' },
  // FACTORY_HOME_OVERRIDE names a home: the moved store keeps its name, <other-store>/.factory.
  droid: { dir: '.factory', var: 'RESUME_DROID_DIRS', keepName: true },
  // Kilo CLI's data directory: resume points KILO_DB at the database found there.
  kilo: { dir: '.local/share/kilo', var: 'RESUME_KILO_DIRS' },
  // Not Codex: 0.171 finds a thread through state_5.sqlite, which keeps each rollout's absolute path,
  // so a moved CODEX_HOME fails in Codex itself ("no rollout found for thread id").
};
const wanted = process.argv.slice(2);
const resumeBin = join(repo, 'bin', 'resume');

function printArgv(client, argv, bin) {
  const [head, ...rest] = argv;
  if (basename(head) !== clients[client].bin) throw new Error(`unexpected executable ${head}`);
  switch (client) {
    case 'codex':
      return [bin, 'exec', '--skip-git-repo-check', ...rest, PROMPT];
    case 'opencode':
    case 'kilo':
      return [bin, 'run', ...rest, PROMPT];
    // -p refuses to run tools without --allow-all-tools
    case 'copilot':
      return [bin, ...rest, '-p', PROMPT, '--allow-all-tools'];
    default:
      return [bin, ...rest, '-p', PROMPT];
  }
}

/**
 * How much the session `id` holds: bytes of the files named after it, opencode's message rows, or
 * (Kilo CLI) how many of its parts hold this check's prompt, in the kilo.db found under `home`.
 */
async function amount(client, home, id) {
  if (client === 'kilo') {
    const db = listFiles(home).find((f) => basename(f) === 'kilo.db');
    if (!db) throw new Error(`no kilo.db under ${home}`);
    const { default: Database } = await import('better-sqlite3');
    const d = new Database(join(home, db), { readonly: true });
    try {
      return d.prepare('SELECT count(*) AS n FROM part WHERE session_id = ? AND instr(data, ?) > 0').get(id, PROMPT).n;
    } finally {
      d.close();
    }
  }
  if (client === 'opencode') {
    const db = join(home, '.local', 'share', 'opencode', 'opencode.db');
    const { default: Database } = await import('better-sqlite3');
    const d = new Database(db, { readonly: true });
    try {
      return d.prepare('SELECT count(*) AS n FROM message WHERE session_id = ?').get(id).n;
    } finally {
      d.close();
    }
  }
  let n = 0;
  // Droid rewrites <id>.settings.json (token counts) on any run: only the transcript counts.
  if (client === 'droid') {
    for (const f of listFiles(home))
      if (f.endsWith(`/${id}.jsonl`) && readFileSync(join(home, f), 'utf8').includes(PROMPT)) n += statSync(join(home, f)).size;
    return n;
  }
  for (const f of listFiles(home)) {
    if (
      f.includes(id) ||
      (client === 'gemini' && /\.jsonl?$/.test(f) && f.includes('/chats/') && readFileSync(join(home, f), 'utf8').includes(id))
    )
      n += statSync(join(home, f)).size;
  }
  return n;
}

async function resumeJson(args, env) {
  const r = await run([resumeBin, ...args], { env, timeoutMs: 60000 });
  if (r.code !== 0) throw new Error(`resume ${args.join(' ')} exited ${r.code}: ${r.stderr.trim().split('\n').pop()}`);
  return JSON.parse(r.stdout);
}

/**
 * Clients whose fork has no one-shot form: the launched command runs in a private tmux server until
 * the client says it forked, then quits. Copilot CLI forks only with its /fork command
 * (`copilot --resume ID -i /fork`).
 */
const forkInteractive = {
  copilot: async (bin, plan, env) => {
    const tmux = new Tmux(`resume-check-${process.pid}`);
    try {
      tmux.start([bin, ...plan.argv.slice(1)], { cwd: plan.cwd, env });
      await tmux.waitFor(/Forked from/, 60000, 'the fork');
      await sleep(1000);
      await tmux.type('/exit', 500);
      if (!(await tmux.waitExit(10000))) {
        tmux.keys('C-d');
        await tmux.waitExit(10000);
      }
      return { code: 0, stdout: tmux.screen(), stderr: '' };
    } catch (e) {
      return { code: 1, stdout: '', stderr: String(e.message || e) };
    } finally {
      tmux.kill();
    }
  },
};

/**
 * Clients with no one-shot resume that works here: resume's argv (resume or fork) runs in a private
 * tmux server, PROMPT is typed, and the client quits once it answered.
 */
const typeInteractive = {
  droid: async (bin, plan, env) => {
    const tmux = new Tmux(`resume-check-${process.pid}`);
    try {
      tmux.start([bin, ...plan.argv.slice(1)], { cwd: plan.cwd, env });
      await tmux.waitFor(DROID_READY, 60000, 'the Droid prompt');
      await sleep(1000);
      await tmux.type(PROMPT, 800);
      await tmux.waitFor(new RegExp(`Mock answer to: ${PROMPT}`), 90000, 'the answer');
      await sleep(1000);
      await quitDroid(tmux);
      return { code: 0, stdout: tmux.screen(), stderr: '' };
    } catch (e) {
      return { code: 1, stdout: '', stderr: String(e.message || e) };
    } finally {
      tmux.kill();
    }
  },
};

/** Run resume's launch of a session through the client, one-shot or typed into. */
function runPlan(client, plan, bin, env) {
  if (typeInteractive[client]) return typeInteractive[client](bin, plan, env);
  return run(printArgv(client, plan.argv, bin), { cwd: plan.cwd, env, timeoutMs: 240000 });
}

const dirs = existsSync(fixturesRoot) ? readdirSync(fixturesRoot).filter((d) => /^[a-z]+-\d/.test(d)) : [];
const results = [];
for (const d of dirs) {
  if (wanted.length && !wanted.includes(d.split('-')[0])) continue;
  if (!existsSync(join(fixturesRoot, d, 'manifest.json'))) {
    log(`${d}: no manifest.json, skipped`);
    continue;
  }
  const manifest = JSON.parse(readFileSync(join(fixturesRoot, d, 'manifest.json'), 'utf8'));
  const client = manifest.client;
  if (wanted.length && !wanted.includes(client)) continue;
  if (!setups[client]) {
    log(`${client}: no setup, skipped`);
    continue;
  }
  if (clients[client].version !== manifest.version)
    log(`${client}: fixtures are ${manifest.version}, pinned client is ${clients[client].version}`);
  const bin = install(client);
  const { home, projA, projB } = freshBase(client);
  if (home !== manifest.home) throw new Error(`${client}: manifest home ${manifest.home} is not ${home}`);
  cpSync(join(fixturesRoot, d, 'home'), home, { recursive: true });
  const mock = await startMock({ maxMs: 15 * 60 * 1000, maxRequests: 1000 });
  try {
    const env = setups[client]({ home, projA, projB, bin, mock });
    const resumeEnv = { HOME: home, PATH: env.PATH, LANG: 'C.UTF-8' };
    const top = manifest.sessions.filter((s) => s.mode !== 'subagent');
    for (const s of top) {
      const row = { client, id: s.id, what: 'resume' };
      // Each session on a fresh copy of the recorded store: a client may tidy its store when it runs
      // (Gemini 0.61 removed another session's files while resuming one), which would fail the next check.
      rmSync(home, { recursive: true, force: true });
      cpSync(join(fixturesRoot, d, 'home'), home, { recursive: true });
      setups[client]({ home, projA, projB, bin, mock });
      try {
        const plan = await resumeJson(['--dry-run', '--json', s.id], resumeEnv);
        row.argv = plan.argv;
        row.env = plan.env;
        row.cwd = plan.cwd;
        if (plan.cwd !== s.cwd) throw new Error(`cwd ${plan.cwd}, recorded ${s.cwd}`);
        const before = await amount(client, home, s.id);
        const r = await runPlan(client, plan, bin, { ...env, ...(plan.env || {}) });
        if (r.code !== 0) throw new Error(`client exited ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
        const after = await amount(client, home, s.id);
        if (!(after > before)) throw new Error(`transcript did not grow (${before} → ${after})`);
        row.ok = true;
      } catch (e) {
        row.ok = false;
        row.error = String(e.message || e);
      }
      results.push(row);
      log(`${client} ${s.id} resume: ${row.ok ? 'ok' : `FAIL ${row.error}`}`);
    }
    // A store outside its default place, found through RESUME_<CLIENT>_DIRS: the launch must point the
    // client at it (CLAUDE_CONFIG_DIR / CODEX_HOME in resume's env), or the client looks in ~/.claude or ~/.codex.
    const alt = OTHER_STORE[client];
    if (alt && top[0]) {
      const row = { client, id: top[0].id, what: `resume from ${alt.var}` };
      const otherHome = alt.keepName ? join(home, 'other-store', alt.dir) : join(home, 'other-store');
      try {
        mkdirSync(dirname(otherHome), { recursive: true });
        renameSync(join(home, alt.dir), otherHome);
        for (const f of alt.alsoMove || []) if (existsSync(join(home, f))) cpSync(join(home, f), join(otherHome, f));
        const plan = await resumeJson(['--dry-run', '--json', top[0].id], { ...resumeEnv, [alt.var]: otherHome });
        row.argv = plan.argv;
        row.env = plan.env;
        const before = await amount(client, otherHome, top[0].id);
        const r = await runPlan(client, plan, bin, { ...env, ...(plan.env || {}) });
        if (r.code !== 0) throw new Error(`client exited ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
        const after = await amount(client, otherHome, top[0].id);
        if (!(after > before))
          throw new Error(
            `transcript in the other store did not grow (${before} → ${after}); resume's env was ${JSON.stringify(plan.env || {})}`,
          );
        row.ok = true;
      } catch (e) {
        row.ok = false;
        row.error = String(e.message || e);
      } finally {
        // A client that looked in the default place may have created it: the moved store wins.
        if (existsSync(otherHome)) {
          rmSync(join(home, alt.dir), { recursive: true, force: true });
          renameSync(otherHome, join(home, alt.dir));
        }
      }
      results.push(row);
      log(`${client} ${top[0].id} ${row.what}: ${row.ok ? 'ok' : `FAIL ${row.error}`}`);
    }
    // Gemini CLI 0.61.0 has no fork.
    const forkOf = client === 'gemini' ? undefined : top.find((s) => s.mode === 'interactive') || top[0];
    if (forkOf) {
      const row = { client, id: forkOf.id, what: 'fork' };
      try {
        const plan = await resumeJson(['--fork', '--dry-run', '--json', forkOf.id], resumeEnv);
        row.argv = plan.argv;
        row.env = plan.env;
        const ids = async () => new Set((await resumeJson(['ls', '--all', '--json', '--harness', client], resumeEnv)).map((x) => x.id));
        const before = await ids();
        const r = forkInteractive[client]
          ? await forkInteractive[client](bin, plan, { ...env, ...(plan.env || {}) })
          : await runPlan(client, plan, bin, { ...env, ...(plan.env || {}) });
        if (r.code !== 0) throw new Error(`client exited ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
        const fresh = [...(await ids())].filter((x) => !before.has(x));
        if (fresh.length < 1) throw new Error('no new session appeared');
        row.newIds = fresh;
        row.ok = true;
      } catch (e) {
        row.ok = false;
        row.error = String(e.message || e);
      }
      results.push(row);
      log(`${client} ${forkOf.id} fork: ${row.ok ? 'ok' : `FAIL ${row.error}`}`);
    }
  } finally {
    await mock.close();
  }
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
const failed = results.filter((r) => !r.ok).length;
log(`${results.length - failed}/${results.length} ok`);
process.exit(failed ? 1 : results.length ? 0 : 2);
