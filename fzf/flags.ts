// The fzf command-line flags for each context, generated from (fzf version, keymap, fzf_opts).
//
//   picker  the `resume` picker (fzf/picker.ts): rows from `resume rows`, preview, action keys
//   tab     flags for fzf-tab / completion menus run by the shell integration: the keymap only
//           (no --with-shell, `/` left alone for fzf-tab, --no-sort kept)
//
// Every action and option is gated on the table in fzf/version.ts; a required one the installed fzf
// lacks is an exit-2 error naming the version to install, never a flag fzf would reject.
import shellQuote from 'shell-quote';
import { ExitError } from '../lib/errors.js';
import { quoteSh } from '../lib/util/quote.js';
import { previewWindow, tabPreviewWindow } from './layout.js';
import { type Feature, fmtVersion, has, MIN, type Version } from './version.js';

export type Keymap = 'default' | 'vim';
export type Context = 'picker' | 'tab';
export type PickAction = 'resume' | 'print' | 'fork' | 'copy';

/** The prompt of each vim mode. The mode lives only in the prompt, so the two must differ. */
export const INSERT_PROMPT = '> ';
export const NORMAL_PROMPT = 'N> ';

/** Marker printed by print(...) (fzf >= 0.53) before the selected row, one per action key. */
export const ACTION_MARK = 'resume:';

/** Keys of the picker (both keymaps; vim mode adds its letters). */
export const KEYS = {
  print: 'ctrl-y',
  fork: 'ctrl-o',
  copy: 'alt-c',
  hidden: 'ctrl-t',
  harness: 'ctrl-r',
  pager: 'ctrl-v',
  search: 'ctrl-s',
  preview: 'alt-p',
} as const;

export interface FlagOptions {
  version: Version;
  keys: Keymap;
  /** `fzf_opts` from the config: added after resume's own flags */
  fzfOpts: string | null;
  context: Context;
  /** picker: the words that run resume, already quoted for sh (absolute paths) */
  self?: string;
  /** picker: is `resume search --rows` available (deep-search key) */
  deepSearch?: boolean;
  /** NO_COLOR is set: fzf before 0.53 does not read it itself */
  noColor?: boolean;
  /** picker: the rows carry colour (--ansi) */
  ansi?: boolean;
  /** where fzf_opts came from, for messages */
  configFile?: string | null;
  /**
   * picker: fzf's `load` event replaces the first list once (fzf/picker.ts binds it). A key that
   * reloads the list unbinds it first, so a load that comes after the key cannot put the list from
   * before the key back on the screen.
   */
  loadOnce?: boolean;
}

export interface Flags {
  args: string[];
  /** extra environment for fzf (SHELL=sh where --with-shell is missing) */
  env: Record<string, string>;
  /** how the chosen action is reported: print(...) markers on stdout, or a file in $RESUME_PICK_DIR */
  report: 'print' | 'file';
}

function need(v: Version, f: Feature, what: string): void {
  if (!has(v, f)) {
    throw new ExitError(
      2,
      `${what} needs fzf >= ${MIN[f]}, but fzf ${fmtVersion(v)} is installed; install a newer fzf (https://github.com/junegunn/fzf/releases) or set RESUME_FZF to one`,
    );
  }
}

/** fzf_opts split into words like a shell would (no expansion); operators are refused. */
export function splitOpts(s: string | null, file?: string | null): string[] {
  if (!s?.trim()) return [];
  const where = file ? `config ${file}: ` : '';
  // Keep `$NAME` literal: fzf receives the words exactly as written.
  const parsed = shellQuote.parse(s, (name: string) => `$${name}`);
  const out: string[] = [];
  for (const p of parsed) {
    if (typeof p === 'string') out.push(p);
    else if ('pattern' in p && typeof p.pattern === 'string') out.push(p.pattern);
    else throw new ExitError(2, `${where}'fzf_opts' must be fzf options only, without shell operators (${JSON.stringify(s)})`);
  }
  return out;
}

/** Letters that act in vim normal mode (and type into the query in insert mode). */
export function normalLetters(context: Context): string[] {
  const l = ['j', 'k', 'g', 'G', 'h', 'l', 'w', 'b', '0', '$', 'x', 'D', 'J', 'K', 'p', 'q', 'i', 'a', 'A', 'I', 'S'];
  if (context === 'picker') l.push('y', '/');
  return l;
}

