// `resume __complete -- WORDS...`: what the shell integration's TAB offers.
//
// WORDS are the words after `resume` on the command line, the last one being the word under the
// cursor (empty when the cursor follows a space). One row per candidate, `<value>\t<description>`;
// for sessions `<id>\t<display>`, newest first. The session word narrows by id when it is the start
// of an id, otherwise by text with the same rule as `resume WORDS` (every word in the directory,
// title, prompts, branch, harness or id). `resume` takes one session, so once a bare word is on the
// line nothing more is offered (and zsh-autosuggestions' completion strategy suggests nothing).
import type { Command, Option } from 'commander';
import type { App } from '../app.js';
import { makeApp } from '../app.js';
import { sessionsHolding } from '../index/holding.js';
import { allPrompts } from '../index/prompts.js';
import { printCandidates } from '../index/rowbin.js';
import { type Candidate, candidate, label } from '../output.js';
import { applyFilters, type Filters, parseHarnesses, resolveDir, shortIds } from '../select/filter.js';
import { checkedSessions } from '../select/find.js';
import { fold, parseQuery, wantedWords } from '../select/rank.js';
import { looksLikePath, resolve } from '../select/resolve.js';
import { HARNESSES, type Session } from '../types.js';
import { tildify } from '../util/paths.js';
import { writeOut } from '../util/stdout.js';
import { oneLine } from '../util/text.js';
import { age } from '../util/time.js';

/** Subcommands whose argument names a session (QUERY). */
const SESSION_ARG = new Set(['show', 'resolve']);
const SHELL_NAMES = ['zsh', 'bash', 'fish'];

interface SessionCandidatesOptions {
  home: string;
  now?: number;
  filters?: Filters;
  shorts?: Map<string, string>;
  prompts?: Map<string, string[]>;
}

/**
 * `<short or full id>\t<display>` rows for the sessions the word names, newest first. `shorts`: the
 * short ids when `all` is not every session (lib/index/holding.ts: the sessions that may match).
 */
export function sessionCandidates(word: string, all: Session[], o: SessionCandidatesOptions): Candidate[] {
  const { home, now = Date.now(), filters = {}, shorts = shortIds(all), prompts } = o;
  const shown = applyFilters(all, filters);
  const low = word.toLowerCase();
  let hits: Session[];
  if (word === '') hits = shown;
  else {
    hits = shown.filter((s) => s.id.toLowerCase().startsWith(low));
    if (hits.length === 0) {
      const r = resolve([word], shown, { home, prompts: prompts ? () => prompts : undefined });
      hits = r.kind === 'one' ? [r.session] : r.kind === 'none' ? [] : r.candidates;
    }
  }
  return hits.map((s) => {
    const short = shorts.get(s.id) ?? s.id;
    // A typed id prefix longer than the short id keeps matching: offer the whole id then.
    const value = word.length > short.length && s.id.toLowerCase().startsWith(low) ? s.id : short;
    const dir = oneLine(tildify(s.cwd, home) || '?');
    return candidate(value, [age(s.updated ?? s.started, now), s.harness, dir, s.branch ? `(${oneLine(s.branch)})` : '', label(s)]);
  });
}

/** The session word to complete (the word under the cursor where a QUERY goes), with the filters on the line. */
export interface SessionWord {
  word: string;
  filters: Filters;
}

/**
 * Write the sessions a session word offers, as candidateLines writes them: from the rendered rows
 * when nothing changed and the word is empty or starts an id (most TABs: rowbin.ts printCandidates;
 * for an empty word without filters, what that printed last while it stands: complete.out), else
 * from the listing, checked once.
 */
