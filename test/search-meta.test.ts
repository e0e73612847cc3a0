// Deep search (issue 11): metadata is evidence too — the branch, the directory and repository name,
// titles (Codex session_index names included) and the git facts of Codex's session_meta.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, run, tempHome, write } from './helpers.js';
import { claudeSession } from './launch-helpers.js';

function corpus() {
  const home = tempHome();
  const shop = path.join(home, 'src', 'webshop');
  fs.mkdirSync(shop, { recursive: true });
  claudeSession(home, {
    id: 'aaaaaaaa-0000-4000-8000-000000000001',
    cwd: shop,
    prompt: 'fix the rounding of totals',
    branch: 'cart-rounding',
  });
  claudeSession(home, {
    id: 'bbbbbbbb-0000-4000-8000-000000000002',
    cwd: path.join(home, 'src', 'blog'),
    prompt: 'write a post',
    branch: 'main',
  });
  const cid = '019a0000-0000-7000-8000-00000000c0de';
  const at = '2026-01-02T03:04:05.000Z';
  write(
    home,
    `.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-${cid}.jsonl`,
    jsonl(
      {
        timestamp: at,
        type: 'session_meta',
        payload: {
          id: cid,
          timestamp: at,
          cwd: shop,
          originator: 'codex_cli_rs',
          cli_version: '0.0.0',
          source: 'cli',
          git: {
            commit_hash: '9f3c2b1a7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b',
            branch: 'release-7',
            repository_url: 'git@example.com:acme/webshop.git',
          },
        },
      },
      { timestamp: at, type: 'event_msg', payload: { type: 'user_message', message: 'bump the version' } },
    ),
  );
  write(home, '.codex/session_index.jsonl', jsonl({ id: cid, thread_name: 'Pelican release checklist', updated_at: at }));
  return { home, cid };
}

describe('metadata is evidence', () => {
  const { home, cid } = corpus();
  const keys = (args: string[]) =>
    JSON.parse(run(home, ['search', '--json', ...args]).stdout).map((r: { harness: string; id: string }) => `${r.harness}:${r.id}`);

  it('a branch name finds its session, labelled as metadata', () => {
    expect(keys(['cart-rounding'])).toEqual(['claude:aaaaaaaa-0000-4000-8000-000000000001']);
    const out = run(home, ['search', 'cart-rounding']).stdout;
    expect(out).toMatch(/metadata: .*«cart-rounding»/);
  });

  it('a commit hash (full or abbreviated) and the repository from Codex session_meta', () => {
    expect(keys(['9f3c2b1a7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b'])).toEqual([`codex:${cid}`]);
    expect(keys(['9f3c2b1a'])).toEqual([`codex:${cid}`]);
    expect(keys(['release-7'])).toEqual([`codex:${cid}`]);
    // (not the directory it names: in full it holds the home directory's path, which every session's holds)
    expect(run(home, ['search', path.basename(home)]).code).toBe(1);
  });

  it('a harness-stored title (Codex session_index) and the directory name; words may mix metadata and text', () => {
    expect(keys(['pelican'])).toEqual([`codex:${cid}`]);
    expect(keys(['webshop', 'rounding'])).toEqual(['claude:aaaaaaaa-0000-4000-8000-000000000001']);
    expect(keys(['blog'])).toEqual(['claude:bbbbbbbb-0000-4000-8000-000000000002']);
  });

  it('text a user typed still ranks above metadata', () => {
    // "webshop" is only metadata in the Claude session; in this one it is typed
    claudeSession(home, {
      id: 'cccccccc-0000-4000-8000-000000000003',
      cwd: path.join(home, 'src', 'blog'),
      prompt: 'port the webshop theme to the blog',
    });
    expect(keys(['webshop'])[0]).toBe('claude:cccccccc-0000-4000-8000-000000000003');
  });
});

describe('every result says how to resume it', () => {
  const { home, cid } = corpus();
  it('the full id and the resume line per result; --json carries resume {cwd, argv, env}', () => {
    const out = run(home, ['search', 'webshop']).stdout;
    expect(out).toContain(`id: ${cid}`);
    expect(out).toContain(`resume: cd ${path.join(home, 'src', 'webshop')} && codex resume ${cid}`);
    const j = JSON.parse(run(home, ['search', '--json', 'pelican']).stdout);
    expect(j[0].resume).toEqual({ cwd: path.join(home, 'src', 'webshop'), argv: ['codex', 'resume', cid], env: {} });
  });
  it('one clearly best result: said, and its resume line is the last line', () => {
    const out = run(home, ['search', 'pelican']).stdout.trimEnd().split('\n');
    expect(out.at(-2)).toBe(`best: codex ${cid}`);
    expect(out.at(-1)).toBe(`cd ${path.join(home, 'src', 'webshop')} && codex resume ${cid}`);
  });
});
