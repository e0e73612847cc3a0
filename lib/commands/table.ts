// The command table: every command's name, arguments and options (with their help and the kind of
// their values) and its handler, loaded when the command runs. Everything that knows the command line
// reads it from here: the commander program (lib/cli.ts), the lean start-up path of `rows`, `ls`,
// `preview` and `__complete` (lib/fast-rows.ts), completion of commands, options and values in every
// shell (lib/commands/complete.ts), `--help` and the man page (lib/man.ts, through the program).
//
// Pure data and no commander: dist/rows.cjs reads it on every listing. The handlers' imports are
// left out of that bundle (scripts/build.mjs), which runs its commands without them.
import type { App } from '../app.js';
import { JSON_FIELDS_HELP } from '../output.js';
import { HARNESSES } from '../types.js';

export const VERSION = '0.1.0';

/** What a handler is given: the arguments in their declared order, the options by name, the words after `--`. */
export interface Call {
  args: unknown[];
  /** by commander's attribute name: `--dry-run` is `dryRun`, `-n` is `n` */
  opts: Record<string, unknown>;
  /** the words after the first `--` on the command line (they go to the harness) */
  tail: string[];
}
export type Handler = (app: App, call: Call) => unknown;

/**
 * What TAB offers for a value: `harnesses` (a comma-separated list of harness names), `dirs` (the
 * shell's own directory completion: shell/<shell>/), `sessions` (the session word: id prefix or
 * words), or these values with their descriptions.
 */
export type Values = 'harnesses' | 'dirs' | 'sessions' | Readonly<Record<string, string>>;

export interface Opt {
  long?: `--${string}`;
  short?: `-${string}`;
  /** the value's name as help shows it (`<names>`); none: a switch */
  value?: `<${string}>`;
  help: string;
  /** `count`: a whole number, 0 or more; `repeat`: may be given again, the values collected; `version`: prints VERSION */
  kind?: 'count' | 'repeat' | 'version';
  default?: string;
  values?: Values;
}

export interface Arg {
  /** as commander takes it: `<key>`, `[key]`, `[words...]` */
  name: string;
  help: string;
  values?: Values;
}

export interface Cmd {
  name: string;
  description: string;
  /** left out of --help, the man page and completion's command names (resume's own plumbing) */
  hidden?: boolean;
  args?: Arg[];
  options?: Opt[];
  /** what --help prints after the options */
  after?: string;
  run?: () => Promise<Handler>;
  commands?: Cmd[];
  /** no note about a HOME that is not there (its stderr is shown by a picker, a shell or a hook, or it uses no index) */
  quiet?: boolean;
  /** any word is an argument, options too, and there is no --help (__complete) */
  raw?: boolean;
}

/** -a/--all, --harness, --dir: on every command that lists sessions, and on the program. */
export const FILTERS: Opt[] = [
  { short: '-a', long: '--all', help: 'include hidden sessions (subagents, print-mode, SDK, exec, archived, empty)' },
  {
    long: '--harness',
    value: '<names>',
    help: `only these harnesses, comma-separated: ${HARNESSES.join(', ')}`,
    values: 'harnesses',
  },
  { long: '--dir', value: '<dir>', help: 'only sessions whose directory is DIR or below (. = here)', values: 'dirs' },
];

const DRY_RUN = (help: string): Opt => ({ long: '--dry-run', help });
const JSON_OPT = (help: string): Opt => ({ long: '--json', help });
const SHELLS = { zsh: 'zsh integration', bash: 'bash integration', fish: 'fish integration' };
const QUERY_HELP = 'id, id prefix (4+ characters), transcript path, words, or a directory (. = here)';

const OUTDATED_FIELDS = `
JSON fields (--json: an array, [] when none; one object per session, these names exactly):
  session              the Claude session id
  pid                  the claude process
  name                 its /rename name, or null
  cwd                  its working directory, or null
  version              the version its registry file names (as written), or null
  installed            the installed claude version
  status               the registry status as written (idle, busy, waiting, shell, …), or null
  busy                 true unless status is exactly "idle"
  pane                 TMUX_PANE or HERDR_PANE_ID from the process's own environment; "" when unknown
  pane_kind            "tmux", "herdr" or null
  version_unparseable  true when version is not plain dotted numbers: listed, never guessed

The installed version is the target of ~/.local/bin/claude when it links into a versions
directory, else the output of \`claude --version\`. Versions compare numerically (2.1.100 > 2.1.99).
Exit 0 whether or not anything is outdated; 2 when the installed version cannot be told.`;