interface ModeKey {
  key: string;
  insert: string;
  normal: string;
  /** what the key does on an fzf without transform/$FZF_PROMPT (one meaning in both modes) */
  fallback: string;
}

/** The vim-mode bindings: `--prompt` and the `--bind` arguments. */
export function vimBinds(v: Version, context: Context, accept: (a: PickAction) => string): string[] {
  need(v, 'startEvent', 'keys = "vim"');
  need(v, 'unbind', 'keys = "vim"');
  need(v, 'rebind', 'keys = "vim"');
  need(v, 'changePrompt', 'keys = "vim"');
  need(v, 'firstLast', 'keys = "vim"');
  need(v, 'previewHalfPage', 'keys = "vim"');
  const letters = normalLetters(context);
  const set = letters.join(',');
  const toNormal = `rebind(${set})+change-prompt(${NORMAL_PROMPT})`;
  const toInsert = `unbind(${set})+change-prompt(${INSERT_PROMPT})`;
  const normal: Record<string, string> = {
    j: 'down',
    k: 'up',
    g: 'first',
    G: 'last',
    h: 'backward-char',
    l: 'forward-char',
    w: 'forward-word',
    b: 'backward-word',
    '0': 'beginning-of-line',
    $: 'end-of-line',
    x: 'delete-char',
    D: 'kill-line',
    J: 'preview-half-page-down',
    K: 'preview-half-page-up',
    p: 'toggle-preview',
    q: 'abort',
    i: toInsert,
    a: `forward-char+${toInsert}`,
    A: `end-of-line+${toInsert}`,
    I: `beginning-of-line+${toInsert}`,
    S: `clear-query+${toInsert}`,
  };
  if (context === 'picker') {
    normal.y = accept('print');
    normal['/'] = `clear-query+${toInsert}`;
  }
  const modal: ModeKey[] = [
    { key: 'esc', insert: toNormal, normal: 'abort', fallback: toNormal },
    { key: 'ctrl-d', insert: 'delete-char', normal: 'half-page-down', fallback: 'half-page-down' },
    { key: 'ctrl-u', insert: 'unix-line-discard', normal: 'half-page-up', fallback: 'half-page-up' },
    { key: 'ctrl-f', insert: 'forward-char', normal: 'page-down', fallback: 'page-down' },
    { key: 'ctrl-b', insert: 'backward-char', normal: 'page-up', fallback: 'page-up' },
  ];
  const args = [`--prompt=${INSERT_PROMPT}`, `--bind=start:unbind(${set})`];
  for (const l of letters) args.push(`--bind=${l}:${normal[l]}`);
  const byPrompt = has(v, 'transform') && has(v, 'envPrompt');
  for (const m of modal) {
    if (byPrompt) {
      // The mode is read from the prompt at the moment the key is pressed.
      const cmd = `if [ "$FZF_PROMPT" = ${quoteSh(NORMAL_PROMPT)} ]; then echo ${quoteSh(m.normal)}; else echo ${quoteSh(m.insert)}; fi`;
      args.push(`--bind=${m.key}:transform:${cmd}`);
    } else {
      args.push(`--bind=${m.key}:${m.fallback}`);
    }
  }
  return args;
}

/**
 * The header naming the keys: two short lines that fit 80 columns (fzf indents them by two). Keys
 * left out for lack of room (vim mode: alt-c copy, p preview) are in the README.
 */
export function headerLine(keys: Keymap, deepSearch: boolean): string {
  const l1 =
    keys === 'vim'
      ? ['esc normal', 'i insert', 'enter resume', 'y print', `${KEYS.fork} fork`, 'q quit']
      : ['enter resume', `${KEYS.print} print`, `${KEYS.fork} fork`, `${KEYS.copy} copy`, `${KEYS.pager} transcript`];
  const l2 = [`${KEYS.hidden} hidden`, `${KEYS.harness} harness`];
  if (deepSearch) l2.push(`${KEYS.search} deep search`);
  l2.push(keys === 'vim' ? `${KEYS.pager} transcript` : `${KEYS.preview} preview`);
  return `${l1.join(' · ')}\n${l2.join(' · ')}`;
}

