// `resume hooks install`: something that runs `resume hooks run` when the claude binary changes and
// every 30 minutes. Linux: systemd user units (a path unit on the binary, a timer, both starting a
// oneshot service). macOS: a launchd agent (WatchPaths plus StartInterval). Every path is absolute
// (node, resume, claude); a file is rewritten only when its text differs. What is watched does not
// change with each claude version, so an update leaves the installed files current.

import fs from 'node:fs';
import path from 'node:path';
import { symlinkVersion } from '../harness/claude/care/version.js';
import { runSync, SLOW_MS } from '../os/run.js';
import type { Ctx } from '../types.js';
import { makeDir, writeAtomic } from '../util/fsx.js';
import { onPath } from '../util/which.js';

export const UNIT = 'resume-hooks';
export const LABEL = 'resume-sessions.hooks';
/** how often the watcher looks, whatever the path unit saw (pending restarts are retried then too) */
export const EVERY_MINUTES = 30;

export interface Paths {
  /** node, then bin/resume */
  node: string;
  resume: string;
  /** the claude the watcher watches: the command's path, its resolved target, the versions directory */
  watch: string[];
  /** PATH the hooks run with */
  envPath: string;
}

export interface UnitFile {
  file: string;
  text: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finds control characters in paths written into unit files
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The claude binary as the user runs it and what to watch for an update. */
export function watchPaths(ctx: Ctx): string[] | { error: string } {
  const link = path.join(ctx.home, '.local', 'bin', 'claude');
  let bin: string | null = null;
  try {
    fs.lstatSync(link);
    bin = link;
  } catch {
    bin = onPath('claude', ctx.env.PATH ?? '');
  }
  if (!bin) return { error: `no claude found (neither ${link} nor claude on PATH); install Claude Code first` };
  bin = path.resolve(bin);
  const out = [bin];
  const s = symlinkVersion(bin);
  if (s) {
    // The native installer's layout: the link's target is versions/<version>, which changes with every
    // update; the link and the versions directory (where a new build appears) do not.
    out.push(path.dirname(s.target));
  } else {
    let real: string | null = null;
    try {
      real = fs.realpathSync(bin);
    } catch {
      /* a dangling link: watching the link still catches its repair */
    }
    // another layout (npm's, a package manager's): the resolved file is updated in place
    if (real && real !== bin) out.push(real);
  }
  for (const p of out) if (CONTROL.test(p)) return { error: `cannot watch a path with control characters: ${JSON.stringify(p)}` };
  return [...new Set(out)];
}

/** PATH for the hooks: the directories of claude and node, then this PATH's absolute entries. */
export function hooksPath(ctx: Ctx, node: string, claude: string): string {
  const dirs = [path.dirname(claude), path.dirname(node), ...(ctx.env.PATH ?? '').split(':'), '/usr/local/bin', '/usr/bin', '/bin'];
  const ok = dirs.filter((d) => d && path.isAbsolute(d) && !CONTROL.test(d) && !/["\\%:]/.test(d));
  return [...new Set(ok)].join(':');
}

export function systemdDir(ctx: Ctx): string {
  const x = ctx.env.XDG_CONFIG_HOME && path.isAbsolute(ctx.env.XDG_CONFIG_HOME) ? ctx.env.XDG_CONFIG_HOME : path.join(ctx.home, '.config');
  return path.join(x, 'systemd', 'user');
}

export function launchdFile(ctx: Ctx): string {
  return path.join(ctx.home, 'Library', 'LaunchAgents', `${LABEL}.plist`);
}

/** One systemd word: quoted, with backslash, quote and specifier (%) escaped. */
function sdWord(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
}
/** A path value (PathChanged=): specifiers escaped; systemd takes the rest of the line as it is. */
const sdPath = (s: string) => s.replace(/%/g, '%%');

const HEAD = '# Written by `resume hooks install` (run it again to update; it rewrites only what differs).\n';

export function systemdUnits(ctx: Ctx, p: Paths): UnitFile[] {
  const dir = systemdDir(ctx);
  const service = `${HEAD}[Unit]
Description=resume: run update hooks when claude changes version

[Service]
Type=oneshot
ExecStart=${sdWord(p.node)} ${sdWord(p.resume)} hooks run --trigger watcher
Environment=${sdWord(`PATH=${p.envPath}`)}
# each hook is bounded by its own timeout_seconds
TimeoutStartSec=infinity
`;
  const pathUnit = `${HEAD}[Unit]
Description=resume: watch the claude binary for an update

[Path]
${p.watch.map((w) => `PathChanged=${sdPath(w)}`).join('\n')}
Unit=${UNIT}.service

[Install]
WantedBy=default.target
`;
  const timer = `${HEAD}[Unit]
Description=resume: check for a claude update (and pending restarts) every ${EVERY_MINUTES} minutes

[Timer]
OnCalendar=*:0/${EVERY_MINUTES}
Persistent=true
RandomizedDelaySec=120
Unit=${UNIT}.service

[Install]
WantedBy=timers.target
`;
  return [
    { file: path.join(dir, `${UNIT}.service`), text: service },
    { file: path.join(dir, `${UNIT}.path`), text: pathUnit },
    { file: path.join(dir, `${UNIT}.timer`), text: timer },
  ];
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const str = (s: string) => `<string>${xml(s)}</string>`;

export function launchdPlist(ctx: Ctx, p: Paths): UnitFile {
  const text = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`resume hooks install\` (run it again to update; it rewrites only what differs). -->
<plist version="1.0">
<dict>
\t<key>Label</key>
\t${str(LABEL)}
\t<key>ProgramArguments</key>
\t<array>
${[p.node, p.resume, 'hooks', 'run', '--trigger', 'watcher'].map((a) => `\t\t${str(a)}`).join('\n')}
\t</array>
\t<key>EnvironmentVariables</key>
\t<dict>
\t\t<key>PATH</key>
\t\t${str(p.envPath)}
\t</dict>
\t<key>WatchPaths</key>
\t<array>
${p.watch.map((w) => `\t\t${str(w)}`).join('\n')}
\t</array>
\t<key>StartInterval</key>
\t<integer>${EVERY_MINUTES * 60}</integer>
\t<key>RunAtLoad</key>
\t<false/>
\t<key>ProcessType</key>
\t<string>Background</string>
</dict>
</plist>
`;
  return { file: launchdFile(ctx), text };
}

export function paths(ctx: Ctx, self: string): Paths | { error: string } {
  const watch = watchPaths(ctx);
  if ('error' in watch) return watch;
  const node = process.execPath;
  const resume = path.resolve(self);
  for (const p of [node, resume])
    if (CONTROL.test(p)) return { error: `cannot write a unit for a path with control characters: ${JSON.stringify(p)}` };
  const [claude] = watch;
  if (claude === undefined) throw new Error('watchPaths returned no path (the claude binary is always its first)');
  return { node, resume, watch, envPath: hooksPath(ctx, node, claude) };
}

export function unitFiles(ctx: Ctx, p: Paths, platform = process.platform): UnitFile[] {
  return platform === 'darwin' ? [launchdPlist(ctx, p)] : systemdUnits(ctx, p);
}

/** Write the files that differ (0644, the way units are installed); which ones changed. */
export function writeUnits(files: UnitFile[]): { file: string; changed: boolean }[] {
  return files.map((u) => {
    let cur: string | null = null;
    try {
      cur = fs.readFileSync(u.file, 'utf8');
    } catch {
      /* none yet */
    }
    if (cur === u.text) return { file: u.file, changed: false };
    makeDir(path.dirname(u.file), 0o777);
    writeAtomic(u.file, u.text, 0o644);
    return { file: u.file, changed: true };
  });
}

/** Is there a systemd user bus to talk to? */
export function userBus(ctx: Ctx): boolean {
  if (ctx.env.DBUS_SESSION_BUS_ADDRESS) return true;
  const rt = ctx.env.XDG_RUNTIME_DIR;
  if (!rt) return false;
  try {
    return fs.statSync(path.join(rt, 'bus')).isSocket();
  } catch {
    return false;
  }
}

export interface Call {
  argv: string[];
  ok: boolean;
  out: string;
}

export function call(ctx: Ctx, prog: string, args: string[]): Call {
  const bin = onPath(prog, ctx.env.PATH ?? '');
  if (!bin) return { argv: [prog, ...args], ok: false, out: `${prog} not found` };
  const r = runSync(bin, args, { timeout: SLOW_MS, env: ctx.env, maxBuffer: 1 << 20 });
  return { argv: [prog, ...args], ok: r.ok, out: `${r.stdout}${r.stderr}`.trim() };
}

const SD_UNITS = [`${UNIT}.path`, `${UNIT}.timer`];

/** Load what was written: systemctl (Linux) or launchctl (macOS). Returns what ran, or what to run by hand. */
export function activate(ctx: Ctx, changed: boolean, platform = process.platform): { ran: Call[]; manual: string | null } {
  if (platform === 'darwin') {
    const file = launchdFile(ctx);
    const domain = `gui/${process.getuid?.() ?? 501}`;
    const manual = `launchctl bootout ${domain}/${LABEL}; launchctl bootstrap ${domain} '${file}'`;
    if (!onPath('launchctl', ctx.env.PATH ?? '')) return { ran: [], manual };
    const ran: Call[] = [];
    const loaded = call(ctx, 'launchctl', ['print', `${domain}/${LABEL}`]);
    ran.push(loaded);
    if (loaded.ok && !changed) return { ran, manual: null };
    if (loaded.ok) ran.push(call(ctx, 'launchctl', ['bootout', `${domain}/${LABEL}`]));
    const b = call(ctx, 'launchctl', ['bootstrap', domain, file]);
    ran.push(b);
    return { ran, manual: b.ok ? null : manual };
  }
  const manual = `systemctl --user daemon-reload && systemctl --user enable --now ${SD_UNITS.join(' ')}`;
  if (!onPath('systemctl', ctx.env.PATH ?? '') || !userBus(ctx)) return { ran: [], manual };
  const ran: Call[] = [];
  const steps = changed
    ? [['daemon-reload'], ['enable', '--now', ...SD_UNITS], ['restart', ...SD_UNITS]]
    : [['enable', '--now', ...SD_UNITS]];
  for (const s of steps) {
    const c = call(ctx, 'systemctl', ['--user', ...s]);
    ran.push(c);
    if (!c.ok) return { ran, manual };
  }
  return { ran, manual: null };
}

/** Installed (files present and current) and loaded (as far as systemctl/launchctl can tell). */
export function installState(
  ctx: Ctx,
  self: string,
  platform = process.platform,
): {
  files: { file: string; state: 'current' | 'different' | 'missing' }[];
  loaded: boolean | null;
  loadedDetail: string;
} {
  const p = paths(ctx, self);
  const want = 'error' in p ? null : unitFiles(ctx, p, platform);
  const names = want
    ? want.map((u) => u.file)
    : platform === 'darwin'
      ? [launchdFile(ctx)]
      : ['service', 'path', 'timer'].map((x) => path.join(systemdDir(ctx), `${UNIT}.${x}`));
  const files = names.map((file, i) => {
    let cur: string | null = null;
    try {
      cur = fs.readFileSync(file, 'utf8');
    } catch {
      /* missing */
    }
    return {
      file,
      state: cur == null ? ('missing' as const) : want && cur !== want[i]?.text ? ('different' as const) : ('current' as const),
    };
  });
  if (platform === 'darwin') {
    if (!onPath('launchctl', ctx.env.PATH ?? '')) return { files, loaded: null, loadedDetail: 'launchctl not found' };
    const c = call(ctx, 'launchctl', ['print', `gui/${process.getuid?.() ?? 501}/${LABEL}`]);
    return { files, loaded: c.ok, loadedDetail: c.ok ? `${LABEL} loaded` : `${LABEL} not loaded` };
  }
  if (!onPath('systemctl', ctx.env.PATH ?? '')) return { files, loaded: null, loadedDetail: 'systemctl not found' };
  if (!userBus(ctx)) return { files, loaded: null, loadedDetail: 'no systemd user bus (XDG_RUNTIME_DIR/bus)' };
  const c = call(ctx, 'systemctl', ['--user', 'is-active', ...SD_UNITS]);
  const states = c.out.split('\n').map((s) => s.trim());
  return { files, loaded: c.ok, loadedDetail: SD_UNITS.map((u, i) => `${u} ${states[i] || 'unknown'}`).join(', ') };
}
