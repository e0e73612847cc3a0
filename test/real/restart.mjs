// `npm run real:restart`: `resume restart --outdated` against the real, pinned Claude Code in tmux.
//
// The native installer's layout makes the session outdated without a second download:
// `~/.local/share/claude/versions/<pinned+1>` is a wrapper that runs the pinned client, and
// `~/.local/bin/claude` links to it, so resume reads "installed: pinned+1" from the link while the
// running claude registered the pinned version. In a tmux pane running bash with `resume init bash`:
//   1. `claude` in proj-a, one prompt answered by the mock model, the session registers `idle`;
//   2. a draft typed on claude's input line: `restart --outdated --timeout 8s` must time out (exit 1)
//      naming the draft, and the claude process must be the same one afterwards;
//   3. the draft cleared: `restart --outdated --dry-run` names the pane found by the process tree;
//   4. `restart --outdated`: exit 0, "resumed"; a new claude process registers the same session id,
//      runs in proj-a, and a prompt typed into the pane lands in the same transcript;
//   5. a snapshot of the session exists in resume's snapshot store;
//   6. with `[[resume.on_update]] action = "restart"`: `hooks run` records a baseline, a newer build
//      goes behind the link, and the next `hooks run` restarts the session in its pane.
// `--cleared-tmux` runs the pane's shell without TMUX/TMUX_PANE (as `env -i` leaves it): resume then
// finds the server by asking every tmux server of the user.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setupClaude } from './drivers.mjs';
import { clients, install } from './install.mjs';
import { freshBase, log, realRoot, repo, run, sleep, Tmux } from './lib.mjs';
import { startMock } from './mock-server.mjs';

