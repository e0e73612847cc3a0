// Naming a session (issue 4): resolution order, ambiguity, UUIDv7 prefixes, hidden sessions,
// "did you mean", and what `resume resolve` / `resume QUERY` print, through the built CLI.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneEdit } from '../lib/select/resolve.js';
import { must, run, tempHome } from './helpers.js';
import { claudeSession, piSession, uuid } from './launch-helpers.js';

/** Two UUIDv7 ids from the same minute: they share their first 12 hex digits. */
const V7A = '019e19b4-eb48-746a-aa6b-8dfcfa37954b';
const V7B = '019e19b4-eb48-7c01-9d2e-000000000001';

function corpus() {
  const home = tempHome();
  const dir = (n: string) => {
    const d = path.join(home, 'src', n);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const a = claudeSession(home, {
    id: V7A,
    cwd: dir('webshop'),
    prompt: 'Fix the cart rounding bug',
    branch: 'fix/cart',
    at: '2026-01-03T00:00:00.000Z',
  });
  const b = claudeSession(home, { id: V7B, cwd: dir('webshop'), prompt: 'Add checkout discounts', at: '2026-01-02T00:00:00.000Z' });
  const c = claudeSession(home, {
    id: 'abcdef12-0000-4000-8000-000000000001',
    cwd: dir('blog'),
    prompt: 'Draft a post about Astro',
    at: '2026-01-01T00:00:00.000Z',
  });
  const hidden = claudeSession(home, {
    id: 'feedface-0000-4000-8000-000000000009',
    cwd: dir('blog'),
    prompt: 'sdk run about Astro',
    entrypoint: 'sdk-cli',
  });
  const p = piSession(home, {
    id: 'abcdef99-1111-4111-8111-111111111111',
    cwd: dir('api'),
    prompts: ['Rate limiting for login', 'and tests'],
  });
  return { home, files: { a, b, c, hidden, p } };
}

/** The transcript of session `id` under the home's Claude projects. */
function corpusFile(home: string, id: string): string | undefined {
  const root = path.join(home, '.claude', 'projects');
  for (const d of fs.readdirSync(root)) if (fs.existsSync(path.join(root, d, `${id}.jsonl`))) return path.join(root, d, `${id}.jsonl`);
  return undefined;
}

const resolveKeys = (home: string, args: string[], opts: { cwd?: string } = {}) => run(home, ['resolve', ...args], {}, opts);

describe('resolution order', { timeout: 120_000 }, () => {
  it('(1) a path to an indexed transcript: absolute, relative, through a symlink', () => {
    const { home, files } = corpus();
    expect(resolveKeys(home, [files.c])).toMatchObject({ code: 0, stdout: 'claude:abcdef12-0000-4000-8000-000000000001\n' });
    const rel = path.relative(path.dirname(files.c), files.c);
    expect(resolveKeys(home, [`./${rel}`], { cwd: path.dirname(files.c) }).stdout).toBe('claude:abcdef12-0000-4000-8000-000000000001\n');
    const link = path.join(home, 'link.jsonl');
    fs.symlinkSync(files.c, link);
    expect(resolveKeys(home, [link]).stdout).toBe('claude:abcdef12-0000-4000-8000-000000000001\n');
    expect(resolveKeys(home, [files.p]).stdout).toBe('pi:abcdef99-1111-4111-8111-111111111111\n');
  });

  it('(2) a full id, or a harness:id key', () => {
    const { home } = corpus();
    expect(resolveKeys(home, [V7A]).stdout).toBe(`claude:${V7A}\n`);
    expect(resolveKeys(home, [`claude:${V7B}`]).stdout).toBe(`claude:${V7B}\n`);
    expect(resolveKeys(home, [`pi:${V7B}`]).code).toBe(1);
  });

  it('(3) an id prefix of 4+ characters naming one session; two or more is exit 2 asking for more', () => {
    const { home } = corpus();
    expect(resolveKeys(home, ['abcdef1']).stdout).toBe('claude:abcdef12-0000-4000-8000-000000000001\n');
    expect(resolveKeys(home, ['ABCDEF9']).stdout).toBe('pi:abcdef99-1111-4111-8111-111111111111\n');
    const amb = resolveKeys(home, ['abcd']);
    expect(amb.code).toBe(2);
    expect(amb.stdout).toBe('claude:abcdef12-0000-4000-8000-000000000001\npi:abcdef99-1111-4111-8111-111111111111\n');
    expect(amb.stderr).toMatch(/'abcd' is the start of 2 session ids; type more characters/);
    // Fewer than 4 characters is not a prefix: it is a word (found in ids and text alike).
    expect(resolveKeys(home, ['abc']).code).toBe(1);
    // `resume QUERY` lists the candidates (short id, harness, directory, title) and exits 2.
    const r = run(home, ['abcd', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stdout.split('\n')[0]).toBe(`abcdef12\tclaude\t${path.join(home, 'src', 'blog')}\tDraft a post about Astro`);
  });

  it('UUIDv7 ids sharing their first 8 (here 12) hex digits: 8 characters are ambiguous, short ids are longer', () => {
    const { home } = corpus();
    const amb = resolveKeys(home, ['019e19b4']);
    expect(amb.code).toBe(2);
    expect(amb.stdout.trim().split('\n').sort()).toEqual([`claude:${V7A}`, `claude:${V7B}`]);
    expect(resolveKeys(home, ['019e19b4-eb48']).code).toBe(2);
    expect(resolveKeys(home, ['019e19b4-eb48-74']).stdout).toBe(`claude:${V7A}\n`);
    const ls = JSON.parse(run(home, ['ls', '--json']).stdout) as { id: string; short: string }[];
    const shortA = must(ls.find((s) => s.id === V7A)).short;
    const shortB = must(ls.find((s) => s.id === V7B)).short;
    expect(shortA).toBe('019e19b4-eb48-74');
    expect(shortB).toBe('019e19b4-eb48-7c');
    // Each short id names its session.
    expect(resolveKeys(home, [shortA]).stdout).toBe(`claude:${V7A}\n`);
    expect(resolveKeys(home, [shortB]).stdout).toBe(`claude:${V7B}\n`);
    // An id prefix wins over words: `019e19b4-eb48-7c` is also text nowhere else.
    expect(run(home, [shortB, '--dry-run', '--json']).code).toBe(0);
  });

  it('(4) words: every word, case-insensitive, in directory, title, prompts, branch, harness or id', () => {
    const { home } = corpus();
    expect(resolveKeys(home, ['webshop']).stdout.trim().split('\n')).toHaveLength(2);
    expect(resolveKeys(home, ['webshop']).code).toBe(1);
    expect(resolveKeys(home, ['WEBSHOP', 'rounding']).stdout).toBe(`claude:${V7A}\n`);
    expect(resolveKeys(home, ['fix/cart']).stdout).toBe(`claude:${V7A}\n`);
    expect(resolveKeys(home, ['pi', 'login']).stdout).toBe('pi:abcdef99-1111-4111-8111-111111111111\n');
    expect(resolveKeys(home, ['webshop discounts']).stdout).toBe(`claude:${V7B}\n`);
    expect(resolveKeys(home, ['webshop', 'astro'])).toMatchObject({ code: 1, stdout: '' });
    // --harness and --dir narrow every step.
    expect(resolveKeys(home, ['--harness', 'pi', 'abcd']).stdout).toBe('pi:abcdef99-1111-4111-8111-111111111111\n');
    expect(resolveKeys(home, ['--dir', path.join(home, 'src', 'webshop'), 'discounts']).stdout).toBe(`claude:${V7B}\n`);
    expect(resolveKeys(home, ['--dir', path.join(home, 'src', 'blog'), 'discounts']).code).toBe(1);
    // nothing under the filters: the message names them (the session is not nowhere)
    expect(resolveKeys(home, ['--harness', 'pi', 'discounts']).stderr).toBe("resume: no session matches 'discounts' with --harness pi\n");
    expect(run(home, ['--harness', 'pi', 'discounts']).stderr).toBe("resume: no session matches 'discounts' with --harness pi\n");
  });

  it('a word that is a path names a directory: the sessions there or below, as --dir gives them', () => {
    const { home } = corpus();
    const shop = path.join(home, 'src', 'webshop');
    const keys = (args: string[], cwd = home) => resolveKeys(home, args, { cwd }).stdout.split('\n').filter(Boolean).sort();
    const inShop = [`claude:${V7A}`, `claude:${V7B}`].sort();
    expect(keys([shop])).toEqual(inShop);
    expect(keys(['.'], shop)).toEqual(inShop);
    expect(keys(['~/src/webshop'])).toEqual(inShop);
    expect(keys(['../webshop'], path.join(home, 'src', 'blog'))).toEqual(inShop);
    expect(keys(['./src'])).toHaveLength(4);
    // `ls DIR`: the listing of a directory, as --dir (the lean path and --json alike)
    const lsIds = (args: string[]) =>
      run(home, ['ls', ...args], {}, { cwd: shop })
        .stdout.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(lsIds(['.'])).toEqual(lsIds(['--dir', '.']));
    expect(lsIds(['.'])).toHaveLength(2);
    expect(JSON.parse(run(home, ['ls', '--json', '../blog'], {}, { cwd: shop }).stdout)).toHaveLength(1);
    expect(run(home, ['ls', 'webshop'], {}, { cwd: shop })).toMatchObject({
      code: 2,
      stderr: "resume: no directory 'webshop' here (ls takes a directory; resume webshop names sessions by words)\n",
    });
    expect(run(home, ['ls', '.', '--dir', '..'], {}, { cwd: shop }).code).toBe(2);
    // with words; `!` leaves a directory out
    expect(keys(['.', 'discounts'], shop)).toEqual([`claude:${V7B}`]);
    expect(keys(['!./src/webshop', 'rate'])).toEqual(['pi:abcdef99-1111-4111-8111-111111111111']);
    // a path with a space: one argument, or quoted in a typed query
    const spaced = path.join(home, 'src', 'my app');
    fs.mkdirSync(spaced);
    claudeSession(home, { id: 'abcdef77-0000-4000-8000-000000000007', cwd: spaced, prompt: 'spaced out' });
    expect(keys(['./src/my app'])).toEqual(['claude:abcdef77-0000-4000-8000-000000000007']);
    expect(keys(['"./src/my app"', 'spaced'])).toEqual(['claude:abcdef77-0000-4000-8000-000000000007']);
    // the directory's last parts as typed, without a leading ./ (a word, not a path)
    expect(keys(['src/webshop'])).toEqual(inShop);
    // a directory whose name starts as another's is not below it (the index's LIKE finds both); as a word, `src/webshop` starts both
    fs.mkdirSync(path.join(home, 'src', 'webshop-old'));
    claudeSession(home, { id: 'abcdef66-0000-4000-8000-000000000006', cwd: path.join(home, 'src', 'webshop-old'), prompt: 'old shop' });
    expect(keys(['./src/webshop'])).toEqual(inShop);
    expect(keys(['./src/webshop-old'])).toEqual(['claude:abcdef66-0000-4000-8000-000000000006']);
    expect(keys(['src/webshop'])).toHaveLength(3);
    // a directory with no session below it: nothing (not sessions with a `.` in their text)
    fs.mkdirSync(path.join(shop, 'lib'));
    // (its message names the nearest directory above where sessions started: `resume .` in a project's lib/)
    expect(resolveKeys(home, ['.'], { cwd: path.join(shop, 'lib') })).toMatchObject({
      code: 1,
      stderr: "resume: no session matches '.'; 2 sessions match in ~/src/webshop, above it\n",
    });
    expect(run(home, ['.', 'discounts'], {}, { cwd: path.join(shop, 'lib') }).stderr).toBe(
      "resume: no session matches '. discounts'; 1 session matches in ~/src/webshop, above it\n",
    );
    expect(run(home, ['.', 'astro'], {}, { cwd: path.join(shop, 'lib') }).stderr).toBe("resume: no session matches '. astro'\n");
    expect(resolveKeys(home, [path.join(home, 'elsewhere')]).code).toBe(1);
    // the picker's typed query, the same way (fzf runs its reloads in the directory it started in)
    const pick = path.join(home, 'pick');
    fs.mkdirSync(pick);
    const fedKeys = (q: string, deep: boolean) => {
      fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: false, harness: null, dir: null, deep, cols: 200 }));
      const out = run(home, ['__feed', '--query', q], { RESUME_PICK_DIR: pick, NO_COLOR: '1' }, { cwd: shop }).stdout;
      return out
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((l) => l.split('\t')[0])
        .sort();
    };
    expect(fedKeys('.', false)).toEqual(inShop);
    // deep search takes it as a directory too: `resume search`, and Ctrl-S's list and preview
    const found = run(home, ['search', '--rows', '.', 'a'], {}, { cwd: shop });
    expect(
      found.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0])
        .sort(),
    ).toEqual(inShop);
    expect(run(home, ['search', './src/blog', 'cart'])).toMatchObject({
      code: 1,
      stderr: 'resume: no session mentions cart in ./src/blog\n',
    });
    expect(fedKeys('. a', true)).toEqual(inShop);
    const shown = run(
      home,
      ['preview', `claude:${V7B}`, '--search', '. discounts'],
      { RESUME_PICK_DIR: pick, NO_COLOR: '1' },
      { cwd: shop },
    );
    expect(shown.stdout).toMatch(/^prompt: Add checkout «discounts»$/m);
    // resume: one session in the directory resumes it
    const one = run(home, ['.', '--dry-run', '--json'], {}, { cwd: path.join(home, 'src', 'api') });
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).id).toBe('abcdef99-1111-4111-8111-111111111111');
    // with a word from a prompt the record does not hold (neither first nor last): the directory's
    // sessions' prompts are looked in
    piSession(home, {
      id: 'abcdef55-1111-4111-8111-111111111155',
      cwd: path.join(home, 'src', 'api'),
      prompts: ['begin', 'the zebra part', 'end'],
    });
    expect(keys(['./src/api', 'zebra'])).toEqual(['pi:abcdef55-1111-4111-8111-111111111155']);
  });

  it('hidden sessions: found by id, prefix and path always; by words only with -a', () => {
    const { home, files } = corpus();
    const key = 'claude:feedface-0000-4000-8000-000000000009';
    expect(resolveKeys(home, ['feedface-0000-4000-8000-000000000009']).stdout).toBe(`${key}\n`);
    expect(resolveKeys(home, ['feedface']).stdout).toBe(`${key}\n`);
    expect(resolveKeys(home, [files.hidden]).stdout).toBe(`${key}\n`);
    expect(resolveKeys(home, ['sdk', 'run'])).toMatchObject({ code: 1, stdout: '' });
    // nothing listed matches, a hidden session does: the message says so, and `resume` names it too
    expect(resolveKeys(home, ['sdk', 'run']).stderr).toBe("resume: no session matches 'sdk run'; 1 hidden session matches, -a shows it\n");
    expect(run(home, ['sdk', 'run']).stderr).toBe("resume: no session matches 'sdk run'; 1 hidden session matches, -a shows it\n");
    expect(resolveKeys(home, ['-a', 'sdk', 'run']).stdout).toBe(`${key}\n`);
    // Astro: one visible session, two with -a.
    expect(resolveKeys(home, ['astro']).stdout).toBe('claude:abcdef12-0000-4000-8000-000000000001\n');
    expect(resolveKeys(home, ['-a', 'astro']).stdout.trim().split('\n')).toHaveLength(2);
  });

  it("the picker: typed words only hidden sessions match say so; an empty list's preview is empty", () => {
    const { home } = corpus();
    const pick = path.join(home, 'pick');
    fs.mkdirSync(pick);
    fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: false, harness: null, dir: null, deep: false, cols: 200 }));
    const env = { RESUME_PICK_DIR: pick, NO_COLOR: '1' };
    const status = (q: string) => run(home, ['__feed', '--query', q], env).stdout.split('\n')[0];
    expect(status('sdk run')).toMatch(/ · 0 of \d+ sessions match · 1 hidden matches \(ctrl-t\)$/);
    expect(status('zzz nowhere')).toMatch(/ · 0 of \d+ sessions match \(\+\d+ hidden\)$/);
    // fzf (0.65) runs the preview with no key when nothing is listed: nothing, not an error
    expect(run(home, ['preview', '', '--search', 'sdk run'], env)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(run(home, ['preview', '']).code).toBe(1);
  });
});

