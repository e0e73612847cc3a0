// A home of look-alike projects for the relevance tests (issue 43): the sessions a person with a
// webshop, its admin, an API, infra, a blog and dotfiles would have, in the formats the real clients
// write (Claude Code, Codex, pi), each with the query a person would type to find it. The point is
// the rules (every word, best field first, then newest), not this list of words.
import fs from 'node:fs';
import path from 'node:path';
import { jsonl, tempHome, write } from './helpers.js';
import { claudeLine } from './launch-helpers.js';

export interface RelSession {
  /** a short name for the test's messages */
  name: string;
  harness: 'claude' | 'codex' | 'pi';
  id: string;
  /** under HOME */
  dir: string;
  branch?: string;
  prompts: string[];
  /** last activity (ISO); the list is newest first */
  at: string;
}

const id = (n: number, h: string) =>
  `${`${h}${n.toString(16).padStart(2, '0')}e1a00`.slice(0, 8)}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Newest first. */
export const SESSIONS: RelSession[] = [
  {
    name: 'cart',
    harness: 'claude',
    id: id(1, 'c0'),
    dir: 'src/acme/webshop',
    branch: 'fix/cart-rounding',
    prompts: ['Fix rounding in the cart total', 'now add a test for 0.1 + 0.2 euros'],
    at: '2026-11-30T18:00:00.000Z',
  },
  {
    name: 'terraform',
    harness: 'claude',
    id: id(2, 'c0'),
    dir: 'src/acme/infra',
    branch: 'main',
    prompts: ['Upgrade the terraform provider to 5.x', 'the plan wants to replace the load balancer, why?'],
    at: '2026-11-30T16:00:00.000Z',
  },
  {
    name: 'admin-csv',
    harness: 'codex',
    id: id(3, '019b0'),
    dir: 'src/acme/webshop-admin',
    prompts: ['Add CSV export to the orders table'],
    at: '2026-11-30T14:00:00.000Z',
  },
  {
    name: 'dark-mode',
    harness: 'pi',
    id: id(4, '019b1'),
    dir: 'src/blog',
    prompts: ['Add a dark mode toggle to the theme', 'keep the toggle in local storage'],
    at: '2026-11-30T12:00:00.000Z',
  },
  {
    name: 'ratelimit',
    harness: 'claude',
    id: id(5, 'c0'),
    dir: 'src/acme/api',
    branch: 'feat/rate-limit',
    prompts: ['Add rate limiting to the login endpoint', 'use a sliding window of one minute'],
    at: '2026-11-29T20:00:00.000Z',
  },
  {
    name: 'images',
    harness: 'claude',
    id: id(6, 'c0'),
    dir: 'src/acme/webshop',
    branch: 'main',
    prompts: ['Cache product images at the CDN edge', 'like the astro site does with its assets'],
    at: '2026-11-29T18:00:00.000Z',
  },
  {
    name: 'admin-login',
    harness: 'claude',
    id: id(7, 'c0'),
    dir: 'src/acme/webshop-admin',
    branch: 'fix/login-loop',
    prompts: ['Fix the login redirect loop after the session expires'],
    at: '2026-11-29T16:00:00.000Z',
  },
  {
    name: 'clipboard',
    harness: 'codex',
    id: id(8, '019b0'),
    dir: 'src/dotfiles',
    prompts: ['Make tmux copy to the system clipboard'],
    at: '2026-11-29T14:00:00.000Z',
  },
  {
    name: 'astro',
    harness: 'claude',
    id: id(9, 'c0'),
    dir: 'src/blog',
    branch: 'main',
    prompts: ['Draft a post about moving the site from Jekyll to Astro', 'make the intro shorter'],
    at: '2026-11-29T12:00:00.000Z',
  },
  {
    name: 'backoff',
    harness: 'claude',
    id: id(10, 'c0'),
    dir: 'src/acme/webshop',
    branch: 'feat/webhooks',
    prompts: ['Webhook retries with exponential backoff', 'also cap the delay at 60 seconds'],
    at: '2026-11-28T20:00:00.000Z',
  },
  {
    name: 'zsh',
    harness: 'pi',
    id: id(11, '019b1'),
    dir: 'src/dotfiles',
    prompts: ['Show the git branch in the zsh prompt', 'only when inside a repository'],
    at: '2026-11-28T18:00:00.000Z',
  },
  {
    name: 'openapi',
    harness: 'codex',
    id: id(12, '019b0'),
    dir: 'src/acme/api',
    prompts: ['Write OpenAPI docs for the orders endpoint'],
    at: '2026-11-28T16:00:00.000Z',
  },
  {
    name: 'credentials',
    harness: 'claude',
    id: id(13, 'c0'),
    dir: 'src/acme/infra',
    branch: 'main',
    prompts: ['Rotate the database credentials', 'use pgbouncer in front of the pool', 'store them in the vault, not in the repo'],
    at: '2026-11-28T14:00:00.000Z',
  },
  {
    name: 'rss',
    harness: 'claude',
    id: id(14, 'c0'),
    dir: 'src/blog',
    branch: 'main',
    prompts: ['Fix broken links in the RSS feed'],
    at: '2026-11-28T12:00:00.000Z',
  },
  {
    name: 'cafe',
    harness: 'pi',
    id: id(15, '019b1'),
    dir: 'src/acme/webshop',
    prompts: ['Build the Café menu page', 'prices in euros'],
    at: '2026-11-27T20:00:00.000Z',
  },
  {
    name: 'customers',
    harness: 'codex',
    id: id(16, '019b0'),
    dir: 'src/acme/webshop-admin',
    prompts: ['Paginate the customers list'],
    at: '2026-11-27T18:00:00.000Z',
  },
  {
    name: 'playwright',
    harness: 'claude',
    id: id(17, 'c0'),
    dir: 'src/acme/webshop',
    branch: 'test/checkout',
    prompts: ['Playwright tests for the checkout discount code', 'also cover an expired code'],
    at: '2026-11-27T16:00:00.000Z',
  },
  {
    name: 'dir-flag',
    harness: 'claude',
    id: id(18, 'c0'),
    dir: 'work/resume-cli',
    branch: 'main',
    prompts: ['Why does --dir . match sessions in sibling directories?'],
    at: '2026-11-27T14:00:00.000Z',
  },
  {
    name: 'k8s',
    harness: 'codex',
    id: id(19, '019b0'),
    dir: 'src/acme/infra',
    prompts: ['Move the staging cluster to the new node pool'],
    at: '2026-11-27T12:00:00.000Z',
  },
  {
    name: 'old-cart',
    harness: 'claude',
    id: id(20, 'c0'),
    dir: 'src/acme/webshop',
    branch: 'main',
    prompts: ['Show the cart total with tax included'],
    at: '2026-11-26T12:00:00.000Z',
  },
];

/** Each query a person would type, and the session they meant. */
export const QUERIES: { q: string; want: string; why: string }[] = [
  { q: 'blog astro', want: 'astro', why: 'both words, in the directory and the title; not a fuzzy match across a path' },
  { q: 'rate limit', want: 'ratelimit', why: 'a title word and the start of another; the terraform session holds neither' },
  { q: 'dotfiles', want: 'clipboard', why: 'the directory; the newest of its two sessions' },
  { q: 'webshop rounding', want: 'cart', why: 'directory and title' },
  { q: 'admin login', want: 'admin-login', why: 'webshop-admin, not the API login endpoint' },
  { q: 'webshop', want: 'cart', why: 'the webshop directory before webshop-admin, newest first among them' },
  { q: 'webshop !rounding', want: 'images', why: '! leaves out the sessions that hold a word' },
  { q: 'sliding window', want: 'ratelimit', why: 'a later prompt, not the first' },
  { q: 'pgbouncer', want: 'credentials', why: 'a middle prompt (neither the first nor the last)' },
  { q: 'cafe', want: 'cafe', why: 'accents folded' },
  { q: 'codex clipboard', want: 'clipboard', why: 'the harness' },
  { q: 'rate-limit', want: 'ratelimit', why: 'the branch' },
  { q: 'cart total', want: 'cart', why: 'the newer of two sessions that both say it in their title' },
  { q: '"cart total" !rounding', want: 'old-cart', why: 'a phrase, and ! to leave one out (quotes pass through the shell fzf runs)' },
  { q: 'zsh git', want: 'zsh', why: 'two title words' },
  { q: 'astro', want: 'astro', why: "a title word before the same word in another session's later prompt" },
];

/** The session of a name. */
export function byName(name: string): RelSession {
  const s = SESSIONS.find((x) => x.name === name);
  if (!s) throw new Error(`no session ${name}`);
  return s;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Write one session as its client writes it; its directory is made too. */
function writeSession(home: string, s: RelSession): void {
  const cwd = path.join(home, s.dir);
  fs.mkdirSync(cwd, { recursive: true });
  const end = Date.parse(s.at);
  // the turns a minute apart, the last reply at `at`
  const t = (i: number) => iso(end - (2 * s.prompts.length - 1 - i) * 60_000);
  if (s.harness === 'claude') {
    const lines = s.prompts.flatMap((p, i) => [
      claudeLine(
        { id: s.id, cwd, type: 'user', uuid: `${s.id.slice(0, 8)}-u${i}-${s.id.slice(-12)}`, at: t(2 * i), branch: s.branch },
        { message: { role: 'user', content: p } },
      ),
      claudeLine(
        { id: s.id, cwd, type: 'assistant', uuid: `${s.id.slice(0, 8)}-a${i}-${s.id.slice(-12)}`, at: t(2 * i + 1), branch: s.branch },
        { message: { role: 'assistant', content: [{ type: 'text', text: `Done: ${p.toLowerCase()}.` }] } },
      ),
    ]);
    write(home, `.claude/projects/${cwd.replace(/[^A-Za-z0-9]/g, '-')}/${s.id}.jsonl`, jsonl(...lines));
  } else if (s.harness === 'codex') {
    const day = s.at.slice(0, 10).split('-');
    const stamp = t(0).slice(0, 19).replace(/:/g, '-');
    write(
      home,
      `.codex/sessions/${day[0]}/${day[1]}/${day[2]}/rollout-${stamp}-${s.id}.jsonl`,
      jsonl(
        {
          timestamp: t(0),
          type: 'session_meta',
          payload: { id: s.id, timestamp: t(0), cwd, originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli' },
        },
        ...s.prompts.flatMap((p, i) => [
          { timestamp: t(2 * i), type: 'event_msg', payload: { type: 'user_message', message: p } },
          { timestamp: t(2 * i + 1), type: 'event_msg', payload: { type: 'agent_message', message: `Done: ${p.toLowerCase()}.` } },
        ]),
      ),
    );
  } else {
    // pi: the header, then the prompts typed a minute apart (a prompt sent with the header is a print run)
    const header = iso(end - 2 * s.prompts.length * 60_000 - 60_000);
    write(
      home,
      `.pi/agent/sessions/--${s.dir.replace(/\//g, '-')}--/${header.replace(/[:.]/g, '-')}_${s.id}.jsonl`,
      jsonl(
        { type: 'session', version: 3, id: s.id, timestamp: header, cwd },
        ...s.prompts.flatMap((p, i) => [
          {
            type: 'message',
            id: `u${i}${s.id.slice(-4)}`,
            parentId: i ? `a${i - 1}${s.id.slice(-4)}` : null,
            timestamp: t(2 * i),
            message: { role: 'user', content: [{ type: 'text', text: p }], timestamp: Date.parse(t(2 * i)) },
          },
          {
            type: 'message',
            id: `a${i}${s.id.slice(-4)}`,
            parentId: `u${i}${s.id.slice(-4)}`,
            timestamp: t(2 * i + 1),
            message: { role: 'assistant', content: [{ type: 'text', text: `Done: ${p.toLowerCase()}.` }], model: 'm' },
          },
        ]),
      ),
    );
  }
}

/** A new HOME holding every session of the corpus. */
export function relevanceHome(prefix = 'resume-relevance-'): string {
  const home = tempHome(prefix);
  for (const s of SESSIONS) writeSession(home, s);
  return home;
}

/** `harness:id` of a named session (the row key). */
export const keyOf = (name: string): string => {
  const s = byName(name);
  return `${s.harness}:${s.id}`;
};
