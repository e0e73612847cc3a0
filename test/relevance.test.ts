// Type two words, press Enter, get the session you meant (issue 43): one set of rules
// (lib/select/rank.ts) orders the sessions for `resume WORDS`, `resume resolve`, TAB completion and
// the picker, over a home of look-alike projects (test/relevance-corpus.ts). The picker part runs
// the real fzf in tmux (CI runs this file on each supported fzf).

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { layRows, listWidth, streamWidths, widths } from '../fzf/layout.js';
import {
  firstHolding,
  fold,
  jsonLookable,
  jsonQuality,
  type Matchable,
  PromptQualities,
  parseQuery,
  quality,
  queryText,
  rank,
  rankAsking,
} from '../lib/select/rank.js';
import { HARNESSES } from '../lib/types.js';
import { cutDir, width } from '../lib/util/text.js';
import { BIN, envFor, must, needs, run } from './helpers.js';
import { standIn } from './launch-helpers.js';
import { byName, keyOf, QUERIES, relevanceHome, SESSIONS } from './relevance-corpus.js';
import { calls, claudeOnPath } from './shell-helpers.js';
import { Term } from './tmux-term.js';

/** A reproducible stream of whole numbers below `n` (mulberry32), from `seed`. */
function randomBelow(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) | 0;
  };
}

/**
 * 3,000 arrays of up to four strings of `chars`, as JSON, each with a word: a piece of one of its
 * strings (as `as` gives the string) or, one time in three, a few characters drawn alone.
 */
function* jsonCases(chars: string[], seed: number, as: (s: string) => string = (s) => s) {
  const next = randomBelow(seed);
  const text = (len: number) => Array.from({ length: len }, () => chars[next(chars.length)]).join('');
  for (let k = 0; k < 3000; k++) {
    const strings = Array.from({ length: 1 + next(4) }, () => text(next(9)));
    const pick = as(strings[next(strings.length)]);
    const from = next(pick.length + 1);
    const word = k % 3 === 0 ? as(text(1 + next(3))) : pick.slice(from, from + 1 + next(4));
    if (word) yield { strings, json: JSON.stringify(strings), word };
  }
}

