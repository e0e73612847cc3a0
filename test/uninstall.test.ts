// `resume uninstall [--dry-run]` in a temp HOME where each thing it removes was made by the real
// command: the Stop hook by `init claude-hook --write`, the units by `hooks install` (a stand-in
// systemctl on PATH and a user bus socket), the cache by `index`, a snapshot by `snapshot` of a live
// stand-in Claude session. A dry run removes nothing and names each; the run removes each, keeps
// Claude's other settings (after a backup) and what resume did not write.

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeHook } from '../lib/harness/claude/care/hook.js';
import { makeCtx } from '../lib/util/paths.js';
import { must, notLinux, run, tempHome, write } from './helpers.js';
import { claudeSession, uuid as uuidAt } from './launch-helpers.js';

// ids of this file's own (the live check reads every process on the machine)
const uuid = (i: number) => uuidAt(i, 'dededede-0000-4000-8000');

const kids: ChildProcess[] = [];
const servers: net.Server[] = [];
afterEach(() => {
  for (const k of kids.splice(0)) k.kill('SIGKILL');
  for (const s of servers.splice(0)) s.close();
});

// Records its arguments, as systemctl would be asked; `enable` and `disable` make and take away the
// links the real one does, so what uninstall finds is what it would find.
const CTL = `#!/bin/sh
echo "systemctl $*" >> "$HOME/ctl.log"
d="$HOME/.config/systemd/user"
case "$*" in
  *" enable "*) mkdir -p "$d/default.target.wants" "$d/timers.target.wants"
    ln -sf "$d/resume-hooks.path" "$d/default.target.wants/resume-hooks.path"
    ln -sf "$d/resume-hooks.timer" "$d/timers.target.wants/resume-hooks.timer" ;;
  *" disable "*) rm -f "$d/default.target.wants/resume-hooks.path" "$d/timers.target.wants/resume-hooks.timer" ;;
esac
exit 0
`;
const CLAUDE = '#!/bin/sh\necho "2.1.5 (Claude Code)"\n';