describe('resume QUERY choosing', { timeout: 120_000 }, () => {
  it('several matches with no one to choose: candidates on stdout, one per line, exit 1', () => {
    const { home } = corpus();
    const r = run(home, ['webshop', '--dry-run']);
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines.map((l) => l[1])).toEqual(['claude', 'claude']);
    expect(lines.map((l) => l[3])).toEqual(['Fix the cart rounding bug', 'Add checkout discounts']);
    expect(r.stderr).toMatch(/2 sessions match 'webshop'/);
  });

  it('no query and no picker: the visible sessions, exit 1', () => {
    const { home } = corpus();
    const r = run(home, ['--dry-run']);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
    expect(run(home, ['--dry-run', '-a']).stdout.trim().split('\n')).toHaveLength(5);
  });

  it('no query and filters that leave nothing: the filters, and the hidden sessions they leave, not where resume looked', () => {
    const { home } = corpus();
    const none = (...args: string[]) => {
      const r = run(home, ['--dry-run', ...args]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      return r.stderr;
    };
    expect(none('--harness', 'gemini')).toBe('resume: no sessions with --harness gemini\n');
    expect(none('--dir', path.join(home, 'nowhere'))).toBe('resume: no sessions with --dir ~/nowhere\n');
    expect(none('--harness', 'pi', '--dir', path.join(home, 'src', 'blog'))).toBe(
      'resume: no sessions with --harness pi --dir ~/src/blog\n',
    );
    // only a hidden session left there: -a shows it
    const sdkOnly = path.join(home, 'src', 'blog');
    fs.rmSync(must(corpusFile(home, 'abcdef12-0000-4000-8000-000000000001')));
    expect(none('--dir', sdkOnly)).toBe('resume: no sessions with --dir ~/src/blog (+1 hidden: -a shows them)\n');
    expect(run(home, ['--dry-run', '-a', '--dir', sdkOnly]).stdout).toMatch(/sdk run about Astro/);
  });

  it('a query that matches nothing says what it probably meant: a word put right by one edit, when that names a session', () => {
    const { home } = corpus();
    const r = run(home, ['wbshop', 'discounts', '--dry-run']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("resume: no session matches 'wbshop discounts'; did you mean 'webshop discounts'?\n");
    // a word only a prompt holds stays as typed (the pi session's second prompt), and no session holds both: nothing said
    expect(run(home, ['test', 'wbshop', '--dry-run']).stderr).toBe("resume: no session matches 'test wbshop'\n");
    // nothing near: nothing said; the same from resolve
    expect(run(home, ['zzzqqq']).stderr).toBe("resume: no session matches 'zzzqqq'\n");
    expect(run(home, ['resolve', 'Astor']).stderr).toBe("resume: no session matches 'Astor'; did you mean 'astro'?\n");
    // show and emit too
    expect(run(home, ['show', 'discounst']).stderr).toBe("resume: no session matches 'discounst'; did you mean 'discounts'?\n");
    expect(run(home, ['emit', 'discounst']).stderr).toBe("resume: no session matches 'discounst'; did you mean 'discounts'?\n");
  });

  it('a query one edit from a subcommand that matches nothing is a usage error', () => {
    const { home } = corpus();
    for (const [typo, cmd] of [
      ['lsit', 'ls'],
      ['lss', 'ls'],
      ['shwo', 'show'],
      ['idnex', 'index'],
      ['resovle', 'resolve'],
      ['list', 'ls'],
    ]) {
      const r = run(home, [typo]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`resume: no session matches '${typo}'; did you mean '${cmd}'?\n`);
    }
    // Two edits away: just no match.
    expect(run(home, ['lsitx']).code).toBe(1);
    // A query that matches is never second-guessed: `shop` is one edit from `show` but names sessions.
    const shop = run(home, ['shop', '--dry-run']);
    expect(shop.code).toBe(1);
    expect(shop.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('a transcript text in a query or title cannot reach the terminal raw', () => {
    const home = tempHome();
    const cwd = path.join(home, 'x');
    fs.mkdirSync(cwd);
    claudeSession(home, { id: uuid(1), cwd, prompt: 'evil \u001b[2J\u001b]0;title\u0007 one' });
    claudeSession(home, { id: uuid(2), cwd, prompt: 'evil two' });
    const r = run(home, ['evil', '--dry-run']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).not.toContain('\u0007');
  });
});

describe('one edit (Damerau-Levenshtein <= 1)', () => {
  it('insertions, deletions, substitutions and transpositions', () => {
    expect(oneEdit('ls', 'ls')).toBe(true);
    expect(oneEdit('lsit', 'list')).toBe(true);
    expect(oneEdit('lss', 'ls')).toBe(true);
    expect(oneEdit('l', 'ls')).toBe(true);
    expect(oneEdit('shw', 'show')).toBe(true);
    expect(oneEdit('shxw', 'show')).toBe(true);
    expect(oneEdit('lsit', 'ls')).toBe(false);
    expect(oneEdit('sohw', 'show')).toBe(true);
    expect(oneEdit('owsh', 'show')).toBe(false);
    expect(oneEdit('index', 'indexes')).toBe(false);
  });
});