describe('the rules', () => {
  it('parses words, "phrases", !exclusions and fzf\'s exact mark', () => {
    expect(parseQuery('Blog  ASTRO')).toEqual([
      { text: 'blog', not: false },
      { text: 'astro', not: false },
    ]);
    expect(parseQuery('"rate limit" !terraform \'exact')).toEqual([
      { text: 'rate limit', not: false },
      { text: 'terraform', not: true },
      { text: 'exact', not: false },
    ]);
    expect(parseQuery(['two words', 'three'])).toHaveLength(3);
    expect(parseQuery('  ')).toEqual([]);
  });

  it('a word that is a path is a directory word, spaces and all as one argument or quoted', () => {
    expect(parseQuery('. ~/src/Shop !../x src/shop').map((t) => [t.dir, t.not])).toEqual([
      ['.', false],
      ['~/src/Shop', false],
      ['../x', true],
      [undefined, false],
    ]);
    expect(parseQuery(['./my app', 'retry']).map((t) => t.dir ?? t.text)).toEqual(['./my app', 'retry']);
    // `/name` is a directory only when one is there: else a slash command (`/compact`), a word
    expect(parseQuery('/compact /tmp /nowhere/deeper').map((t) => t.dir)).toEqual([undefined, '/tmp', '/nowhere/deeper']);
    // the picker's query from such arguments keeps the path one word
    expect(queryText(['./my app', 'retry'])).toBe('"./my app" retry');
    expect(parseQuery(queryText(['./my app', 'retry'])).map((t) => t.dir ?? t.text)).toEqual(['./my app', 'retry']);
    // a directory word scores its directory and below, never the text
    const items = [
      { id: 'a1', harness: 'pi', cwd: '/h/src/shop', branch: null, label: 'one.two' },
      { id: 'b2', harness: 'pi', cwd: '/h/src/shop/lib', branch: null, label: 'x' },
      { id: 'c3', harness: 'pi', cwd: '/h/src/blog', branch: null, label: 'a.b' },
    ];
    expect(rank(items, parseQuery('~/src/shop'), '/h', (x) => x).map((x) => x.id)).toEqual(['a1', 'b2']);
    expect(rank(items, parseQuery('/h/src'), '/h', (x) => x).map((x) => x.id)).toEqual(['a1', 'b2', 'c3']);
    expect(rank(items, parseQuery('!/h/src/shop/lib'), '/h', (x) => x).map((x) => x.id)).toEqual(['a1', 'c3']);
  });

  it('folds case and accents', () => {
    expect(fold('Café Ünïcode')).toBe('cafe unicode');
  });

  it('leaves general punctuation as it is (the index stores no folded copy of a text whose only other characters are ASCII: store.ts foldedOf)', () => {
    for (const [a, b] of [
      [0x2010, 0x2027],
      [0x2030, 0x205e],
    ]) {
      for (let c = a; c <= b; c++) expect(fold(String.fromCharCode(c)), c.toString(16)).toBe(String.fromCharCode(c));
    }
    expect(fold('Fix The Parser…')).toBe('fix the parser…');
  });

  it('a whole field beats a whole word beats a word start beats inside a word', () => {
    expect(quality('webshop', 'webshop')).toBe(4);
    expect(quality('webshop-admin', 'webshop')).toBe(3);
    expect(quality('add rate limiting', 'limit')).toBe(2);
    expect(quality('generate', 'rate')).toBe(1);
    expect(quality('terraform', 'rate')).toBe(0);
  });

  const m = (o: Partial<Matchable>): Matchable => ({ id: 'x', harness: 'claude', cwd: null, branch: null, label: null, prompts: [], ...o });

  it('every word must occur; the best first; equal scores keep the order given (newest first)', () => {
    const items = [
      m({ id: 'n1', label: 'Fix rounding in the cart total', cwd: '/h/src/webshop' }),
      m({ id: 'n2', label: 'Upgrade the terraform provider', cwd: '/h/src/infra' }),
      m({ id: 'n3', label: 'Show the cart total with tax', cwd: '/h/src/webshop' }),
      m({ id: 'n4', label: 'Totals', cwd: '/h/src/cart' }),
    ];
    const ids = (q: string) => rank(items, parseQuery(q), '/h', (x) => x).map((x) => x.id);
    expect(ids('cart total')).toEqual(['n1', 'n3', 'n4']);
    expect(ids('form')).toEqual(['n2']);
    expect(ids('rate')).toEqual([]);
    expect(ids('cart !rounding')).toEqual(['n3', 'n4']);
    expect(ids('')).toEqual(['n1', 'n2', 'n3', 'n4']);
  });

  it('matches the last parts of the directory, never the path above them', () => {
    const items = [m({ id: 'a', cwd: '/home/me/src/acme/webshop' }), m({ id: 'b', cwd: '/home/me/src/blog' })];
    const ids = (q: string) => rank(items, parseQuery(q), '/home/me', (x) => x).map((x) => x.id);
    expect(ids('acme')).toEqual(['a']);
    expect(ids('src')).toEqual(['b']); // blog's parent is src; webshop's is acme
    expect(ids('home')).toEqual([]);
  });

  it('asks for the prompts only of the items a prompt can move, and ranks as when all are given', () => {
    const items = [
      m({ id: 'p1', label: 'Webhook retry', cwd: '/h/src/shop', prompts: ['why does the webhook fail'] }),
      m({ id: 'p2', label: 'Cart total', cwd: '/h/src/shop', prompts: ['add a webhook for refunds', 'no hooks here'] }),
      m({ id: 'p3', label: 'Rounding', cwd: '/h/src/webhooks', prompts: ['round half up'] }),
      m({ id: 'p4', label: 'Deploy', cwd: '/h/src/infra', prompts: ['nothing of it'] }),
      m({ id: 'p5', label: 'prewebhook tidy', cwd: '/h/src/shop', prompts: ['the webhook, once more', 'skip refunds'] }),
    ];
    for (const q of ['webhook', 'webhook shop', 'web', 'webhook !refunds', 'shop "add a"', '!deploy']) {
      const terms = parseQuery(q);
      let asked: string[] = [];
      const got = rankAsking(
        items,
        terms,
        '/h',
        (x) => ({ ...x, prompts: null }),
        (need) => {
          asked = need.map((x) => x.id);
          return (x) => x.prompts;
        },
      );
      expect(
        got.map((x) => x.id),
        q,
      ).toEqual(rank(items, terms, '/h', (x) => x).map((x) => x.id));
      if (q === 'webhook') {
        // p1's title and p3's directory start with the word: as much as a prompt can give
        expect(asked).toEqual(['p2', 'p4', 'p5']);
        expect(got.map((x) => x.id)).toEqual(['p1', 'p3', 'p2', 'p5']);
      }
    }
  });

  it("ranks the same from the prompts as the index keeps them (folded JSON, each term's quality) as from the prompts", () => {
    const items = [
      m({ id: 'p1', label: 'Webhook retry', cwd: '/h/src/shop', prompts: ['why does the Webhook fail'] }),
      m({ id: 'p2', label: 'Cart total', cwd: '/h/src/shop', prompts: ['add a webhook\nfor refunds', 'no "hooks" here'] }),
      m({ id: 'p3', label: 'Rounding', cwd: '/h/src/webhooks', prompts: ['round half up', 'webhook'] }),
      m({ id: 'p4', label: 'Deploy', cwd: '/h/src/infra', prompts: ['nothing of it', 'Café\twebhookery'] }),
      m({ id: 'p5', label: 'prewebhook tidy', cwd: '/h/src/shop', prompts: ['the webhook, once more', 'skip REFUNDS'] }),
    ];
    for (const q of ['webhook', 'webhook shop', 'web', 'webhook !refunds', 'shop "add a"', '!deploy', 'cafe', 'nfor', 'hooks"', 'n']) {
      const terms = parseQuery(q);
      const found = new PromptQualities(terms);
      // (as the index keeps them: each source's prompts a JSON array, folded as a whole)
      for (const x of items) found.add(x.id, fold(JSON.stringify(x.prompts)));
      const got = rankAsking(
        items,
        terms,
        '/h',
        (x) => ({ ...x, prompts: null }),
        () => (x) => found.get(x.id),
      );
      expect(
        got.map((x) => x.id),
        q,
      ).toEqual(rank(items, terms, '/h', (x) => x).map((x) => x.id));
    }
  });

  it('finds a term in a JSON array of strings as written as well as in the strings decoded, escapes and all', () => {
    // a small alphabet dense with what JSON escapes, and letters that follow a backslash in an escape
    const chars = ['a', 'b', 'n', 'u', 't', '0', '1', 'e', ' ', '-', '\n', '\\', '"', '\t', '\u0001', '\u001b', 'ß', '\ud800'];
    let looked = 0;
    for (const { strings, json, word } of jsonCases(chars, 7)) {
      if (!jsonLookable(word)) continue;
      looked++;
      const want = Math.max(...strings.map((x) => quality(x, word)));
      expect(jsonQuality(json, word), `${json} ${JSON.stringify(word)}`).toBe(want);
    }
    expect(looked).toBeGreaterThan(1000);
    expect(jsonLookable('a"b')).toBe(false);
    expect(jsonLookable(',')).toBe(false);
    expect(jsonLookable('a,b')).toBe(true);
  });

  it('finds the first string that holds a word in a JSON array as written as decoding finds it', () => {
    // upper case besides (the array is lower-cased as a whole), and a letter fold changes otherwise
    const chars = ['a', 'B', 'n', 'U', 't', '0', ' ', '-', '\n', '\\', '"', '\t', '\u001b', 'é'];
    let found = 0;
    for (const { strings, json, word } of jsonCases(chars, 11, fold)) {
      const want = strings.find((p) => fold(p).includes(word));
      // (as the index keeps them: lower-cased as written when that folds them, else decoded)
      const lowered = /^[\x00-\x7f]*$/.test(json) ? json.toLowerCase() : null;
      expect(firstHolding(json, lowered, word), `${json} ${JSON.stringify(word)}`).toBe(want);
      if (want !== undefined) found++;
    }
    expect(found).toBeGreaterThan(1000);
  });

  it('an id is named by its start, not by digits inside it', () => {
    const items = [m({ id: '019b0a1e-0000-4000-8000-000000000003' }), m({ id: 'c0e1a000-0000-4000-8000-000000000019' })];
    expect(rank(items, parseQuery('019b'), '/h', (x) => x)).toHaveLength(1);
    expect(rank(items, parseQuery('0019'), '/h', (x) => x)).toHaveLength(0);
  });
});