/** Every file and directory under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      out.push(path.relative(dir, p) + (e.isDirectory() ? '/' : ''));
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

async function userBus(h: string): Promise<string> {
  const rt = path.join(h, 'run');
  fs.mkdirSync(rt, { mode: 0o700 });
  const s = net.createServer();
  servers.push(s);
  await new Promise<void>((res) => s.listen(path.join(rt, 'bus'), res));
  return rt;
}

const USER_SETTINGS = {
  model: 'opus',
  permissions: { allow: ['Bash(ls:*)'] },
  hooks: {
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre' }] }],
  },
};

/** A HOME with everything resume writes, each by its own command; the env to run in. */
async function installed(bus: boolean): Promise<{ h: string; env: Record<string, string | undefined> }> {
  const h = tempHome('resume-uninstall-');
  write(h, 'bin/systemctl', CTL);
  write(h, 'bin/claude', CLAUDE);
  for (const b of ['systemctl', 'claude']) fs.chmodSync(path.join(h, 'bin', b), 0o755);
  const env = {
    PATH: `${h}/bin:${process.env.PATH}`,
    XDG_RUNTIME_DIR: bus ? await userBus(h) : undefined,
    DBUS_SESSION_BUS_ADDRESS: undefined,
    RESUME_HOOKS_SETTLE_MS: '0',
    TMUX_TMPDIR: path.join(h, 'no-tmux'),
  };
  write(h, '.claude/settings.json', `${JSON.stringify(USER_SETTINGS, null, 2)}\n`);
  write(h, '.zshrc', 'export EDITOR=vi\neval "$(resume init zsh)"\n# eval "$(resume init bash)"\n');
  write(h, '.config/fish/config.fish', 'set -x EDITOR vi\n/opt/resume/bin/resume init fish | source\n');
  write(h, '.config/resume/config', 'keys = "vim"\n');
  const id = uuid(1);
  claudeSession(h, { id, cwd: h });
  const p = spawn('sleep', ['600'], { stdio: 'ignore' });
  kids.push(p);
  await new Promise((res) => p.once('spawn', res));
  const st = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
  write(
    h,
    `.claude/sessions/${p.pid}.json`,
    JSON.stringify({
      pid: p.pid,
      sessionId: id,
      cwd: h,
      startedAt: 1,
      procStart: st.slice(st.lastIndexOf(')') + 2).split(' ')[19],
      version: '2.1.5',
      kind: 'interactive',
      entrypoint: 'cli',
      status: 'idle',
      updatedAt: 2,
      name: 'named-one',
      nameSource: 'user',
    }),
  );
  for (const args of [['init', 'claude-hook', '--write'], ['hooks', 'install'], ['index'], ['snapshot']]) {
    const r = run(h, args, env);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
  return { h, env };
}

describe.skipIf(notLinux)('resume uninstall', { timeout: 60_000 }, () => {
  it("--dry-run names each thing and removes nothing; the run removes each, keeps what is not resume's", async () => {
    const { h, env } = await installed(true);
    const units = ['path', 'timer', 'service'].map((x) => `~/.config/systemd/user/resume-hooks.${x}`);
    for (const u of units) expect(fs.existsSync(path.join(h, u.slice(2)))).toBe(true);
    expect(fs.existsSync(path.join(h, '.config/systemd/user/default.target.wants/resume-hooks.path'))).toBe(true);
    expect(fs.readdirSync(path.join(h, '.config/resume/sessions'))).toContain(`${uuid(1)}.json`);
    expect(fs.readdirSync(path.join(h, '.local/state/resume'))).toContain('hooks.json');
    const settings = fs.readFileSync(path.join(h, '.claude/settings.json'), 'utf8');
    expect(settings).toContain('snapshot --quiet');
    const backupsBefore = fs.readdirSync(path.join(h, '.claude')).filter((n) => n.includes('.resume-backup-'));
    expect(backupsBefore).toHaveLength(1);
    fs.writeFileSync(path.join(h, 'ctl.log'), '');

    const before = tree(h);
    const dry = run(h, ['uninstall', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('');
    const lines = dry.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      'resume: remove by hand from ~/.zshrc, line 2: eval "$(resume init zsh)"',
      'resume: remove by hand from ~/.config/fish/config.fish, line 2: /opt/resume/bin/resume init fish | source',
      expect.stringMatching(
        /^resume: would remove the Stop hook \(resume snapshot --quiet\) from ~\/\.claude\/settings\.json \(backup: ~\/\.claude\/settings\.json\.resume-backup-[\dTZ-]+\)$/,
      ),
      'resume: would leave 2 backups of ~/.claude/settings.json (settings.json.resume-backup-*): yours to delete once you no longer need them',
      'resume: would stop and disable resume-hooks.path, resume-hooks.timer and resume-hooks.service (systemctl --user disable --now)',
      'resume: would remove ~/.config/systemd/user/default.target.wants/resume-hooks.path (the link systemctl enable made)',
      'resume: would remove ~/.config/systemd/user/timers.target.wants/resume-hooks.timer (the link systemctl enable made)',
      ...units.map((u) => `resume: would remove ${u}`),
      'resume: would reload systemd (systemctl --user daemon-reload)',
      'resume: would remove the cache ~/.cache/resume',
      'resume: would remove the snapshot store ~/.config/resume/sessions',
      'resume: would remove the state directory ~/.local/state/resume',
      'resume: would leave ~/.config/resume/config (your config)',
    ]);
    // nothing removed or changed (a run may add its own code cache: nothing else)
    expect(tree(h).filter((f) => !f.startsWith('.cache/resume/code/'))).toEqual(before.filter((f) => !f.startsWith('.cache/resume/code/')));
    expect(fs.readFileSync(path.join(h, '.claude/settings.json'), 'utf8')).toBe(settings);
    expect(fs.readFileSync(path.join(h, 'ctl.log'), 'utf8')).toBe('');

    const r = run(h, ['uninstall'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    // the same lines, done (the backup's name is the time of each run)
    const done = (l: string) =>
      l
        .replace(/^resume: would stop and disable/, 'resume: stopped and disabled')
        .replace(/^resume: would reload/, 'resume: reloaded')
        .replace(/^resume: would remove/, 'resume: removed')
        .replace(/^resume: would leave/, 'resume: left');
    const when = (l: string) => l.replace(/resume-backup-[\dTZ-]+/, 'resume-backup-T');
    expect(r.stderr.trimEnd().split('\n').map(when)).toEqual(dry.stderr.trimEnd().split('\n').map(done).map(when));
    expect(r.stderr.split('\n')[2]).toMatch(
      /^resume: removed the Stop hook \(resume snapshot --quiet\) from ~\/\.claude\/settings\.json \(backup: /,
    );
    expect(fs.readFileSync(path.join(h, 'ctl.log'), 'utf8').trim().split('\n')).toEqual([
      'systemctl --user disable --now resume-hooks.path resume-hooks.timer',
      'systemctl --user stop resume-hooks.service',
      'systemctl --user daemon-reload',
    ]);
    // each gone
    for (const p of [
      ...units.map((u) => u.slice(2)),
      '.cache/resume',
      '.config/resume/sessions',
      '.local/state/resume',
      '.config/systemd/user/default.target.wants/resume-hooks.path',
    ]) {
      expect(fs.existsSync(path.join(h, p)), p).toBe(false);
    }
    // Claude's other settings as they were; the settings with the hook in the backup it names
    expect(JSON.parse(fs.readFileSync(path.join(h, '.claude/settings.json'), 'utf8'))).toEqual(USER_SETTINGS);
    const backup = path.join(h, '.claude', path.basename(must(r.stderr.match(/backup: (~\/\.claude\/\S+)\)/))[1]));
    expect(fs.readFileSync(backup, 'utf8')).toBe(settings);
    expect(fs.statSync(backup).mode & 0o777).toBe(0o600);
    // what resume did not write stays: rc files, the config, the transcript, Claude's registry
    expect(fs.readFileSync(path.join(h, '.zshrc'), 'utf8')).toContain('eval "$(resume init zsh)"');
    expect(fs.readFileSync(path.join(h, '.config/resume/config'), 'utf8')).toBe('keys = "vim"\n');
    expect(fs.readdirSync(path.join(h, '.claude/projects'))).toHaveLength(1);

    // again: only what is left for the person
    const again = run(h, ['uninstall'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/removed|stopped/);
    expect(again.stderr).toContain('remove by hand from ~/.zshrc, line 2');
    expect(fs.existsSync(path.join(h, '.cache/resume')), "the run's own code cache is not left behind").toBe(false);
  });

  it('without a user bus: the links enable made and the unit files go, and it says what to run in the session', async () => {
    const { h, env } = await installed(true);
    const r = run(h, ['uninstall'], { ...env, XDG_RUNTIME_DIR: undefined });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'resume: no systemd user bus reached from here: if resume-hooks.path and resume-hooks.timer run in your session, run there: systemctl --user stop resume-hooks.path resume-hooks.timer && systemctl --user daemon-reload\n',
    );
    expect(r.stderr).toContain(
      'resume: removed ~/.config/systemd/user/timers.target.wants/resume-hooks.timer (the link systemctl enable made)\n',
    );
    expect(
      fs.readdirSync(path.join(h, '.config/systemd/user'), { recursive: true }).filter((n) => String(n).includes('resume-hooks')),
    ).toEqual([]);
    expect(fs.readFileSync(path.join(h, 'ctl.log'), 'utf8')).not.toContain('disable');
  });

  it('never removes a directory whole that holds files resume did not write; a unit it did not write stays', () => {
    const h = tempHome('resume-uninstall-');
    const cache = path.join(h, 'mixed');
    write(h, 'mixed/notes.txt', 'mine\n');
    write(h, '.config/systemd/user/resume-hooks.timer', '[Timer]\nOnCalendar=weekly\n');
    const env = { RESUME_CACHE_DIR: cache, XDG_RUNTIME_DIR: undefined, DBUS_SESSION_BUS_ADDRESS: undefined };
    expect(run(h, ['index'], env).code).toBe(0);
    const r = run(h, ['uninstall'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('resume: left ~/.config/systemd/user/resume-hooks.timer (not written by resume hooks install)\n');
    expect(r.stderr).toMatch(/^resume: removed the cache in ~\/mixed: \S.*index\.db/m);
    expect(r.stderr).toContain('resume: left ~/mixed: notes.txt (not written by resume)\n');
    expect(fs.readdirSync(cache)).toEqual(['notes.txt']);
    expect(fs.existsSync(path.join(h, '.config/systemd/user/resume-hooks.timer'))).toBe(true);

    // a cache directory set to HOME itself: nothing in it is removed
    write(h, 'list.json', '{}');
    const home = run(h, ['uninstall'], { ...env, RESUME_CACHE_DIR: h });
    expect(home.stderr).toContain("resume: left the cache ~: it is your home directory or above it; remove resume's files there by hand\n");
    expect(fs.existsSync(path.join(h, 'list.json'))).toBe(true);
    // --demo is refused: uninstall is about your own files
    expect(run(h, ['--demo', 'uninstall'], env)).toMatchObject({
      code: 2,
      stderr: 'resume: uninstall works on your own files: run it without --demo\n',
    });
  });

  it('takes out only our hook: a group it shares keeps the others, a file without it is not written', () => {
    const h = tempHome('resume-uninstall-');
    const ours = { type: 'command', command: "'/opt/resume/bin/resume' snapshot --quiet" };
    const theirs = { type: 'command', command: 'notify-send stop' };
    const file = write(
      h,
      '.claude/settings.json',
      JSON.stringify({ hooks: { Stop: [{ matcher: '', hooks: [theirs, ours] }, { hooks: [ours] }] }, theme: 'dark' }),
    );
    const ctx = makeCtx({ HOME: h });
    const now = new Date('2026-01-02T03:04:05.678Z');
    expect(removeHook(ctx, now, true)).toEqual({ file, removed: 2, backup: `${file}.resume-backup-2026-01-02T03-04-05-678Z` });
    expect(fs.readdirSync(path.dirname(file))).toEqual(['settings.json']);
    expect(removeHook(ctx, now)).toMatchObject({ removed: 2 });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ hooks: { Stop: [{ matcher: '', hooks: [theirs] }] }, theme: 'dark' });
    const text = fs.readFileSync(file, 'utf8');
    expect(removeHook(ctx, new Date())).toEqual({ file, removed: 0, backup: null });
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.readdirSync(path.dirname(file))).toHaveLength(2);
    // not JSON: an error naming the file, nothing written
    fs.writeFileSync(file, '{ broken');
    expect(() => removeHook(ctx)).toThrow(/settings\.json is not valid JSON/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ broken');
  });
});