const RESTART_AFTER = `
Safe to stop means, re-checked every few seconds until the timeout: the same process (start time),
registry status exactly "idle", the pane's foreground process, and an empty input line. A session
that is an ancestor of this command, or claimed by two panes, is refused. The sequence: snapshot,
SIGTERM, wait for the exit and the registry file to go and for the pane's shell to hold the
foreground again, refuse if the session runs again by then, clear the line, type this resume by
absolute path (\`<node> <resume> <id>\`), confirm the session registered again. Panes are found through the process tree on the tmux server named by
the process's own TMUX variable (without one, every server of the user is asked); TMUX_PANE is a
fallback (noted). herdr panes are not driven. Process facts: /proc on Linux, ps(1) elsewhere.
Exit 0: all resumed or skipped; 1: a failure, timeout, vanished pane or refusal; 2: bad usage, or
a --dry-run whose plan holds a refusal.`;

const HOOKS_AFTER = `
Configure in the config file (resume doctor names it):
  # resume restart --outdated (timeout_seconds default 1800)
  [[resume.on_update]]
  harness = "claude"
  action = "restart"
  # a command: its argv, no shell (timeout_seconds default 300)
  [[resume.on_update]]
  harness = "claude"
  command = ["/usr/bin/notify-send", "claude updated"]`;

const HOOKS_RUN_AFTER = `
Hooks run in config order once the version has settled (two reads agree, up to 5 re-reads); a
command gets RESUME_HARNESS, RESUME_OLD_VERSION and RESUME_NEW_VERSION. The new version is recorded
after all have run; SIGINT, SIGTERM or SIGHUP stops with exit 1 and records nothing. Up to 3 passes
under a lock; a second run waits its turn. An unfinished restart is retried by later runs, 3 attempts in all. Each hook is a line
in runs.jsonl in the state directory, with what fired it (--trigger: the installed watcher passes
"watcher"; by hand it is "manual"). Exit 0: baseline, unchanged, or every hook succeeded; 1: a hook
failed, the version did not settle or cannot be told, or a signal; 2: a
bad config.`;

const HOOKS_INSTALL_AFTER = `
Linux: resume-hooks.service (oneshot: resume hooks run), resume-hooks.path (the claude command and,
for the native installer, its versions directory; else the file it resolves to: nothing that
changes with each version) and resume-hooks.timer (every 30 minutes) in ~/.config/systemd/user/;
then systemctl --user daemon-reload and enable --now when a user bus is there, else it says what to
run. macOS: ~/Library/LaunchAgents/resume-sessions.hooks.plist (WatchPaths, every 30 minutes), loaded
with launchctl bootstrap. Absolute paths throughout; safe to repeat (only what differs is
rewritten). Records the baseline version when none is recorded, so the first update fires.`;

const UNINSTALL_AFTER = `
In order: the lines that load the shell integration (resume init zsh|bash|fish in ~/.zshrc,
~/.bashrc, ~/.profile, fish's config.fish or conf.d: resume never writes them, so they are named,
file and line, for you to remove); the Stop hook resume init claude-hook --write added to Claude
Code's settings.json (that entry only, after a backup; other settings stay); the watcher resume
hooks install wrote (stopped and disabled first with systemctl --user or launchctl); then the cache
(the index), the snapshot store and the state directory. A directory that holds files resume did not
write keeps them, and they are named. The config file and the harnesses' own files stay. Then:
npm uninstall -g resume-sessions.`;

/**
 * `resume [QUERY...]`, the program itself. Its options before FROM_ROOT may also stand before a
 * subcommand (DESIGN.md: shared options); the subcommand takes them when it declares them too.
 */