describe('the picker layout', () => {
  it('keeps 30 or more columns of title at 80 columns, the preview below', () => {
    const rows = SESSIONS.map((s) => [keyOf(s.name), s.id.slice(0, 8), '6d', s.harness, `~/${s.dir}`, s.branch ?? '', s.prompts[0]]);
    const lw = listWidth(80);
    expect(lw).toBe(80);
    const w = widths(rows, lw);
    expect(w.title).toBeGreaterThanOrEqual(30);
    for (const line of layRows(rows, lw, false)) expect(width(line.split('\t')[1])).toBeLessThanOrEqual(80 - 3);
    // at 200 columns the preview is on the right and the list still keeps the title readable
    expect(listWidth(200)).toBe(99);
    expect(widths(rows, listWidth(200)).title).toBeGreaterThanOrEqual(30);
  });

  it('leaves the id column out in a narrow pane, where the title would keep fewer than 24 columns', () => {
    const rows = SESSIONS.map((s) => [keyOf(s.name), s.id.slice(0, 8), '6d', s.harness, `~/${s.dir}`, s.branch ?? '', s.prompts[0]]);
    for (const cols of [70, 80]) {
      const w = widths(rows, listWidth(cols));
      expect(w.short).toBe(8);
      expect(w.title).toBeGreaterThanOrEqual(24);
      expect(must(layRows(rows, listWidth(cols), false)[0]).split('\t')[1]).toMatch(new RegExp(`^${must(rows[0])[1]}  `));
    }
    for (const cols of [50, 60]) {
      const lw = listWidth(cols);
      const w = widths(rows, lw);
      // (with the id the title would keep 13 and 23 columns: fewer than 24)
      expect(w.short).toBe(0);
      expect(w.title).toBeGreaterThanOrEqual(cols === 50 ? 22 : 30);
      for (const [i, line] of layRows(rows, lw, false).entries()) {
        const shown = must(line.split('\t')[1]);
        expect(shown.startsWith('6d  ')).toBe(true);
        expect(shown).not.toContain(must(rows[i])[1]);
        expect(width(shown)).toBeLessThanOrEqual(cols - 3);
      }
      // a cold build's batches too
      expect(streamWidths(lw, HARNESSES).short).toBe(0);
    }
  });

  it("a cold build's batches line up with each other (streamWidths), within 80 columns", () => {
    const rows = SESSIONS.map((s) => [keyOf(s.name), s.id.slice(0, 8), '6d', s.harness, `~/${s.dir}`, s.branch ?? '', s.prompts[0]]);
    const lw = listWidth(80);
    const w = streamWidths(lw, HARNESSES);
    const titleAt = (batch: string[][]) =>
      layRows(batch, lw, false, null, w).map((l, i) => must(l.split('\t')[1]).indexOf(must(must(batch[i])[6]).slice(0, 12)));
    // one batch of a single short row, another of the rest: the titles start in one column
    const starts = [...titleAt(rows.slice(0, 1)), ...titleAt(rows.slice(1))];
    expect(new Set(starts).size).toBe(1);
    expect(w.title).toBeGreaterThanOrEqual(30);
    for (const line of layRows(rows, lw, false, null, w)) expect(width(line.split('\t')[1])).toBeLessThanOrEqual(80 - 3);
  });

  it('cuts a directory from the left, whole parts first', () => {
    expect(cutDir('~/src/acme/webshop-admin', 20)).toBe('…/acme/webshop-admin');
    expect(cutDir('~/src/acme/webshop', 40)).toBe('~/src/acme/webshop');
    expect(cutDir('~/a-very-long-project-directory-name', 12)).toBe('…ectory-name');
  });
});