/** How an accepting key reports which action was chosen. */
export function acceptWith(v: Version): (a: PickAction) => string {
  if (has(v, 'print')) return (a) => (a === 'resume' ? 'accept' : `print(${ACTION_MARK}${a})+accept`);
  need(v, 'executeSilent', 'the picker');
  return (a) => (a === 'resume' ? 'accept' : `execute-silent(printf %s ${a} > "$RESUME_PICK_DIR/action")+accept`);
}

export function fzfFlags(o: FlagOptions): Flags {
  const v = o.version;
  const user = splitOpts(o.fzfOpts, o.configFile);
  if (o.keys === 'vim' && user.some((a) => a === '--prompt' || a.startsWith('--prompt='))) {
    throw new ExitError(
      2,
      `${o.configFile ? `config ${o.configFile}: ` : ''}'fzf_opts' sets --prompt, but keys = "vim" keeps the mode in the prompt; remove --prompt from fzf_opts`,
    );
  }
  const accept = acceptWith(v);
  const env: Record<string, string> = {};

  if (o.context === 'tab') {
    // fzf-tab's preview (of `resume preview`) hidden where the picker puts it below the list
    // (alt-p shows it): beside the list in 80 columns it left no room for any title, and below it
    // in fzf-tab's few lines, no room for the list
    const args = ['--no-sort', tabPreviewWindow(has(v, 'previewAlt')), `--bind=${KEYS.preview}:toggle-preview`];
    if (o.keys === 'vim') args.push(...vimBinds(v, 'tab', accept));
    return { args: [...args, ...user], env, report: has(v, 'print') ? 'print' : 'file' };
  }

  need(v, 'layout', 'the picker');
  need(v, 'reload', 'the picker');
  const self = o.self;
  if (!self) throw new Error('fzfFlags: picker needs `self`');
  const deep = !!o.deepSearch;
  // resume matches and orders the list itself (lib/select/rank.ts, the rules of `resume WORDS`):
  // fzf draws it and reloads it as the query changes (--disabled: fzf filters nothing)
  need(v, 'disabled', 'the picker');
  const args = [
    '--delimiter=\\t',
    '--with-nth=2..',
    '--no-sort',
    '--disabled',
    '--no-hscroll',
    '--layout=reverse',
    '--no-multi',
    '--header-lines=1',
    `--header=${headerLine(o.keys, deep)}`,
    // (the preview starts with where the typed words are: the prompt they name, or during deep
    // search their evidence; preview --search tells which by the picker's state)
    `--preview=${self} preview {1} --search {q}`,
    previewWindow(has(v, 'previewAlt')),
  ];
  if (has(v, 'withShell')) args.push('--with-shell=sh -c');
  else env.SHELL = 'sh';
  if (o.noColor) args.push('--no-color');
  if (o.ansi) args.push('--ansi');
  const reload = (cmd: string) => `${o.loadOnce ? 'unbind(load)+' : ''}reload(${cmd})`;
  args.push(
    `--bind=change:${reload(`${self} __feed --query {q}`)}`,
    `--bind=${KEYS.print}:${accept('print')}`,
    `--bind=${KEYS.fork}:${accept('fork')}`,
    `--bind=${KEYS.copy}:${accept('copy')}`,
    `--bind=${KEYS.hidden}:${reload(`${self} __feed --toggle-hidden --query {q}`)}`,
    `--bind=${KEYS.harness}:${reload(`${self} __feed --next-harness --query {q}`)}`,
    `--bind=${KEYS.pager}:execute(${self} __transcript {1} > /dev/tty)`,
  );
  // (the state is changed before the reload, and fzf waits for it: a key typed right after cannot
  // stop it, as it stops a reload)
  if (deep)
    args.push(`--bind=${KEYS.search}:execute-silent(${self} __feed --toggle-deep --state-only)+${reload(`${self} __feed --query {q}`)}`);
  args.push(`--bind=${KEYS.preview}:toggle-preview`);
  if (o.keys === 'vim') args.push(...vimBinds(v, 'picker', accept));
  return { args: [...args, ...user], env, report: has(v, 'print') ? 'print' : 'file' };
}
