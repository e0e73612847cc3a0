// What a query that names no session probably meant (lib/select/suggest.ts): a word no session
// holds, put right by one edit against the words the sessions' texts hold, or against the start of
// one; matching itself stays exact, so this is only ever said.
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../lib/select/rank.js';
import { corrected, sessionTexts, unheld } from '../lib/select/suggest.js';

const texts = [
  sessionTexts({ label: 'Fix cart total rounding', cwd: '/home/u/src/webshop', branch: 'main', harness: 'codex' }),
  sessionTexts({ label: 'Webhook retry with backoff', cwd: '/home/u/src/webshop', branch: 'webhook-retry', harness: 'claude' }),
  sessionTexts({ label: 'Move my zsh aliases', cwd: '/home/u/src/dotfiles', branch: null, harness: 'claude' }),
];
const none = () => false;
/** corrected as its callers use it: the unheld words that name no session alone (`names`: the caller's rule) */
const fixed = (q: string, names: (w: string) => boolean = none) => {
  const terms = parseQuery(q);
  return corrected(terms, texts, new Set(unheld(terms, texts).filter((t) => !names(t.text))));
};
const fix = (q: string, names: (w: string) => boolean = none) => fixed(q, names)?.words.join(' ') ?? null;

describe('a word put right', () => {
  it('by one edit: a letter dropped, added, changed, or two swapped', () => {
    expect(fix('webshp')).toBe('webshop');
    expect(fix('webbshop')).toBe('webshop');
    expect(fix('wepshop')).toBe('webshop');
    expect(fix('wbeshop')).toBe('webshop');
    expect(fix('alases')).toBe('aliases');
  });

  it("against a word's start too, as a word is found inside a longer one", () => {
    expect(fix('wbsho')).toBe('webshop');
    expect(fix('dotfils')).toBe('dotfiles');
    // (the parts of a word with - _ . are words too)
    expect(fix('retyr')).toBe('retry');
  });

  it('only the words no session holds: the others, and !, quoted and directory words, stay as typed', () => {
    expect(fix('wbshop cart')).toBe('webshop cart');
    expect(fix('wbshop !cart')).toBe('webshop !cart');
    expect(fix('"job queue" wbshop')).toBe('"job queue" webshop');
    expect(fix('~/src/shop wbshop')).toBe('~/src/shop webshop');
    // a word a session's prompts hold (the caller says so) is not put right
    expect(fix('cartt', (w) => w === 'cartt')).toBeNull();
  });

  it('nothing for a short word, a word near none, or a query every word of which is held', () => {
    expect(fix('crt')).toBeNull();
    expect(fix('zzzqqq')).toBeNull();
    expect(fix('webshop cart')).toBeNull();
  });

  it('says which words it put in', () => {
    expect(fixed('wbshop cart alases')?.put).toEqual(['webshop', 'aliases']);
  });
});
