// `resume [QUERY...]`: name a session (or choose among several) and start it again in its directory:
// through the shell integration (RESUME_EMIT_FILE), as a printed line (--print), described only
// (--dry-run), or run directly with the terminal attached.
import type { PickAction } from '../../fzf/flags.js';
import { pickerAvailable, pickSession } from '../../fzf/picker.js';
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { adapter } from '../harness/registry.js';
import { type Config, loadConfig } from '../launch/config.js';
import { type Plan, shellLine, writeEmitFile } from '../launch/emit.js';
import { execPlan } from '../launch/exec.js';
import { hereDir, placeSession } from '../launch/moved.js';
import { LiveError } from '../launch/plan.js';
import { forStdout, prepare, shellOf } from '../launch/prepare.js';
import { candidateLines } from '../present/candidates.js';
import { applyFilters, type Filters, shortIds } from '../select/filter.js';
import { type Lookup, lookup, type Named } from '../select/find.js';
import { queryText } from '../select/rank.js';
import { didYouMean, resolve } from '../select/resolve.js';
import type { Session } from '../types.js';
import { quotePosix, type ShellName } from '../util/quote.js';
import { oneLine } from '../util/text.js';
import { type FilterOpts, filtersOf, givenFilters, meantQuery, noMatch, out, scopeOf } from './common.js';
import { NO_SESSIONS } from './ls-list.js';
import { goLive } from './resume-live.js';
import { type Call, ROOT } from './table.js';

export interface LaunchOpts {
  fork?: boolean;
  dryRun?: boolean;
  print?: boolean;
  copy?: boolean;
  json?: boolean;
  shell?: string;
  cd?: string;
}

export interface Choice {
  /** the words typed, to fill the picker's query */
  query: string[];
  /** --dry-run: never prompt */
  dryRun: boolean;
  shorts: Map<string, string>;
  /** the command line's filters and every session: the picker lists them itself */
  filters?: Filters;
  all?: Session[];
  /** set when the picker chose: the key it was chosen with (resume, print the line, or fork) */
  action?: PickAction;
  /** set when the picker chose from the index's listing: the short id it showed */
  short?: string;
}

/**
 * Several sessions fit (or no query was given): the user chooses one in the fzf picker, with the
 * query filled in (Esc: exit 130; Enter on no match: exit 1). With no terminal, or under --dry-run,
 * the candidates are printed on stdout and the command ends with exit 1.
 */
export async function chooseAmong(app: App, candidates: Session[], c: Choice): Promise<Session> {
  if (candidates.length === 0) throw new ExitError(1, noneToChoose(c, app.ctx.home));
  if (!c.dryRun && pickerAvailable()) {
    const r = await pickSession(app, { query: queryText(c.query), filters: c.filters, sessions: c.all });
    c.action = r.action;
    c.short = r.short;
    return r.session;
  }
  out(candidateLines(candidates, c.shorts));
  const what = c.query.length ? `${candidates.length} sessions match '${oneLine(c.query.join(' '))}'` : `${candidates.length} sessions`;
  throw new ExitError(1, `${what}; name one by id prefix or more words`);
}

/**
 * Why there is nothing to choose from: no session on the machine, or none the filters leave (and
 * how many hidden ones they leave: `-a` shows those). Doctor is named only where neither explains it.
 */
function noneToChoose(c: Choice, home: string): string {
  if (c.all?.length === 0) return NO_SESSIONS.replace(/^resume: /, '');
  const f = c.filters ?? {};
  const scope = scopeOf(f, home);
  const hidden = c.all && !f.all ? applyFilters(c.all, { ...f, all: true }).length : 0;
  if (!scope && !hidden) return 'no sessions found (resume doctor shows where it looked)';
  return `no sessions${scope ? ` with ${scope}` : ''}${hidden ? ` (+${hidden} hidden: -a shows them)` : ''}`;
}

