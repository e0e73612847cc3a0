// `--copy`: the resume line onto the clipboard instead of stdout. Where it goes, first that applies:
//   inside tmux            `tmux load-buffer -w -` (tmux's buffer; -w also sets the outer terminal's
//                          clipboard through OSC 52 where tmux allows it)
//   over ssh               an OSC 52 write to the terminal (/dev/tty): the local terminal sets its
//                          clipboard (most do: iTerm2, kitty, WezTerm, foot, Windows Terminal, …)
//   otherwise              pbcopy, wl-copy (Wayland), xclip, xsel (X11), the first found on PATH
// None of them: an ExitError(2) saying what to install. The caller says where it went (stderr).

import fs from 'node:fs';
import { ExitError } from '../errors.js';
import { runSync } from '../os/run.js';
import { onPath } from '../util/which.js';

function pipeTo(cmd: string, args: string[], text: string, env: NodeJS.ProcessEnv): boolean {
  // xclip and xsel stay running to serve the selection: do not wait on their output pipes
  return runSync(cmd, args, { input: text, env, discard: true }).ok;
}

/** The OSC 52 sequence that asks a terminal to set its clipboard. */
export function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

/** Put `text` on a clipboard; returns where it went, for the message. */
export function copyText(text: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.TMUX && onPath('tmux', env.PATH)) {
    if (pipeTo('tmux', ['load-buffer', '-w', '-'], text, env) || pipeTo('tmux', ['load-buffer', '-'], text, env)) return 'the tmux buffer';
  }
  if (env.SSH_TTY || env.SSH_CONNECTION) {
    try {
      const fd = fs.openSync('/dev/tty', 'w');
      try {
        fs.writeSync(fd, osc52(text));
      } finally {
        fs.closeSync(fd);
      }
      return "the terminal's clipboard (OSC 52)";
    } catch {
      /* no terminal: try the programs */
    }
  }
  const tools: [string, string[], boolean][] = [
    ['pbcopy', [], true],
    ['wl-copy', [], !!env.WAYLAND_DISPLAY],
    ['xclip', ['-selection', 'clipboard'], !!env.DISPLAY],
    ['xsel', ['--clipboard', '--input'], !!env.DISPLAY],
  ];
  for (const [cmd, args, usable] of tools) {
    if (!usable || !onPath(cmd, env.PATH)) continue;
    if (pipeTo(cmd, args, text, env)) return `the clipboard (${cmd})`;
  }
  throw new ExitError(
    2,
    'no clipboard to copy to (pbcopy, wl-copy with WAYLAND_DISPLAY, xclip or xsel with DISPLAY, tmux, or a terminal over ssh); --print prints the line instead',
  );
}