const resumeBin = join(repo, 'bin', 'resume');
const CLEARED = process.argv.includes('--cleared-tmux');
const bin = install('claude');
const pinned = clients.claude.version;
const newer = pinned.replace(/(\d+)$/, (d) => String(Number(d) + 1));
const { home, projA, projB } = freshBase('claude-restart');
const mock = await startMock({ maxMs: 10 * 60 * 1000, maxRequests: 300 });
const tmux = new Tmux(`resume-restart-${process.pid}`);
const checks = [];
const check = (ok, what) => {
  checks.push({ ok: !!ok, what });
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

try {
  const env = setupClaude({ home, projA, projB, bin, mock });
  // The native installer's layout, one version ahead of the running client.
  const versions = join(home, '.local', 'share', 'claude', 'versions');
  mkdirSync(versions, { recursive: true });
  mkdirSync(join(home, '.local', 'bin'), { recursive: true });
  writeFileSync(join(versions, newer), `#!/bin/sh\nexec '${bin}' "$@"\n`);
  chmodSync(join(versions, newer), 0o755);
  symlinkSync(join(versions, newer), join(home, '.local', 'bin', 'claude'));
  env.PATH = `${join(repo, 'bin')}:${join(home, '.local', 'bin')}:${env.PATH}`;
  const rc = join(home, '.bashrc-resume');
  writeFileSync(rc, `PS1='resume-test$ '\neval "$(${resumeBin} init bash)"\n`);
  // As a user's shell has them, TMUX and TMUX_PANE stay in the pane's environment (the Tmux helper
  // clears everything); `--cleared-tmux` clears them, and resume must find the server by asking.
  const keep = CLEARED ? {} : { TMUX: '"$TMUX"', TMUX_PANE: '"$TMUX_PANE"' };
  const q = (v) => `'${String(v).replace(/'/g, `'\\''`)}'`;
  const script = join(realRoot, `.restart-${process.pid}.sh`);
  writeFileSync(
    script,
    `cd ${q(projA)}\nexec env -i ${Object.entries(env)
      .map(([k, v]) => q(`${k}=${v}`))
      .join(' ')} ${Object.entries(keep)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')} bash --noprofile --rcfile ${q(rc)} -i\n`,
  );
  const started = tmux.tmux('new-session', '-d', '-s', tmux.session, '-x', '150', '-y', '45', 'bash', script);
  if (started.status !== 0) throw new Error(`tmux new-session: ${started.stderr}`);
  await tmux.waitFor(/resume-test\$/, 20000, 'the bash prompt');
  await tmux.type('claude', 300);
  await tmux.waitFor(/❯/, 60000, 'the Claude prompt');
  await sleep(1000);
  await tmux.type('hello before the restart', 1500);
  await tmux.waitFor(/Mock answer to|Done\./, 60000, 'an answer');

  const registry = join(home, '.claude', 'sessions');
  const entries = () =>
    (existsSync(registry) ? readdirSync(registry) : [])
      .filter((n) => /^\d+\.json$/.test(n))
      .map((n) => {
        try {
          return JSON.parse(readFileSync(join(registry, n), 'utf8'));
        } catch {
          return null;
        }
      })
      .filter(Boolean);
  const idle = async (what, not) => {
    const end = Date.now() + 60000;
    while (Date.now() < end) {
      const e = entries().find((x) => x.status === 'idle' && x.pid !== not);
      if (e) return e;
      await sleep(500);
    }
    throw new Error(`no idle registry entry (${what}): ${JSON.stringify(entries())}\nscreen:\n${tmux.screen()}`);
  };
  const first = await idle('after the first answer');
  check(first.version === pinned, `the running claude registered version ${first.version} (pinned ${pinned})`);
  const resumeEnv = { ...env, TMUX: undefined, TMUX_PANE: undefined };
  delete resumeEnv.TMUX;
  delete resumeEnv.TMUX_PANE;
  const resume = (args, timeoutMs = 120000) => run([resumeBin, ...args], { env: resumeEnv, cwd: projB, timeoutMs });

  const out = await resume(['outdated', '--json']);
  const listed = out.code === 0 ? JSON.parse(out.stdout) : null;
  check(
    out.code === 0 && JSON.stringify(listed).includes(first.sessionId),
    `outdated lists ${first.sessionId} (installed ${newer} by the versions link)`,
  );

  // A draft on the input line: never stopped.
  await sleep(1000);
  tmux.tmux('send-keys', '-t', tmux.session, '-l', 'a draft not to lose');
  await sleep(1500);
  const draft = await resume(['restart', '--outdated', '--timeout', '8s']);
  check(
    draft.code === 1 && /input line is not empty/.test(draft.stdout + draft.stderr),
    `a draft on the line: exit ${draft.code}, ${(draft.stdout + draft.stderr).trim().split('\n').pop()}`,
  );
  check(
    entries().some((e) => e.pid === first.pid),
    'the claude process with the draft is still running',
  );
  check(/a draft not to lose/.test(tmux.screen()), 'the draft is still on the screen');
  for (let i = 0; i < 30; i++) tmux.keys('BSpace');
  await sleep(1500);

  const dry = await resume(['restart', '--outdated', '--dry-run']);
  check(
    dry.code === 0 && /process tree/.test(dry.stdout),
    `dry run names the pane found by the process tree: exit ${dry.code}: ${(dry.stdout + dry.stderr).trim().split('\n').join(' | ')}${dry.code === 0 && /process tree/.test(dry.stdout) ? '' : ` registry: ${JSON.stringify(entries())}`}`,
  );

  const r = await resume(['restart', '--outdated', '--timeout', '2m'], 240000);
  check(r.code === 0 && /resumed/.test(r.stdout), `restart: exit ${r.code}: ${(r.stdout + r.stderr).trim().split('\n').join(' | ')}`);
  // Claude Code 2.1.332 sometimes opens a one-time dialog on start ("Make auto mode your default
  // permission mode?"; registry status `waiting`, waitingFor `dialog open`): answer it "No".
  const end = Date.now() + 30000;
  while (Date.now() < end && !entries().some((e) => e.pid !== first.pid && e.status === 'idle')) {
    if (/Make auto mode your default/.test(tmux.screen())) {
      tmux.keys('Down');
      await sleep(300);
      tmux.keys('Enter');
      log('answered Claude\'s auto-mode dialog "No"');
    }
    await sleep(1000);
  }
  const again = await idle('after the restart', first.pid);
  check(
    again.sessionId === first.sessionId && again.pid !== first.pid,
    `the session registered again under a new pid (${first.pid} -> ${again.pid})`,
  );
  let cwd = null;
  try {
    cwd = readlinkSync(`/proc/${again.pid}/cwd`);
  } catch {
    /* gone */
  }
  check(cwd === projA, `the resumed claude runs in ${cwd} (want ${projA})`);
  const transcript = join(home, '.claude', 'projects', projA.replace(/[^A-Za-z0-9]/g, '-'), `${first.sessionId}.jsonl`);
  const before = existsSync(transcript) ? readFileSync(transcript, 'utf8').length : -1;
  await sleep(1000);
  await tmux.type('hello after the restart', 1500);
  await tmux.waitFor(/hello after the restart[\s\S]*(Mock answer to|Done\.)/, 60000, 'an answer after the restart');
  await sleep(1500);
  const text = existsSync(transcript) ? readFileSync(transcript, 'utf8') : '';
  check(
    before > 0 && text.length > before && text.includes('hello after the restart'),
    'the prompt after the restart went into the same transcript',
  );
  const snap = join(home, '.config', 'resume', 'sessions', `${first.sessionId}.json`);
  check(existsSync(snap), `a snapshot of the session was taken before the SIGTERM (${snap})`);

  // 6. The same through an update hook: `[[resume.on_update]] action = "restart"`, a baseline at the
  //    installed version, then a newer build behind the link; `resume hooks run` fires the restart.
  mkdirSync(join(home, '.config', 'resume'), { recursive: true });
  writeFileSync(
    join(home, '.config', 'resume', 'config'),
    '[[resume.on_update]]\nharness = "claude"\naction = "restart"\ntimeout_seconds = 180\n',
  );
  const base = await resume(['hooks', 'run']);
  check(
    base.code === 0,
    `hooks run records the baseline ${newer}: exit ${base.code} ${(base.stdout + base.stderr).trim().split('\n').join(' | ')}`,
  );
  const newest = newer.replace(/(\d+)$/, (d) => String(Number(d) + 1));
  writeFileSync(join(versions, newest), `#!/bin/sh\nexec '${bin}' "$@"\n`);
  chmodSync(join(versions, newest), 0o755);
  rmSync(join(home, '.local', 'bin', 'claude'));
  symlinkSync(join(versions, newest), join(home, '.local', 'bin', 'claude'));
  const before2 = entries().find((e) => e.sessionId === first.sessionId);
  const fired = await resume(['hooks', 'run'], 300000);
  check(
    fired.code === 0 && /restart/.test(fired.stdout + fired.stderr),
    `hooks run after ${newer} -> ${newest}: exit ${fired.code}: ${(fired.stdout + fired.stderr).trim().split('\n').join(' | ')}`,
  );
  const end2 = Date.now() + 30000;
  while (Date.now() < end2 && !entries().some((e) => e.pid !== before2?.pid && e.status === 'idle')) {
    if (/Make auto mode your default/.test(tmux.screen())) {
      tmux.keys('Down');
      await sleep(300);
      tmux.keys('Enter');
    }
    await sleep(1000);
  }
  const third = await idle("after the hook's restart", before2?.pid);
  check(
    before2 && third.sessionId === first.sessionId && third.pid !== before2.pid,
    `the hook restarted the session (${before2?.pid} -> ${third.pid})`,
  );
  const st = await resume(['hooks', 'status', '--json']);
  const status = st.code === 0 ? JSON.parse(st.stdout) : null;
  const last = status?.runs?.at(-1);
  check(
    status?.claude?.recorded === newest && last?.kind === 'restart' && last?.exit_code === 0,
    `hooks status: recorded ${status?.claude?.recorded}, last run ${JSON.stringify(last)}`,
  );
} catch (e) {
  check(false, String(e?.message ?? e));
} finally {
  tmux.kill();
  await mock.close?.();
}
const failed = checks.filter((c) => !c.ok).length;
log(
  `restart against claude ${pinned} in tmux (${CLEARED ? 'TMUX cleared in the pane' : 'TMUX kept'}): ${checks.length - failed}/${checks.length} checks passed (home ${home}, under ${realRoot})`,
);
process.exit(failed ? 1 : 0);
