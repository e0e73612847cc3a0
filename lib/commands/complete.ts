// `resume __complete -- WORDS...`: what the shell integration's TAB offers.
//
// WORDS are the words after `resume` on the command line, the last one being the word under the
// cursor (empty when the cursor follows a space). One row per candidate, `<value>\t<description>`;
// for sessions `<id>\t<display>`, newest first. The session word narrows by id when it is the start
// of an id, otherwise by text with the same rule as `resume WORDS` (every word in the directory,
// title, prompts, branch, harness or id). A query of several words (`resume rss bl<TAB>`) offers the
// sessions all of them name, and the chosen id takes the place of the word under the cursor
// (`resume rss e5655697` names the same session). After a word and a space nothing is offered (the
// query may be whole; zsh-autosuggestions' completion strategy then suggests nothing).
import type { App } from '../app.js';
import { makeApp } from '../app.js';
import { printCandidates } from '../index/rowbin.js';
import { type Candidate, candidate, candidateColumns, candidateParts, label } from '../output.js';
import { applyFilters, type Filters, parseHarnesses, resolveDir, shortIds } from '../select/filter.js';
import { namedBy } from '../select/find.js';
import { fold, fromWord } from '../select/rank.js';
import { looksLikePath, type PromptsOf, resolve } from '../select/resolve.js';
import { HARNESSES, type Session } from '../types.js';
import { tildify } from '../util/paths.js';
import { sanitize } from '../util/redact.js';
import { writeOut } from '../util/stdout.js';
import { clip, oneLine } from '../util/text.js';
import { age } from '../util/time.js';
import { meantQuery, noSessionMatches } from './common.js';
import { type Call, type Cmd, commandNamed, type Opt, ROOT, type Values } from './table.js';

interface SessionCandidatesOptions {
  home: string;
  /** the query's words before the word under the cursor (SessionWord.before) */
  before?: string[];
  now?: number;
  filters?: Filters;
  shorts?: Map<string, string>;
  /** resolve's `prompts` */
  prompts?: PromptsOf;
}

/**
 * `<short or full id>\t<display>` rows for the sessions the word names, newest first. `shorts`: the
 * short ids when `all` is not every session (lib/index/holding.ts: the sessions that may match).
 */
export function sessionCandidates(word: string, all: Session[], o: SessionCandidatesOptions): Candidate[] {
  const { home, now = Date.now(), filters = {}, shorts = shortIds(all), prompts, before = [] } = o;
  const shown = applyFilters(all, filters);
  const low = word.toLowerCase();
  let hits: Session[];
  if (word === '') hits = shown;
  else {
    hits = before.length ? [] : shown.filter((s) => s.id.toLowerCase().startsWith(low));
    if (hits.length === 0) {
      const r = resolve([...before, word], shown, { home, prompts });
      hits = r.kind === 'one' ? [r.session] : r.kind === 'none' ? [] : r.candidates;
    }
  }
  const shows = promptShowing(word, prompts);
  const rows = hits.map((s) => {
    const short = shorts.get(s.id) ?? s.id;
    // A typed id prefix longer than the short id keeps matching: offer the whole id then.
    const value = word.length > short.length && s.id.toLowerCase().startsWith(low) ? s.id : short;
    const dir = oneLine(tildify(s.cwd, home) || '?');
    return { value, parts: candidateParts(age(s.updated ?? s.started, now), s.harness, dir, s.branch ?? '', shows(s, dir)) };
  });
  const cols = candidateColumns(rows.map((r) => r.parts));
  return rows.map((r) => candidate(r.value, r.parts, cols));
}

/** characters of the prompt a word named a session from that a candidate shows before its title */
const WORD_SHOWN = 30;

/**
 * What a candidate shows of its session: its label; when the word named it from a prompt and its
 * label, directory, branch and harness do not show the word (nor is the word its id's start), that
 * prompt from the word on first, then ` · ` and the label (`…fulfilOrder in checkout.ts · Webhook
 * retry`). A list of titles none of which holds the word typed does not say why each is offered;
 * the prompt alone makes a fork and its source, which share their prompts, look the same.
 */
