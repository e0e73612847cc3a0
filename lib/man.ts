// The man page, resume(1), written from the program `--help` describes (lib/cli.ts makes it from the
// command table, lib/commands/table.ts): each command's usage, description, arguments, options and
// the text its help adds after, through commander's own Help, so the page and `--help` cannot say
// different things. The sections no command definition holds (description, exit status,
// environment, files) are here.
// scripts/man.mjs writes it to man/resume.1; test/man.test.ts checks that file is current.
import type { Command, Help } from 'commander';
import { main, VERSION } from './cli.js';
import { fixHelpWidth, HELP_WIDTH } from './commands/flow.js';

/** The program as `resume --help` sees it, every command registered. */
export async function program(): Promise<Command> {
  let got: Command | null = null;
  await main([], (p) => {
    got = p;
  });
  if (!got) throw new Error('the command line gave no program');
  return got;
}

/**
 * Text as roff reads it: backslashes and every `-` escaped (a bare `-` may print as a hyphen, and a
 * flag copied from the page would not work), non-ASCII as \[uXXXX] (groff reads its input as
 * Latin-1 unless preconv ran), and a line that starts with `.` or `'` made text.
 */
export function roff(s: string): string {
  const t = s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[\u0080-\u{10ffff}]/gu, (c) => `\\[u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`);
  return t
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

const bold = (s: string) => `\\fB${roff(s)}\\fR`;

/** What a command's help prints after its options (addHelpText 'after'), as given. */
function afterHelp(cmd: Command): string {
  let text = '';
  // (a Command is an EventEmitter; addHelpText listens for this event, which its types leave out)
  (cmd as unknown as NodeJS.EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => (text += s) });
  return text.replace(/^\n+|\s+$/g, '');
}

/** Every command the help lists, depth first (`hooks`, then `hooks run`, …); hidden ones left out. */
export function visibleCommands(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden).flatMap((c) => [c, ...visibleCommands(c)]);
}

/** The arguments and options `--help` lists (a command's own -h, --help only once, under OPTIONS). */
function options(help: Help, cmd: Command): string[] {
  const L: string[] = [];
  for (const a of help.visibleArguments(cmd)) L.push('.TP', bold(help.argumentTerm(a)), roff(help.argumentDescription(a)));
  for (const o of help.visibleOptions(cmd)) {
    if (cmd.parent && o.long === '--help') continue;
    L.push('.TP', bold(help.optionTerm(o)), roff(help.optionDescription(o)));
  }
  return L;
}

function preformatted(text: string): string[] {
  return text ? ['.PP', '.nf', '.RS 4', roff(text), '.RE', '.fi'] : [];
}

const DESCRIPTION = `\
resume finds every coding-agent session on this machine (Claude Code, Codex CLI, pi, Cursor CLI,
opencode, Gemini CLI, Qwen Code, GitHub Copilot CLI, Factory Droid, Kilo CLI), lists them newest
first from any directory, lets you pick one in fzf (or name it by id, id prefix or words) and starts it
again in the directory it started in, through your own shell.

With no QUERY on a terminal the picker opens. A QUERY is, in order: the path of an indexed
transcript, a full session id, an id prefix of 4 or more characters, or words, each of which must
occur in the session's title, prompts, directory, branch, harness or id. One match is resumed;
several open the picker with the query filled in (with no terminal, or with --dry-run, they are
printed one per line and the exit status is 1). Arguments after -- go to the harness.

Shell integration: eval "$(resume init zsh)" in ~/.zshrc, eval "$(resume init bash)" in ~/.bashrc,
or resume init fish | source in ~/.config/fish/config.fish. It defines a resume function that runs
the resume line in your shell (your aliases and functions apply, your directory stays), completion
of commands, options and sessions, and a key binding (Alt-R) that opens the picker.

Every command that lists takes -a/--all (hidden sessions too: subagents, print-mode, SDK,
exec, archived, empty), --harness NAME[,NAME] and --dir DIR. stdout carries only data; errors are
one line on stderr. Nothing is ever written to, locked or checkpointed in a harness's own files,
except by resume init claude-hook --write (settings.json, after a backup) and the restore of a
Claude session's snapshotted tasks before it is resumed.`;

