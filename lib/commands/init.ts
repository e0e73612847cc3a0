// `resume init zsh|bash|fish`: print the shell integration (shell/<shell>/resume.<shell>) after a
// short generated header naming this binary's absolute path, so the script always matches the
// binary that printed it and the function calls exactly that binary.
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../app.js';
import { usage } from '../errors.js';
import { quoteFish, quotePosix } from '../util/quote.js';
import { out } from './common.js';
import { type Call, type Cmd, ROOT, type Values } from './table.js';

export const INIT_SHELLS = ['zsh', 'bash', 'fish'] as const;
export type InitShell = (typeof INIT_SHELLS)[number];

export function header(shell: InitShell, bin: string): string {
  const top = `# resume shell integration for ${shell}, printed by \`resume init ${shell}\`.\n`;
  // the options whose value is a directory (the command table's): the shell's own completion takes them
  const dirs = dirOptions();
  if (shell === 'fish') return `${top}set -g __resume_bin ${quoteFish(bin)}\nset -g __resume_dir_opts ${dirs.join(' ')}\n`;
  const head = `${top}__resume_bin=${quotePosix(bin)}\n__resume_dir_opts=(${dirs.join(' ')})\n`;
  // bash lists several candidates after these words instead of opening the picker on them
  return shell === 'bash' ? `${head}__resume_value_words=(${valueWords().join(' ')})\n` : head;
}

/** The words whose next word has values TAB lists (not sessions): `--harness`, `init`. */
function valueWords(cmd: Cmd = ROOT): string[] {
  const listed = (v: Values | undefined) => v === 'harnesses' || typeof v === 'object';
  const own = (cmd.options ?? []).filter((o) => listed(o.values) && o.long).map((o) => o.long as string);
  const subs = (cmd.commands ?? []).flatMap((c) => [...(listed(c.args?.[0]?.values) ? [c.name] : []), ...valueWords(c)]);
  return [...new Set([...own, ...subs])];
}

/**
 * Every word the command table says a directory follows: the options that take one (`--dir`,
 * `--cd`) and the subcommands whose argument is one (`ls`).
 */
function dirOptions(cmd: Cmd = ROOT): string[] {
  const own = (cmd.options ?? []).filter((o) => o.values === 'dirs' && o.long).map((o) => o.long as string);
  const subs = (cmd.commands ?? []).flatMap((c) => [...(c.args?.[0]?.values === 'dirs' ? [c.name] : []), ...dirOptions(c)]);
  return [...new Set([...own, ...subs])];
}

export function script(app: App, shell: InitShell): string {
  const file = path.join(app.pkgDir, 'shell', shell, `resume.${shell}`);
  let body: string;
  try {
    body = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw usage(`cannot read the ${shell} integration (${file}): ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  return `${header(shell, app.self)}\n${body}`;
}

export async function run(app: App, call: Call): Promise<void> {
  const [shell] = call.args as [string];
  const o = call.opts as { write?: boolean };
  if (shell === 'claude-hook') return claudeHook(app, !!o.write);
  if (o.write) throw usage('--write goes with claude-hook');
  if (!(INIT_SHELLS as readonly string[]).includes(shell)) {
    throw usage(`unknown shell '${shell}' (expected ${INIT_SHELLS.join(', ')})`);
  }
  out(script(app, shell as InitShell));
}

async function claudeHook(app: App, write: boolean): Promise<void> {
  const { fragment, writeHook } = await import('../harness/claude/care/hook.js');
  if (!write) {
    out(`${JSON.stringify(fragment(app.self), null, 2)}\n`);
    return;
  }
  let r: ReturnType<typeof writeHook>;
  try {
    r = writeHook(app.ctx, app.self);
  } catch (err) {
    throw usage((err as Error).message);
  }
  if (!r.changed) process.stderr.write(`resume: the Stop hook is already in ${r.file}; nothing changed\n`);
  else
    process.stderr.write(
      `resume: ${r.replaced ? 'updated the' : 'added the'} Stop hook in ${r.file}${r.backup ? ` (backup: ${r.backup})` : ''}\n`,
    );
}
