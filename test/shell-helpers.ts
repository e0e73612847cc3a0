// Helpers for the shell-level tests: a HOME of Claude Code sessions in chosen directories, the
// stand-in `claude` on PATH (test/launch-helpers.ts) that records its cwd and argv, and each shell
// with no rc files.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, envFor, must, tempHome, write } from './helpers.js';
import { claudeSession, records, standIn, standInLog } from './launch-helpers.js';

export interface Sess {
  id: string;
  cwd: string;
  prompt: string;
  /** ISO timestamp of the last line */
  at: string;
}

/** Claude Code transcripts under HOME/.claude/projects for each session. */
export function claudeHome(sessions: Sess[], home = tempHome('resume-shell-')): string {
  for (const s of sessions) claudeSession(home, s);
  return home;
}

/** PATH with the stand-in `claude` first (test/launch-helpers.ts standIn; its log is read by calls). */
export function claudeOnPath(home: string): string {
  return standIn(home, ['claude']).PATH;
}

/** Each run of the stand-in `claude`: where and with what arguments. */
export function calls(home: string): { cwd: string; argv: string[] }[] {
  return records(standInLog(home)).map((r) => ({ cwd: must(r.cwd), argv: must(r.argv) }));
}

export type ShellName = 'zsh' | 'bash' | 'fish';

/** argv of each shell with no rc files, reading a script file. */
export function shellArgv(shell: ShellName, file: string): string[] {
  if (shell === 'zsh') return ['zsh', '-f', file];
  if (shell === 'bash') return ['bash', '--norc', '--noprofile', file];
  return ['fish', '--no-config', file];
}

/** The integration as `resume init SHELL` prints it. */
export function initScript(home: string, shell: ShellName): string {
  const r = spawnSync(process.execPath, [BIN, 'init', shell], { env: envFor(home), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`resume init ${shell} failed: ${r.stderr}`);
  return r.stdout;
}

/** Run a script in a shell with no rc files; the integration is at HOME/init.<shell>. */
export function runShell(
  home: string,
  shell: ShellName,
  body: string,
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): { code: number; stdout: string; stderr: string } {
  const file = path.join(home, `script.${shell}`);
  fs.writeFileSync(file, body);
  const r = spawnSync(shellArgv(shell, file)[0], shellArgv(shell, file).slice(1), {
    env: envFor(home, { PATH: claudeOnPath(home), ...opts.env }),
    cwd: opts.cwd ?? home,
    encoding: 'utf8',
    input: '',
  });
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

/** Write the integration for `shell` to HOME/init.<shell> and return that path. */
export function initFile(home: string, shell: ShellName): string {
  return write(home, `init.${shell}`, initScript(home, shell));
}

/** An interactive shell with no rc files in a private tmux server, the integration loaded, prompt `$ `. */
export class TmuxShell {
  static n = 0;
  private sock: string;
  constructor(
    home: string,
    shell: ShellName,
    extraEnv: Record<string, string> = {},
    size: { cols: number; rows: number } = { cols: 200, rows: 40 },
  ) {
    this.sock = path.join(home, `tmux-${++TmuxShell.n}.sock`);
    const init = initFile(home, shell);
    const env = envFor(home, { TERM: 'xterm-256color', PATH: claudeOnPath(home), ...extraEnv });
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const argv = shell === 'bash' ? ['bash', '--norc', '--noprofile'] : shell === 'zsh' ? ['zsh', '-f'] : ['fish', '--no-config'];
    this.tmux(
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-c',
      home,
      '-x',
      String(size.cols),
      '-y',
      String(size.rows),
      'env',
      '-i',
      ...envArgs,
      ...argv,
    );
    const setup = shell === 'fish' ? `function fish_prompt; echo -n '$ '; end; source ${init}; clear` : `PS1='$ '; source ${init}; clear`;
    this.send('-l', setup);
    this.send('Enter');
  }
  tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.sock, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  }
  send(...keys: string[]): void {
    this.tmux('send-keys', '-t', '0', ...keys);
  }
  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', '0');
  }
  /** The last prompt line on the screen (tmux trims trailing blanks). */
  line(): string {
    return (
      this.screen()
        .split('\n')
        .filter((l) => /^\$( |$)/.test(l))
        .pop()
        ?.trimEnd() ?? ''
    );
  }
  /** Poll until `ok` holds; the generous limit only guards against a hang. */
  async until(ok: (screen: string) => boolean, what: string): Promise<string> {
    const end = Date.now() + 25000;
    for (;;) {
      const s = this.screen();
      if (ok(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  kill(): void {
    spawnSync('tmux', ['-S', this.sock, 'kill-server']);
  }
}