export const ROOT: Cmd = {
  name: 'resume',
  description: 'find and resume coding-agent sessions from anywhere',
  args: [
    {
      name: '[query...]',
      help: 'id, id prefix (4+ characters), transcript path, words, or a directory (. = here); arguments after -- go to the harness',
      values: 'sessions',
    },
  ],
  options: [
    ...FILTERS,
    JSON_OPT('JSON output (ls, show, search, doctor, outdated; on resume QUERY: with --dry-run, one object {harness,id,cwd,argv,env})'),
    // (taken off the command line wherever it stands before `--`: withoutDemo, below)
    { long: '--demo', help: 'use the bundled demo sessions instead of yours (also RESUME_DEMO=1)' },
    { short: '-V', long: '--version', help: 'output the version number', kind: 'version' },
    DRY_RUN('print the directory and command, run nothing, never prompt'),
    { short: '-p', long: '--print', help: 'print the shell line (cd DIR && COMMAND) instead of running it' },
    { long: '--copy', help: 'put the shell line on the clipboard instead of running it (says where on stderr)' },
    { long: '--fork', help: "the harness's native fork instead of a resume" },
    { long: '--cd', value: '<dir>', help: 'resume in DIR (a moved repository; DIR must exist)', values: 'dirs' },
    { long: '--shell', value: '<shell>', help: 'quote --print for zsh, bash or fish (default: RESUME_SHELL, else $SHELL)' },
  ],
  run: () => import('./resume.js').then((m) => m.run),
  commands: [
    {
      name: 'ls',
      description: 'list sessions, newest first',
      args: [{ name: '[dir]', help: 'only sessions whose directory is DIR or below, as --dir (. = here)', values: 'dirs' }],
      options: [
        ...FILTERS,
        { short: '-n', value: '<N>', help: 'at most N sessions (0: no limit)', kind: 'count' },
        JSON_OPT('one JSON array of session objects (fields below)'),
      ],
      after: JSON_FIELDS_HELP,
      run: () => import('./ls.js').then((m) => m.run),
    },
    {
      name: 'show',
      description: 'everything known about one session',
      args: [{ name: '<query...>', help: QUERY_HELP, values: 'sessions' }],
      options: [JSON_OPT('one JSON object (the fields of ls --json, below)')],
      after: JSON_FIELDS_HELP,
      run: () => import('./show.js').then((m) => m.run),
    },
    {
      name: 'rows',
      description: 'tab-separated rows for fzf, newest first (key, id, age, harness, dir, branch, title)',
      options: [
        ...FILTERS,
        { long: '--align', help: 'pad the visible columns to line up, as the picker shows them' },
        { long: '--status', help: "a status line first (empty key), for fzf's --header-lines=1" },
        { long: '--ansi', help: "colour the id and harness columns (for fzf's --ansi)" },
      ],
      quiet: true,
      run: () => import('./rows.js').then((m) => m.run),
    },
    {
      name: 'index',
      description: 'bring the index up to date (counts on stderr)',
      options: [{ long: '--rebuild', help: 'discard the index and parse every session file again' }],
      run: () => import('./index-cmd.js').then((m) => m.run),
    },
    {
      name: 'doctor',
      description: 'roots, counts per harness, unknown record types, fzf and shell status',
      options: [JSON_OPT('one JSON object for scripts')],
      run: () => import('./doctor.js').then((m) => m.run),
    },
    {
      name: 'init',
      description:
        'print the shell integration: eval "$(resume init zsh)", eval "$(resume init bash)", resume init fish | source; or the Claude Code Stop hook: resume init claude-hook [--write]',
      args: [{ name: '<shell>', help: 'zsh, bash or fish; or claude-hook', values: SHELLS }],
      options: [{ long: '--write', help: "claude-hook: merge the hook into Claude Code's settings.json (a backup first)" }],
      quiet: true,
      run: () => import('./init.js').then((m) => m.run),
    },
    {
      name: '__complete',
      hidden: true,
      raw: true,
      description: 'completion candidates for the shell integration: <value>\\t<description> rows',
      args: [{ name: '[words...]', help: 'the words after `resume`, the last one under the cursor' }],
      run: () => import('./complete.js').then((m) => m.run),
    },
    {
      name: 'resolve',
      description: 'print the key(s) QUERY names, one per line (exit 1 when several)',
      args: [{ name: '<query...>', help: QUERY_HELP, values: 'sessions' }],
      options: FILTERS,
      run: () => import('./resolve-cmd.js').then((m) => m.run),
    },
    {
      name: 'emit',
      description: 'print the command line that resumes KEY: cd DIR && COMMAND, quoted for the shell',
      args: [
        { name: '[key]', help: 'a session key (harness:id), id or id prefix; none: one key (or row) from stdin' },
        { name: '[args...]', help: 'after --: arguments for the harness' },
      ],
      options: [
        { long: '--shell', value: '<shell>', help: 'zsh, bash or fish (default: RESUME_SHELL, else $SHELL, else bash)' },
        { long: '--fork', help: "the harness's native fork instead of a resume" },
      ],
      run: () => import('./emit.js').then((m) => m.run),
    },
    {
      name: 'preview',
      description: 'the preview text for each KEY (the hidden first field of resume rows); none: keys or rows from stdin',
      args: [{ name: '[keys...]', help: 'harness:id, as in the first field of resume rows' }],
      options: [
        {
          long: '--search',
          value: '<query>',
          help: "start with where the query's words are in the session, as resume search shows them (in the picker while it names sessions: the prompt they name)",
        },
      ],
      quiet: true,
      run: () => import('./preview.js').then((m) => m.run),
    },
    {
      name: '__pick',
      hidden: true,
      description: 'pick a session in fzf and print its id',
      args: [{ name: '[query...]', help: 'the initial query' }],
      options: [
        ...FILTERS,
        {
          long: '--words',
          help: "the arguments are a command line's words after resume, as __complete takes them: the query is its words, the filters its filters",
        },
      ],
      run: () => import('./pick.js').then((m) => m.run),
    },
    {
      name: '__fzf-flags',
      hidden: true,
      description: 'the fzf flags for a context (picker or tab), one shell-quoted line',
      args: [{ name: '<context>', help: 'picker or tab' }],
      run: () => import('./fzf-flags.js').then((m) => m.run),
    },
    {
      name: '__transcript',
      hidden: true,
      description: 'the whole transcript of one session, readable and redacted, in $PAGER',
      args: [{ name: '<key>', help: 'harness:id' }],
      run: () => import('./transcript.js').then((m) => m.run),
    },
    {
      name: '__feed',
      hidden: true,
      description: "the picker's list for the typed query, or after a key changed its state (fzf reload)",
      options: [
        { long: '--query', value: '<query>', help: 'the typed query: the sessions it names, best first (as resume WORDS)', default: '' },
        { long: '--toggle-hidden', help: 'show or hide hidden sessions' },
        { long: '--next-harness', help: 'the next harness filter: all, then each harness, then all' },
        { long: '--toggle-deep', help: 'switch between naming sessions and deep search of every transcript' },
        { long: '--state-only', help: 'with --toggle-deep: change the state only and print nothing (the picker reloads next)' },
      ],
      run: () => import('./feed.js').then((m) => m.run),
    },
    {
      name: 'search',
      description: 'deep full-text search over whole transcripts (ranked, with evidence)',
      args: [{ name: '[words...]', help: 'words (case-insensitive, all must appear in one session); "quoted phrases" match as phrases' }],
      options: [
        ...FILTERS,
        { long: '--since', value: '<when>', help: 'sessions active since (2026-01-31, 7d, 3w, 12h)' },
        { long: '--until', value: '<when>', help: 'sessions started until (2026-01-31 = to the end of that day, 7d, …)' },
        { short: '-n', value: '<N>', help: 'at most N results (0: no limit)', kind: 'count' },
        JSON_OPT('one JSON array of results'),
        { long: '--copy', help: "put the best result's resume line on the clipboard (says where on stderr)" },
        { long: '--rows', help: 'fzf rows in `resume rows` format, best first (no words: every session, newest first)' },
      ],
      run: () => import('./search.js').then((m) => m.run),
    },
    {
      name: 'snapshot',
      description: "capture live Claude sessions' names and tasks (what their exit destroys); always exits 0",
      options: [{ long: '--quiet', help: 'print nothing (the form the Stop hook uses: resume init claude-hook)' }],
      quiet: true,
      run: () => import('./snapshot.js').then((m) => m.run),
    },
    {
      name: 'outdated',
      description: 'live Claude sessions running an older claude than the installed one (read-only)',
      options: [JSON_OPT('a JSON array (fields below)')],
      after: OUTDATED_FIELDS,
      run: () => import('./outdated.js').then((m) => m.run),
    },
    {
      name: 'restart',
      description: 'stop outdated live Claude sessions once idle and resume them in their tmux panes',
      options: [
        { long: '--outdated', help: 'act on the sessions `resume outdated` lists (required)' },
        { long: '--session', value: '<id>', help: 'only this session (id or prefix; repeatable)', kind: 'repeat' },
        DRY_RUN('print the plan (session, pane and how it was found, what it waits for); touch nothing'),
        {
          long: '--timeout',
          value: '<time>',
          help: 'how long to wait for each session to become safe to stop (30m, 90s, 1h)',
          default: '30m',
        },
      ],
      after: RESTART_AFTER,
      run: () => import('./restart.js').then((m) => m.run),
    },
    {
      name: 'hooks',
      description: 'update hooks ([[resume.on_update]]) fired when claude changes version: run, install, status',
      after: HOOKS_AFTER,
      commands: [
        {
          name: 'run',
          description: 'fire the hooks if claude changed version since the recorded one (the first run records a baseline)',
          after: HOOKS_RUN_AFTER,
          options: [
            {
              long: '--trigger',
              value: '<what>',
              help: 'what fired this run, for the audit trail: manual or watcher',
              default: 'manual',
            },
          ],
          run: () => import('./hooks.js').then((m) => m.run),
        },
        {
          name: 'install',
          description:
            'install the watcher that runs `resume hooks run` when claude changes and every 30 minutes (systemd user units; launchd on macOS)',
          options: [DRY_RUN('print the files that would be written and the commands that would run; change nothing')],
          after: HOOKS_INSTALL_AFTER,
          run: () => import('./hooks.js').then((m) => m.install),
        },
        {
          name: 'status',
          description: 'installed and loaded, the recorded versions, pending work, the last 5 runs',
          options: [JSON_OPT('one JSON object')],
          run: () => import('./hooks.js').then((m) => m.status),
        },
        {
          name: 'ack',
          description: 'acknowledge a failed unattended restart: status and doctor stop showing it',
          run: () => import('./hooks.js').then((m) => m.ack),
        },
      ],
    },
    {
      name: 'uninstall',
      description:
        "remove what resume wrote outside its cache (the Claude Stop hook, the update hooks' units; shell lines are named for you to remove), then its cache and stores",
      options: [DRY_RUN('say what would be removed; remove nothing')],
      after: UNINSTALL_AFTER,
      run: () => import('./uninstall.js').then((m) => m.run),
    },
  ],
};

/**
 * The program's --demo, taken off the command line wherever it stands before `--`: it decides which
 * roots the app reads, and the app is made before the command line is parsed (both paths).
 */
export function withoutDemo(argv: string[]): { demo: boolean; argv: string[] } {
  const dd = argv.indexOf('--');
  const rest = argv.filter((a, i) => !(a === '--demo' && (dd < 0 || i < dd)));
  return { demo: rest.length < argv.length, argv: rest };
}

/** The subcommand named `name` (not the program's own `help`). */
export function commandNamed(name: string, parent: Cmd = ROOT): Cmd | undefined {
  return parent.commands?.find((c) => c.name === name);
}

/** The flags as commander and --help write them: `-a, --all`, `--harness <names>`, `-n <N>`. */
export function flagsOf(o: Opt): string {
  const names = [o.short, o.long].filter(Boolean).join(', ');
  return o.value ? `${names} ${o.value}` : names;
}

/** The option's name in the handler's options, as commander names it: `--dry-run` is `dryRun`, `-n` is `n`. */
export function attributeOf(o: Opt): string {
  const name = (o.long ?? o.short ?? '').replace(/^-+/, '');
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A `count` value: a whole number, 0 or more; null for anything else. */
export function countOf(v: string): number | null {
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : null;
}