const EXAMPLES: [string, string][] = [
  ['resume', 'pick a session in fzf and resume it'],
  ['resume --demo', 'the same on the bundled demo sessions'],
  ['resume rate limit', 'resume the session these words name, or pick among those they match'],
  ['resume ls -n 10 --dir .', 'the ten newest sessions started here or below'],
  ['resume search "connection reset"', 'every transcript that says it, best first'],
  ['resume 019ac9d2 --fork', "a fork of that session (the harness's own)"],
  ['resume rows | fzf | cut -f1 | resume emit', 'the stages by hand'],
];

const EXIT: [string, string][] = [
  ['0', 'resumed, printed or listed (also a closed pipe, as in resume rows | head).'],
  ['1', 'nothing matched, or several matched where no one can choose (the candidates are on stdout).'],
  [
    '2',
    'a usage error, or a refusal you can fix: the session is running (its pid is named; --fork is the way in), its directory is gone, a bad config value; a QUERY that matches nothing and is one edit from a command (resume lsit).',
  ],
  ['130', 'the picker was cancelled.'],
];

/** Every variable resume reads (test/man.test.ts checks each RESUME_ one in lib/ and shell/ is here or internal). */
export const ENVIRONMENT: [string, string][] = [
  ['RESUME_CACHE_DIR', 'the directory of the index (default $XDG_CACHE_HOME/resume, else ~/.cache/resume).'],
  ['RESUME_DEMO', '1: as --demo, every root points at the bundled demo sessions.'],
  ['RESUME_FZF', 'the fzf to run: a path or a command name (default fzf on PATH).'],
  ['RESUME_SHELL', 'the shell --print and emit quote for: zsh, bash or fish (default $SHELL when it is one of them, else bash).'],
  ['RESUME_KEY', 'the key the shell integration binds to the picker (default Alt-R, \\er); empty or none binds none.'],
  ['RESUME_KEY_RUN', '1: the key binding runs the chosen session at once instead of putting the command on the command line.'],
  [
    'RESUME_EMIT_FILE',
    'set by the shell integration: the binary writes the one line to run (cd DIR && COMMAND) to this file instead of starting the harness.',
  ],
  [
    'RESUME_CLAUDE_DIRS, RESUME_CODEX_DIRS, RESUME_PI_DIRS, RESUME_CURSOR_DIRS, RESUME_OPENCODE_DIRS, RESUME_GEMINI_DIRS, RESUME_QWEN_DIRS, RESUME_COPILOT_DIRS, RESUME_DROID_DIRS, RESUME_KILO_DIRS',
    "extra roots of a harness, colon-separated (a second account, a synced folder), besides the harness's own.",
  ],
  [
    'CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR, PI_CODING_AGENT_SESSION_DIR, CURSOR_CONFIG_DIR, CURSOR_DATA_DIR, XDG_DATA_HOME, OPENCODE_DB, KILO_DB, GEMINI_CLI_HOME, QWEN_HOME, COPILOT_HOME, FACTORY_HOME_OVERRIDE',
    'where each harness keeps its sessions, read as the harness reads them; a session found elsewhere is resumed with its store named.',
  ],
  ['RESUME_THREADS', 'at most this many worker threads for an index build and a search (default: the cores).'],
  ['RESUME_NO_PRUNE', '1: keep snapshot records whose transcript is gone.'],
  ['RESUME_PROC_TABLE', 'ps: read live processes with ps(1) on Linux too, instead of /proc.'],
  ['RESUME_HOOKS_SETTLE_MS', 'resume hooks run: the pause between two reads of the claude version (0 to 60000).'],
  [
    'RESUME_HARNESS, RESUME_OLD_VERSION, RESUME_NEW_VERSION',
    'given to an update hook command: the harness and its versions before and after.',
  ],
  ['RESUME_DEBUG', 'set: say why the index could not be written (otherwise a listing carries on without it).'],
  ['NO_COLOR', 'set and not empty: no colour anywhere. FORCE_COLOR (other than 0) gives colour where no terminal is seen.'],
  ['PAGER', 'the pager for a transcript (default less).'],
  ['XDG_CACHE_HOME, XDG_CONFIG_HOME, XDG_STATE_HOME', "where resume's cache, config and state live (see FILES)."],
  ['TMUX', 'a session running in a tmux pane is reached by switching to that pane.'],
  ['RESUME_TMUX_SOCKET', "a tmux server to look in for a running session's pane (a socket path, or a name as tmux -L takes it)."],
  ['TMUX_TMPDIR', 'where tmux servers are looked for, as tmux reads it.'],
];