async function launch(s: Session, full: Plan, o: LaunchOpts, shell: ShellName, cfg: Config): Promise<void> {
  if (o.dryRun) {
    const { plan, withheld } = forStdout(full, cfg);
    if (o.json) {
      out(
        `${JSON.stringify(
          { harness: plan.harness, id: plan.id, cwd: plan.cwd, argv: plan.argv, env: plan.env, ...(withheld.length ? { withheld } : {}) },
          null,
          2,
        )}\n`,
      );
    } else {
      let text = `cwd   ${quotePosix(plan.cwd)}\nargv  ${plan.argv.map(quotePosix).join(' ')}\n`;
      for (const [k, v] of Object.entries(plan.env)) text += `env   ${k}=${quotePosix(v)}\n`;
      out(text);
    }
    return;
  }
  if (o.print) {
    out(`${shellLine(forStdout(full, cfg).plan, shell)}\n`);
    return;
  }
  if (o.copy) {
    // the clipboard is not a screen: the whole line, as the shell integration would run it
    const { copyText } = await import('../launch/clipboard.js');
    const where = copyText(shellLine(full, shell));
    process.stderr.write(`resume: copied the line that resumes ${s.id} to ${where}\n`);
    return;
  }
  // RESUME_EMIT_FILE is run by the shell integration at the user's prompt, not shown: the whole plan
  const emitFile = process.env.RESUME_EMIT_FILE;
  if (emitFile) {
    writeEmitFile(emitFile, shellLine(full, shell));
    return;
  }
  const cmd = cfg.harness[s.harness]?.command;
  const hint = cmd
    ? ` (it is the command configured for ${s.harness}; an alias or function runs only through the shell integration: resume init zsh|bash|fish)`
    : ` (is ${adapter(s.harness).label} installed?)`;
  // run by resume itself: with stdout not a terminal, without the config's permission-bypass flags
  const code = await execPlan(forStdout(full, cfg, 'run').plan, hint);
  process.exitCode = code;
}

interface RootOpts extends FilterOpts, LaunchOpts {}

export async function run(app: App, call: Call): Promise<void> {
  const [args] = call.args as [string[]];
  const o = call.opts as RootOpts;
  const { tail } = call;
  const query = args.slice(0, Math.max(0, args.length - tail.length));
  // Everything that can be refused without looking at sessions, before anything runs.
  const cfg = loadConfig(app.ctx);
  if (o.json && !o.dryRun) throw usage('--json goes with --dry-run');
  if (o.copy && (o.print || o.dryRun)) throw usage('--copy goes without --print and --dry-run');
  const quoting = o.shell != null || (!o.dryRun && (o.print || o.copy || !!process.env.RESUME_EMIT_FILE));
  const shell: ShellName = quoting ? shellOf(o.shell) : 'bash';
  const filters = filtersOf(o);
  const { s, name, choice } = await chosenSession(app, { query, o, filters });
  await resumeChosen(app, s, { name, choice, o, tail, cfg, quoting, shell });
}

/** Claude Code: put the snapshotted tasks back before the launch (a fork: report them); notes on stderr. */
async function restoreTasks(app: App, s: Session, fork: boolean, dryRun: boolean): Promise<void> {
  const { restoreBeforeLaunch } = await import('../harness/claude/care/restore.js');
  let notes: string[];
  try {
    notes = restoreBeforeLaunch(app.ctx, s, { fork, dryRun });
  } catch (err) {
    notes = [`could not restore the snapshotted tasks: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`];
  }
  for (const n of notes) process.stderr.write(`resume: ${oneLine(n)}\n`);
}

/** Subcommand names (and aliases) for "did you mean"; `list` is how many people spell `ls`. */
function commandNames(): { name: string; aliases: string[] }[] {
  const list = (ROOT.commands ?? []).map((c) => ({ name: c.name, aliases: c.name === 'ls' ? ['list'] : [] }));
  return [...list, { name: 'help', aliases: [] }];
}

/** The session the words name, or the one picked among those they name; none: an error (with a command they may have meant). */
async function sessionNamed(
  app: App,
  {
    query,
    pool,
    all,
    shorts,
    choice,
    prompts,
    scope,
  }: {
    query: string[];
    pool: Session[];
    all: boolean;
    shorts: Map<string, string>;
    choice: Choice;
    prompts: Named['prompts'] | undefined;
    /** the filters given (givenFilters), for "no session matches" */
    scope: string;
  },
): Promise<Session> {
  const r = resolve(query, pool, { all, prompts });
  const q = oneLine(query.join(' '));
  if (r.kind === 'none') {
    const [only, ...more] = query;
    const sub = only !== undefined && more.length === 0 ? didYouMean(only, commandNames()) : null;
    // (a subcommand's name is said instead of a session's words)
    const meant = sub ? null : await meantQuery(app, query, choice.filters ?? {}, all);
    const none = noMatch(app, query, pool, { all, prompts, scope, meant });
    if (sub) throw usage(`${none}; did you mean '${sub}'?`);
    throw new ExitError(1, none);
  }
  if (r.kind === 'ambiguous-prefix') {
    out(candidateLines(r.candidates, shorts));
    throw usage(`'${q}' is the start of ${r.candidates.length} session ids; type more characters`);
  }
  return r.kind === 'one' ? r.session : chooseAmong(app, r.candidates, choice);
}

