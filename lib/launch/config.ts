// The config file (TOML): `$XDG_CONFIG_HOME/resume/config`, else `~/.config/resume/config`.
//
//   keys = "default" | "vim"        # picker key bindings
//   fzf_opts = "--height 60%"        # extra fzf options
//   [claude]                         # one table per harness
//   command = "vamos"                # the command (or alias/function) to run instead of the binary
//   args = ["--model", "opus"]       # arguments put right after the command
//   [[resume.on_update]]             # update hooks (lib/hooks/config.ts)
//
// An unknown key or a bad value is an exit-2 error naming the key, raised before anything runs; a
// file that cannot be read is a warning, and the defaults.
import fs from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { ExitError } from '../errors.js';
import { type OnUpdate, parseResumeTable } from '../hooks/config.js';
import { type Ctx, HARNESSES, type Harness } from '../types.js';
import { configFile } from '../util/paths.js';
import { shown } from '../util/quote.js';
import { CONTROL_CHARS, HAS_CONTROL } from '../util/text.js';
import { isTable, tomlType } from '../util/toml-value.js';

export interface HarnessConfig {
  /** replaces the harness binary (argv[0]); one word: a command, alias or function name, or a path */
  command: string | null;
  /** inserted right after the command, before the harness's own resume arguments */
  args: string[];
}

export interface Config {
  /** the file read, or null when there is none */
  file: string | null;
  keys: 'default' | 'vim';
  fzfOpts: string | null;
  harness: Partial<Record<Harness, HarnessConfig>>;
  /** `[[resume.on_update]]` entries (`resume hooks`), in config order */
  onUpdate?: OnUpdate[];
}

export const DEFAULT_CONFIG: Config = { file: null, keys: 'default', fzfOpts: null, harness: {} };

const TOP_KEYS = ['keys', 'fzf_opts', ...HARNESSES, 'resume'];
const HARNESS_KEYS = ['command', 'args'];

function bad(file: string, msg: string): ExitError {
  return new ExitError(2, `config ${shown(file)}: ${msg}`);
}

const CONTROL = HAS_CONTROL;

/** The TOML document, or ExitError(2) with the parser's line and column. */
function parseDoc(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const first = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
      throw bad(file, `line ${err.line}, column ${err.column}: ${first}`);
    }
    throw bad(file, err instanceof Error ? err.message : String(err));
  }
}

function checkCommand(file: string, h: Harness, key: string, hv: unknown): string {
  if (typeof hv !== 'string') throw bad(file, `'${key}' must be a string, not ${tomlType(hv)}`);
  if (hv.trim() === '') throw bad(file, `'${key}' must not be empty`);
  if (hv !== hv.trim() || CONTROL.test(hv))
    throw bad(
      file,
      `'${key}' must be one command name or path, without surrounding spaces or control characters (put arguments in '${h}.args')`,
    );
  if (hv.startsWith('-')) throw bad(file, `'${key}' must be a command, not an option (${showValue(hv)}; put options in '${h}.args')`);
  return hv;
}

function checkArgs(file: string, key: string, hv: unknown): string[] {
  if (!Array.isArray(hv)) throw bad(file, `'${key}' must be an array of strings, not ${tomlType(hv)}`);
  hv.forEach((a, i) => {
    if (typeof a !== 'string') throw bad(file, `'${key}[${i}]' must be a string, not ${tomlType(a)}`);
    if (a.includes('\u0000')) throw bad(file, `'${key}[${i}]' must not contain a NUL character`);
  });
  return hv as string[];
}

/** One harness's table ([claude], [codex], ...). */
function parseHarnessTable(file: string, h: Harness, v: unknown): HarnessConfig {
  if (!isTable(v)) throw bad(file, `'${h}' must be a table ([${h}]), not ${tomlType(v)}`);
  const hc: HarnessConfig = { command: null, args: [] };
  for (const [hk, hv] of Object.entries(v as Record<string, unknown>)) {
    const key = `${h}.${hk}`;
    if (!HARNESS_KEYS.includes(hk)) throw bad(file, `unknown key '${shown(key)}' (known: ${HARNESS_KEYS.join(', ')})`);
    if (hk === 'command') hc.command = checkCommand(file, h, key, hv);
    else hc.args = checkArgs(file, key, hv);
  }
  return hc;
}

