// The documentation stays what a person can use: the README is a five-minute read (at most 400
// lines), every relative link in README.md, docs/, ARCHITECTURE.md and BENCHMARKS.md leads to a
// file that exists, and the README's table of commands names exactly the real subcommands (as
// `resume --help` lists them), so neither can drift from the other. BENCHMARKS.md stays the method
// and one table (at most 250 lines), the table being what `npm run bench` rewrites between its markers.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from './helpers.js';

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const README = read('README.md');

/**
 * Commands the README documents ahead of the branch that adds them (issue 44, item 5: `resume
 * uninstall`). A name here may be real or not; take it out once the command has landed.
 */
const LANDING = new Set(['uninstall']);

/** Markdown without fenced code blocks and inline code, where `](` is not a link. */
function prose(md: string): string {
  return md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The relative link targets of a Markdown file (no scheme, not an anchor of the same page), without their anchors. */
function relativeLinks(md: string): string[] {
  const out: string[] = [];
  for (const m of prose(md).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    out.push(target.replace(/#.*$/, ''));
  }
  return out;
}

/** The subcommands `resume --help` lists under "Commands:" (the hidden `__` ones are not listed). */
function helpCommands(): Set<string> {
  const r = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  expect(r.status, r.stderr).toBe(0);
  const section = r.stdout.split(/^Commands:$/m)[1] ?? '';
  return new Set([...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]));
}

/** The subcommands the README's command table names: the word after `resume` in each row's first cell. */
function tableCommands(md = README): string[] {
  const section = md.split(/^## Commands$/m)[1]?.split(/^## /m)[0] ?? '';
  const out: string[] = [];
  for (const m of section.matchAll(/^\| `resume ([^`]*)` \|/gm)) {
    const word = m[1].split(/\s+/)[0];
    // `resume [QUERY...]`: the root command, no subcommand
    if (/^[a-z][a-z-]*$/.test(word)) out.push(word);
  }
  return out;
}

describe('the documentation', () => {
  it('README.md is at most 400 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('every relative link in README.md, docs/*.md, ARCHITECTURE.md and BENCHMARKS.md leads to a file that exists', () => {
    const files = [
      'README.md',
      'ARCHITECTURE.md',
      'BENCHMARKS.md',
      ...fs
        .readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    expect(files.length).toBeGreaterThan(4);
    const broken: string[] = [];
    let links = 0;
    for (const f of files) {
      for (const target of relativeLinks(read(f))) {
        links++;
        if (!fs.existsSync(path.join(ROOT, path.dirname(f), target))) broken.push(`${f}: ${target}`);
      }
    }
    expect(links).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it("the README's command table names only real subcommands, and every public one", () => {
    const real = helpCommands();
    expect(real.has('ls')).toBe(true);
    const named = tableCommands();
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((c) => !real.has(c) && !LANDING.has(c))).toEqual([]);
    expect([...real].filter((c) => !named.includes(c))).toEqual([]);
  });

  it("BENCHMARKS.md is at most 250 lines, and npm run bench's writer replaces only what lies between its markers", () => {
    const doc = read('BENCHMARKS.md');
    expect(doc.split('\n').length).toBeLessThanOrEqual(250);
    // bench/marked.mjs as bench/run.mjs uses it, on the file as it is
    const script = `import { between } from './bench/marked.mjs'; import fs from 'node:fs';
      const doc = fs.readFileSync('BENCHMARKS.md', 'utf8');
      process.stdout.write(JSON.stringify([between(doc, '| new | table |'), between('no markers', 'x')]));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [written, none] = JSON.parse(r.stdout) as [string, null];
    expect(none).toBeNull();
    const begin = doc.indexOf('<!-- bench:begin -->');
    const end = doc.indexOf('<!-- bench:end -->');
    expect(begin).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(begin);
    expect(written).toBe(`${doc.slice(0, begin)}<!-- bench:begin -->\n| new | table |\n${doc.slice(end)}`);
  });

  it('the link check sees a broken link, and the table check a made-up command', () => {
    expect(relativeLinks('see [x](docs/nope.md#a), [y](https://e.org), [z](#here), `[q](not/a/link)`')).toEqual(['docs/nope.md']);
    const fake =
      '## Commands\n\n| command | does |\n| --- | --- |\n| `resume frobnicate X` | no such thing |\n| `resume [QUERY...]` | root |\n';
    expect(tableCommands(fake)).toEqual(['frobnicate']);
  });
});