function promptShowing(word: string, prompts: SessionCandidatesOptions['prompts']): (s: Session, dir: string) => string {
  const w = fold(word);
  let got: Map<string, string[]> | null = null;
  return (s, dir) => {
    const l = label(s);
    if (!w || !prompts || looksLikePath(word) || s.id.toLowerCase().startsWith(w)) return l;
    if ([l, dir, s.branch ?? '', s.harness].some((t) => fold(t).includes(w))) return l;
    let p: string | undefined;
    if (prompts.first) p = prompts.first(s.key, w);
    else {
      got ??= prompts([word]);
      p = got.get(s.key)?.find((x) => fold(x).includes(w));
    }
    return p ? `${oneLine(sanitize(clip(fromWord(p, w), WORD_SHOWN)))} · ${l}` : l;
  };
}

/** The session word to complete (the word under the cursor where a QUERY goes), with the filters on the line. */
export interface SessionWord {
  word: string;
  /** the query's words already on the line, before it */
  before: string[];
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
  { word, before, filters: f }: SessionWord,
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
  if (!before.length && 'bin' in got && printCandidates(got.bin, word, f, { readNames: got.names, now, write, tape: got.tape })) {
    got.keep?.();
    return;
  }
  // a word: the sessions it may name, as `resume WORDS` finds them (find.ts namedBy), every prompt
  // looked in (the listing keeps the first and last only); a path, by its sessions' own
  const n = await namedBy(app, [...before, word], { shown: true });
  const found = sessionCandidates(word, n.sessions, {
    home: app.ctx.home,
    before,
    now,
    filters: f,
    shorts: n.shorts,
    prompts: looksLikePath(word) ? undefined : n.prompts,
  });
  if (found.length || word === '' || looksLikePath(word)) {
    write(candidateLines(found));
    return;
  }
  // none: a message line (no value) says so, and what the words probably meant (zsh shows it; a
  // path falls back to its directories instead)
  const query = [...before, word];
  const meant = await meantQuery(app, query, f, !!f.all);
  write(`\t${noSessionMatches(query, meant)}\n`);
}

/**
 * The candidates as the shell integration reads them: `<value>\t<description>` a line. (A line with
 * no value, `\t<text>`, is a message in place of candidates: printWordCandidates.)
 */
export function candidateLines(rows: Candidate[]): string {
  return rows.map((r) => `${r.value}\t${r.desc}\n`).join('');
}

function optionRows(cmd: Cmd, word: string): Candidate[] {
  const rows: Candidate[] = [];
  for (const o of cmd.options ?? []) {
    const name = o.long ?? o.short;
    if (name?.startsWith(word)) rows.push({ value: name, desc: oneLine(o.help) });
  }
  if (word.startsWith('--')) {
    for (const name of ['--help'])
      if (name.startsWith(word) && !rows.some((r) => r.value === name)) rows.push({ value: name, desc: 'show help' });
  }
  return rows;
}

function findOption(cmd: Cmd, token: string): Opt | undefined {
  return cmd.options?.find((o) => o.long === token || o.short === token);
}

const takesValue = (o: Opt | undefined) => !!o?.value;

/** What the table offers for a value (an option's or an argument's); none: nothing cheap to offer. */
function valuesFor(values: Values | undefined, word: string): Candidate[] {
  if (values === 'harnesses') {
    // a comma-separated list: complete the last element
    const head = word.slice(0, word.lastIndexOf(',') + 1);
    const tail = word.slice(head.length);
    const taken = new Set(head.split(',').filter(Boolean));
    return HARNESSES.filter((h) => !taken.has(h) && h.startsWith(tail)).map((h) => ({ value: head + h, desc: 'harness' }));
  }
  // (directories: the shell's own completion, shell/<shell>/; sessions: the session word)
  if (values === undefined || typeof values === 'string') return [];
  return Object.entries(values)
    .filter(([v]) => v.startsWith(word))
    .map(([value, desc]) => ({ value, desc }));
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

/** Where the words before the cursor leave the line: the command, bare words, an option awaiting its value. */
interface Walk {
  cmd: Cmd;
  /** the words that are neither the subcommand nor options or their values */
  bare: string[];
  pending: Opt | undefined;
  /** options already on the line (long name → value, or true), to narrow the sessions offered */
  given: Map<string, string | true>;
}

/** Walk the words before the cursor: options (and their values), the subcommand, bare words. */
function walkWords(before: string[]): Walk {
  const walk: Walk = { cmd: ROOT, bare: [], pending: undefined, given: new Map() };
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
    if (walk.cmd === ROOT && walk.bare.length === 0) {
      const sub = commandNamed(w);
      if (sub) {
        walk.cmd = sub;
        continue;
      }
    }
    walk.bare.push(w);
  }
  return walk;
}