describe('one query, one session, everywhere', () => {
  let home = '';
  beforeAll(() => {
    home = relevanceHome();
    expect(run(home, ['index']).code).toBe(0);
  });

  it.each(QUERIES)('resume resolve $q → $want ($why)', ({ q, want }) => {
    const r = run(home, ['resolve', ...q.split(' ')]);
    expect(r.stdout.split('\n')[0], r.stderr).toBe(keyOf(want));
  });

  it('resume WORDS resumes the one session two words name, in its directory', () => {
    const { PATH } = standIn(home, ['claude', 'codex', 'pi']);
    const r = spawnSync(process.execPath, [BIN, 'blog', 'astro'], { env: envFor(home, { PATH }), encoding: 'utf8', input: '' });
    expect(r.status, r.stderr).toBe(0);
    const c = must(calls(home).pop());
    expect(c.cwd).toBe(path.join(home, byName('astro').dir));
    expect(c.argv.join(' ')).toContain(byName('astro').id);
  });

  it('TAB on a word, or on the last of several, offers the sessions they name, best first', () => {
    for (const { q, want } of QUERIES.filter((x) => !x.q.includes('"'))) {
      const r = run(home, ['__complete', '--', ...q.split(' ')]);
      expect(r.code, r.stderr).toBe(0);
      const first = r.stdout.split('\n')[0].split('\t')[0];
      expect(byName(want).id.startsWith(first), `${q}: ${r.stdout}`).toBe(true);
    }
  });
});