/** Variables read only by tests, benchmarks or resume's own processes: not for a person to set. */
export const INTERNAL_ENV = ['RESUME_PICK_DIR', 'RESUME_GC_EVERY', 'RESUME_GC_GROWTH', 'RESUME_DEBUG_GC', 'RESUME_PARALLEL_MIN_BYTES'];

const FILES: [string, string][] = [
  [
    '$RESUME_CACHE_DIR, else $XDG_CACHE_HOME/resume, else ~/.cache/resume',
    'the index: what was read of each session file, the listing and the rendered rows (mode 0600); rebuilt when missing, old or damaged, and safe to delete.',
  ],
  [
    '$XDG_CONFIG_HOME/resume/config, else ~/.config/resume/config',
    'the config (TOML): keys, fzf_opts, a table per harness ([claude] command, args), [[resume.on_update]] hooks. resume doctor names it.',
  ],
  [
    '$XDG_CONFIG_HOME/resume/sessions/, else ~/.config/resume/sessions/ (macOS: ~/Library/Application Support/resume/sessions/)',
    'snapshots of Claude sessions (name, tasks) written by resume snapshot.',
  ],
  [
    '$XDG_STATE_HOME/resume/, else ~/.local/state/resume/ (macOS: ~/Library/Application Support/resume/)',
    "the update hooks' state (hooks.json), their run log (runs.jsonl) and locks.",
  ],
  [
    '~/.config/systemd/user/resume-hooks.service, .path, .timer (macOS: ~/Library/LaunchAgents/resume-sessions.hooks.plist)',
    'the watcher written by resume hooks install.',
  ],
  [
    '$CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json',
    'the Stop hook merged in by resume init claude-hook --write (a backup beside it first).',
  ],
];

function tagged(list: [string, string][], term: (s: string) => string = bold): string[] {
  return list.flatMap(([k, v]) => ['.TP', term(k), roff(v)]);
}

/** resume(1) in roff (man(7) macros). */
export function render(prog: Command): string {
  const help = prog.createHelp();
  const name = prog.name();
  const cmds = visibleCommands(prog);
  const L: string[] = [
    `.\\" Generated by scripts/man.mjs from the command definitions (lib/man.ts); edit those, not this file.`,
    `.TH RESUME 1 "" "${name} ${VERSION}" "User Commands"`,
    '.nh',
    '.ad l',
    '.SH NAME',
    `${name} \\- ${roff(prog.description())}`,
    '.SH SYNOPSIS',
    bold(help.commandUsage(prog)),
    ...cmds.flatMap((c) => ['.br', bold(help.commandUsage(c))]),
    '.SH DESCRIPTION',
    ...DESCRIPTION.split('\n\n').flatMap((p) => ['.PP', roff(p)]),
    '.SH OPTIONS',
    ...options(help, prog),
    ...preformatted(afterHelp(prog)),
    '.SH COMMANDS',
  ];
  for (const c of cmds) {
    L.push(
      `.SS "${roff(help.commandUsage(c)).replace(/"/g, '\\(dq')}"`,
      roff(help.commandDescription(c)),
      ...options(help, c),
      ...preformatted(afterHelp(c)),
    );
  }
  L.push('.SH EXAMPLES', ...EXAMPLES.flatMap(([k, v]) => ['.TP', bold(k), roff(v)]));
  L.push('.SH EXIT STATUS', ...tagged(EXIT));
  L.push('.SH ENVIRONMENT', ...tagged(ENVIRONMENT));
  L.push('.SH FILES', ...tagged(FILES, (s) => `\\fI${roff(s)}\\fR`));
  L.push(
    '.SH SEE ALSO',
    `${['fzf(1)', 'tmux(1)', 'systemd.path(5)', 'launchd.plist(5)'].map((s) => roff(s).replace(/^([^(]+)/, '\\fB$1\\fR')).join(', ')}`,
    '.PP',
    roff('The README and docs/ of the package, and resume doctor, which shows where each harness is looked for.'),
  );
  return `${L.join('\n')}\n`;
}

export async function manPage(): Promise<string> {
  // (the text after each command's options flowed to the same width whatever terminal this runs
  // in: 80 columns less the 11 that man indents a preformatted block by, and one spare)
  fixHelpWidth(HELP_WIDTH - 12);
  try {
    return render(await program());
  } finally {
    fixHelpWidth(null);
  }
}