/** The sessions a query is resolved over: those its words may name (`named`), else every one. */
async function sessionsFor(app: App, found: Lookup | null, query: string[]): Promise<{ all: Session[]; named: Named | null }> {
  if (!found) return { all: await app.sessions(), named: null };
  if (!query.length) return { all: await found.all(), named: null };
  const named = await found.named();
  return { all: named.sessions, named };
}

/** The session to resume and the name it goes by: the picker's pick, a full key's or id's, or what the words name. */
async function chosenSession(
  app: App,
  { query, o, filters }: { query: string[]; o: RootOpts; filters: Filters },
): Promise<{ s: Session; name: string; choice: Choice }> {
  // Bare `resume` on a terminal: fzf opens at once and its rows arrive when the index is ready.
  const early = query.length === 0 && !o.dryRun && pickerAvailable() ? await pickSession(app, { filters }) : null;
  // a full key or id is one record of the listing; words resolve over the sessions that may hold
  // them (found.named: every session when the index cannot narrow them); no query, over all of them
  const found = early ? null : await lookup(app, query);
  const hit = found?.hit && applyFilters([found.hit.session], { ...filters, all: true }).length === 1 ? found.hit : null;
  const { all, named } = early?.short || hit ? { all: [], named: null } : await sessionsFor(app, found, query);
  const pool = applyFilters(all, { ...filters, all: true });
  const shorts = named?.shorts ?? shortIds(all);
  // (the picker a choice opens lists every session itself when `all` holds only those that may match)
  const choice: Choice = {
    query,
    dryRun: !!o.dryRun,
    shorts,
    filters,
    all: named && !named.every ? undefined : all,
    action: early?.action,
  };

  let s: Session;
  if (early) s = early.session;
  else if (hit) s = hit.session;
  else if (query.length === 0) s = await chooseAmong(app, applyFilters(all, filters), choice);
  else s = await sessionNamed(app, { query, pool, all: !!o.all, shorts, choice, prompts: named?.prompts, scope: givenFilters(o) });
  // (a session picked from the whole listing may not be among `shorts`: the picker says its short id)
  const name = early?.short ?? (hit ? hit.short : (choice.short ?? shorts.get(s.id) ?? s.id));
  return { s, name, choice };
}

/** What resume does with the session chosen: place it, then launch it (or print, copy, dry-run it), or go to where it runs. */
async function resumeChosen(
  app: App,
  s: Session,
  w: { name: string; choice: Choice; o: RootOpts; tail: string[]; cfg: Config; quoting: boolean; shell: ShellName },
): Promise<void> {
  const { name, choice, o, tail, cfg, quoting, shell } = w;
  // A key in the picker can ask to print the line or to fork instead.
  const fork = !!o.fork || choice.action === 'fork';
  const print = !!o.print || choice.action === 'print';
  const copy = !!o.copy || choice.action === 'copy';
  // a gone directory: where its repository went, or its worktree added again (lib/launch/moved.ts)
  const place = await placeSession(s, {
    cd: o.cd,
    name,
    dryRun: !!o.dryRun,
    fork,
    others: () => app.sessions(),
    here: hereDir(app.ctx.home),
  });
  let plan: Plan;
  try {
    plan = prepare(s, { fork, extra: tail, cfg, name, env: app.launchEnv(), ctx: app.ctx, cwd: place?.cwd });
  } catch (err) {
    // running: go to its tmux pane instead (or say where it runs)
    if (!(err instanceof LiveError)) throw err;
    return goLive(s, err, { dryRun: o.dryRun, json: o.json, print, copy }, (print || copy) && !quoting ? shellOf(o.shell) : shell);
  }
  if (s.harness === 'claude') await restoreTasks(app, s, fork, !!o.dryRun);
  await launch(s, plan, { ...o, fork, print, copy }, (print || copy) && !quoting ? shellOf(o.shell) : shell, cfg);
  if (place?.refuse) throw new ExitError(2, place.refuse);
}