export async function printWordCandidates(
  app: App,
  { word, filters: f }: SessionWord,
  write: (b: string | Buffer) => void,
  now = Date.now(),
): Promise<void> {
  // TAB on an empty word offers every session: the candidates printed last time while they stand (complete.out)
  const kept = word === '' && !f.all && !f.harness && !f.dir;
  const got = await app.listingRows({
    quiet: true,
    dir: f.dir,
    ...(kept ? { rowsOut: { all: false, now, write, candidates: true } } : {}),
  });
  if ('printed' in got && got.printed) return;
  if ('bin' in got && printCandidates(got.bin, word, f, got.names, now, write, got.tape)) {
    got.keep?.();
    return;
  }
  // a word: only the sessions whose listing record holds it are parsed, when that can be told, and
  // every prompt is looked in as `resume WORDS` looks (the listing keeps the first and last only)
  const prompts = looksLikePath(word) ? undefined : allPrompts(app.ctx, wantedWords(parseQuery(word)));
  let held = 'bin' in got && !looksLikePath(word) ? sessionsHolding(app.ctx, [word], got.names()) : null;
  // a session that only a middle prompt names is not among them: then the whole listing
  if (held && prompts && promptOnly(prompts, word, held.sessions)) held = null;
  const rows = held
    ? sessionCandidates(word, app.named(held.sessions), { home: app.ctx.home, now, filters: f, shorts: held.shorts, prompts })
    : sessionCandidates(word, await checkedSessions(app), { home: app.ctx.home, now, filters: f, prompts });
  write(candidateLines(rows));
}

/** Does a prompt of a session outside `held` hold the word (folded as rank.ts folds)? */
function promptOnly(prompts: Map<string, string[]>, word: string, held: Session[]): boolean {
  const keys = new Set(held.map((s) => s.key));
  const w = fold(word);
  for (const [key, ps] of prompts) if (!keys.has(key) && ps.some((p) => fold(p).includes(w))) return true;
  return false;
}

/** The candidates as the shell integration reads them: `<value>\t<description>` a line. */
export function candidateLines(rows: Candidate[]): string {
  return rows.map((r) => `${r.value}\t${r.desc}\n`).join('');
}

function optionRows(cmd: Command, word: string): Candidate[] {
  const rows: Candidate[] = [];
  for (const o of cmd.options as readonly Option[]) {
    if (o.hidden) continue;
    const name = o.long ?? o.short;
    if (name?.startsWith(word)) rows.push({ value: name, desc: oneLine(o.description ?? '') });
  }
  if (word.startsWith('--')) {
    for (const name of ['--help'])
      if (name.startsWith(word) && !rows.some((r) => r.value === name)) rows.push({ value: name, desc: 'show help' });
  }
  return rows;
}

function findOption(cmd: Command, token: string): Option | undefined {
  return (cmd.options as readonly Option[]).find((o) => o.long === token || o.short === token);
}

const takesValue = (o: Option | undefined) => !!o && (o.required || o.optional);

/** Value completions for an option that takes one; null when there is nothing cheap to offer. */
function optionValues(o: Option, word: string): Candidate[] {
  if (o.long === '--harness') {
    // a comma-separated list: complete the last element
    const head = word.slice(0, word.lastIndexOf(',') + 1);
    const tail = word.slice(head.length);
    const taken = new Set(head.split(',').filter(Boolean));
    return HARNESSES.filter((h) => !taken.has(h) && h.startsWith(tail)).map((h) => ({ value: head + h, desc: 'harness' }));
  }
  if (o.argChoices) return o.argChoices.filter((c) => c.startsWith(word)).map((c) => ({ value: c, desc: '' }));
  return [];
}

/** -a/--all, --harness and --dir already on the line; a value that does not parse narrows nothing. */
function filtersGiven(given: Map<string, string | true>, home: string): Filters {
  const f: Filters = { all: given.has('--all') };
  const h = given.get('--harness');
  if (typeof h === 'string') {
    try {
      f.harness = parseHarnesses(h);
    } catch {
      /* the command itself will say what is wrong */
    }
  }
  const d = given.get('--dir');
  if (typeof d === 'string' && d) f.dir = resolveDir(d === '~' || d.startsWith('~/') ? home + d.slice(1) : d);
  return f;
}

/** Where the words before the cursor leave the line: the subcommand, bare words, an option awaiting its value. */
interface Walk {
  cmd: Command;
  bare: number;
  pending: Option | undefined;
  /** options already on the line (long name → value, or true), to narrow the sessions offered */
  given: Map<string, string | true>;
}