/** fzf's pointer: `>`, or `▌` from fzf 0.5x on */
const PTR = '[>▌]';

describe.skipIf(needs('fzf', 'tmux'))('the picker in tmux picks what the words name', { timeout: 180_000 }, () => {
  const typed = ['blog astro', 'rate limit', 'admin login', 'sliding window', '"cart total" !rounding'];
  it.each(typed)('%s + Enter', async (q) => {
    const want = byName(must(QUERIES.find((x) => x.q === q)).want);
    const home = relevanceHome();
    const t = new Term(home, [], { PATH: `${standIn(home, ['claude', 'codex', 'pi']).PATH}` }, [80, 24]);
    await t.waitList([/20 sessions/]);
    await t.type(q);
    // the first row is the one meant: its short id and its harness in view, its title readable
    const screen = await t.waitList([/\d+ of 20 sessions match/, new RegExp(`^${PTR} ${want.id.slice(0, 8)}`, 'm')]);
    expect(screen).not.toMatch(/ 0 of 20 sessions match/);
    const first = screen.split('\n').find((l) => new RegExp(`^${PTR} ${want.id.slice(0, 8)}`).test(l));
    expect(first).toContain(want.harness);
    expect(first).toContain(want.prompts[0].slice(0, 30));
    await t.keys('Enter');
    const { code } = await t.exit();
    expect(code).toBe(0);
    const c = must(calls(home).pop());
    expect(c.cwd).toBe(path.join(home, want.dir));
    expect(c.argv.join(' ')).toContain(want.id);
  });

  it('at 200x50 the preview is on the right and a typed word still shows the id, harness and title', async () => {
    const home = relevanceHome();
    const t = new Term(home, ['__pick'], { PATH: claudeOnPath(home) }, [200, 50]);
    await t.waitList([/20 sessions/]);
    await t.type('backoff');
    const l = await t.waitList([/1 of 20 sessions match/, new RegExp(`^${PTR} .*Webhook retries`, 'm')]);
    const row = l.split('\n').find((x) => new RegExp(`^${PTR} .*Webhook`).test(x));
    expect(row, l).toContain(byName('backoff').id.slice(0, 8));
    expect(row).toContain('claude');
    expect(row).toContain('acme/webshop');
    t.kill();
  });
});