/** Parse and check config text. Throws ExitError(2) naming the offending key. */
export function parseConfig(text: string, file: string): Config {
  const doc = parseDoc(text, file);
  const cfg: Config = { file, keys: 'default', fzfOpts: null, harness: {} };
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'on_update') throw bad(file, `'on_update' belongs in the [resume] table: write [[resume.on_update]], not [[on_update]]`);
    if (k === 'resume') {
      const hooks = parseResumeTable(v);
      if ('error' in hooks) throw bad(file, hooks.error);
      cfg.onUpdate = hooks;
      continue;
    }
    if (!TOP_KEYS.includes(k)) throw bad(file, `unknown key '${shown(k)}' (known: ${TOP_KEYS.join(', ')})`);
    if (k === 'keys') {
      if (v !== 'default' && v !== 'vim') throw bad(file, `'keys' must be "default" or "vim", not ${showValue(v)}`);
      cfg.keys = v;
    } else if (k === 'fzf_opts') {
      if (typeof v !== 'string') throw bad(file, `'fzf_opts' must be a string, not ${tomlType(v)}`);
      if (CONTROL.test(v)) throw bad(file, `'fzf_opts' must be one line without control characters`);
      cfg.fzfOpts = v;
    } else cfg.harness[k as Harness] = parseHarnessTable(file, k as Harness, v);
  }
  return cfg;
}

const UNSAFE_G = new RegExp(`[${CONTROL_CHARS}]`, 'g');

function showValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v).replace(UNSAFE_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return tomlType(v);
}

/** Config files that could not be read, already warned about: one line per run, however often it is read. */
const warned = new Set<string>();

/**
 * Read the config for this environment; no file means the defaults. A file that is there but cannot
 * be read (a directory in its place, no permission) is a one-line warning naming it, and the
 * defaults: nothing in it can be wrong, and every command still runs. Throws ExitError(2) on a bad
 * key or value (DESIGN.md).
 */
export function loadConfig(ctx: Ctx): Config {
  const r = readConfig(ctx);
  if ('config' in r) return r.config;
  if (!warned.has(r.file)) {
    warned.add(r.file);
    process.stderr.write(`resume: config ${shown(r.file)}: cannot read it (${r.unreadable}); using the defaults\n`);
  }
  return { ...DEFAULT_CONFIG };
}

/**
 * The config, or why the file there could not be read (its error code). Throws ExitError(2) on a bad
 * key or value. The demo reads the user's own file (ctx.userConfig) but keeps only how the picker
 * looks and acts (keys, fzf_opts): a harness's command or args would launch the real client in place
 * of the demo's stand-in on PATH (a `command` replaces the binary), and update hooks act on the real
 * installation.
 */
export function readConfig(ctx: Ctx): { config: Config } | { file: string; unreadable: string } {
  if (ctx.userConfig) {
    const r = readFile(ctx.userConfig);
    if (!('config' in r)) return r;
    return { config: { ...DEFAULT_CONFIG, file: r.config.file, keys: r.config.keys, fzfOpts: r.config.fzfOpts } };
  }
  return readFile(configFile(ctx));
}

function readFile(file: string): { config: Config } | { file: string; unreadable: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { config: { ...DEFAULT_CONFIG } };
    return { file, unreadable: code ?? (err as Error).message };
  }
  return { config: parseConfig(text, file) };
}

/** The argv to run: the config's command in place of the binary, its args right after it. */
export function applyConfig(argv: string[], harness: Harness, cfg: Config): string[] {
  const hc = cfg.harness[harness];
  const [bin, ...rest] = argv;
  if (!hc || bin === undefined) return argv;
  return [hc.command ?? bin, ...hc.args, ...rest];
}