/** Walk the words before the cursor: options (and their values), the subcommand, bare words. */
function walkWords(program: Command, before: string[]): Walk {
  const walk: Walk = { cmd: program, bare: 0, pending: undefined, given: new Map() };
  let prev: string | undefined;
  for (const w of before) {
    const last = prev;
    prev = w;
    // bash splits `--harness=cl` at `=` (COMP_WORDBREAKS): `--harness`, `=`, then the value
    if (w === '=' && last !== undefined && takesValue(findOption(walk.cmd, last))) {
      walk.pending = findOption(walk.cmd, last);
      continue;
    }
    if (walk.pending) {
      if (walk.pending.long) walk.given.set(walk.pending.long, w);
      walk.pending = undefined;
      continue;
    }
    if (w.startsWith('-') && w.length > 1) {
      optionWord(walk, w);
      continue;
    }
    if (walk.cmd === program && walk.bare === 0) {
      const sub = program.commands.find((c) => c.name() === w || c.aliases().includes(w));
      if (sub) {
        walk.cmd = sub;
        continue;
      }
    }
    walk.bare++;
  }
  return walk;
}

/** An option word (`--dir`, `--dir=x`, `-a`): noted as given; one whose value follows awaits it. */
function optionWord(walk: Walk, w: string): void {
  const eqAt = w.indexOf('=');
  const o = findOption(walk.cmd, eqAt > 0 ? w.slice(0, eqAt) : w);
  if (o?.long) walk.given.set(o.long, eqAt > 0 ? w.slice(eqAt + 1) : true);
  if (o && takesValue(o) && eqAt < 0 && o.required) walk.pending = o;
}

/** What TAB offers for these words: candidates, or the session word whose sessions printWordCandidates writes. */
export async function candidates(program: Command, app: App, words: string[]): Promise<Candidate[] | SessionWord> {
  const cur = words.at(-1) ?? '';
  let before = words.slice(0, -1);
  if (before.includes('--')) return []; // arguments for the harness
  if (before.includes('--demo') && !app.demo) app = makeApp({ demo: true, env: process.env, distDir: app.distDir });
  before = before.filter((w) => w !== '--demo');

  const { cmd, bare, pending, given } = walkWords(program, before);
  if (pending) {
    // `--harness cl` or `--harness= cl` (bash)
    return optionValues(pending, cur);
  }
  const eq = cur.match(/^(--[^=]+)=(.*)$/s);
  if (eq) {
    const [, name = '', value = ''] = eq;
    const o = findOption(cmd, name);
    return o && takesValue(o) ? optionValues(o, value).map((c) => ({ ...c, value: `${name}=${c.value}` })) : [];
  }
  // (--demo is one of the program's options: lib/cli.ts)
  if (cur.startsWith('-')) return optionRows(cmd, cur);
  if (bare > 0) return [];
  if (cmd === program || SESSION_ARG.has(cmd.name())) return { word: cur, filters: filtersGiven(given, app.ctx.home) };
  if (cmd.name() === 'init') return SHELL_NAMES.filter((s) => s.startsWith(cur)).map((s) => ({ value: s, desc: `${s} integration` }));
  const arg = cmd.registeredArguments[0];
  if (arg?.argChoices) return arg.argChoices.filter((c) => c.startsWith(cur)).map((c) => ({ value: c, desc: '' }));
  return [];
}

export function register(program: Command, app: App): void {
  program
    .command('__complete', { hidden: true })
    .description('completion candidates for the shell integration: <value>\\t<description> rows')
    .argument('[words...]', 'the words after `resume`, the last one under the cursor')
    .allowUnknownOption(true)
    .helpOption(false)
    .action(async (words: string[]) => {
      const c = await candidates(program, app, words);
      // written with write(2): the rows' blocks are written over once written
      if (Array.isArray(c)) writeOut(candidateLines(c));
      else await printWordCandidates(app, c, writeOut);
    });
}