/** An option word (`--dir`, `--dir=x`, `-a`): noted as given; one whose value follows awaits it. */
function optionWord(walk: Walk, w: string): void {
  const eqAt = w.indexOf('=');
  const o = findOption(walk.cmd, eqAt > 0 ? w.slice(0, eqAt) : w);
  if (o?.long) walk.given.set(o.long, eqAt > 0 ? w.slice(eqAt + 1) : true);
  if (o && takesValue(o) && eqAt < 0) walk.pending = o;
}

/** What TAB offers for these words: candidates, or the session word whose sessions printWordCandidates writes. */
export async function candidates(app: App, words: string[]): Promise<{ app: App; found: Candidate[] | SessionWord }> {
  const cur = words.at(-1) ?? '';
  if (words.slice(0, -1).includes('--')) return { app, found: [] }; // arguments for the harness
  const line = demoOf(app, words.slice(0, -1));
  app = line.app;
  const { cmd, bare, pending, given } = walkWords(line.words);
  // `--harness cl` or `--harness= cl` (bash)
  if (pending) return { app, found: valuesFor(pending.values, cur) };
  const eq = cur.match(/^(--[^=]+)=(.*)$/s);
  if (eq) {
    const [, name = '', value = ''] = eq;
    const o = findOption(cmd, name);
    return { app, found: o && takesValue(o) ? valuesFor(o.values, value).map((c) => ({ ...c, value: `${name}=${c.value}` })) : [] };
  }
  // (--demo is one of the program's options: lib/commands/table.ts)
  if (cur.startsWith('-')) return { app, found: optionRows(cmd, cur) };
  const arg = cmd.args?.[0];
  // a word after the query's words: a query takes several (`<query...>`), a word and a space may end it
  if (bare.length > 0 && (cur === '' || arg?.values !== 'sessions' || !arg.name.includes('...'))) return { app, found: [] };
  if (arg?.values === 'sessions') return { app, found: { word: cur, before: bare, filters: filtersGiven(given, app.ctx.home) } };
  return { app, found: valuesFor(arg?.values, cur) };
}

/**
 * The query and filters of a command line's words (as `__complete` takes them, the word under the
 * cursor last): `__pick --words`, which bash's TAB opens on several sessions, so the picker starts
 * on what was typed, every word of the query and the filters.
 */
export function lineQuery(app: App, words: string[]): { app: App; query: string[]; filters: Filters } {
  const cut = words.indexOf('--');
  const line = demoOf(
    app,
    (cut < 0 ? words : words.slice(0, cut)).filter((w) => w !== ''),
  );
  const { bare, given } = walkWords(line.words);
  return { app: line.app, query: bare, filters: filtersGiven(given, line.app.ctx.home) };
}

/** `--demo` on the line: the demo's app (unless this one is), and the words without it. */
function demoOf(app: App, words: string[]): { app: App; words: string[] } {
  if (!words.includes('--demo')) return { app, words };
  return {
    app: app.demo ? app : makeApp({ demo: true, env: process.env, distDir: app.distDir }),
    words: words.filter((w) => w !== '--demo'),
  };
}

/** `resume __complete -- WORDS...` (the lean path runs it too: lib/fast-rows.ts). */
export async function run(app: App, call: Call): Promise<void> {
  const [words] = call.args as [string[]];
  const c = await candidates(app, words);
  // written with write(2): the rows' blocks are written over once written
  if (Array.isArray(c.found)) writeOut(candidateLines(c.found));
  else await printWordCandidates(c.app, c.found, writeOut);
}
