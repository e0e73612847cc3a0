// Naming a session (DESIGN.md "Naming a session").
import path from 'node:path';
import type { Session } from '../types.js';

export type Resolution =
  | { kind: 'one'; session: Session; how: 'path' | 'id' | 'prefix' | 'words' }
  | { kind: 'ambiguous-prefix'; candidates: Session[] }
  | { kind: 'many'; candidates: Session[] }
  | { kind: 'none' };

export const MIN_PREFIX = 4;

export function resolve(query: string[], sessions: Session[], cwd = process.cwd()): Resolution {
  const q = query.join(' ').trim();
  if (!q) return { kind: 'none' };
  if (query.length === 1) {
    const one = query[0]!;
    // (1) a path to an indexed transcript
    if (one.includes('/') || one.endsWith('.jsonl') || one.endsWith('.db') || one.endsWith('.json')) {
      const abs = path.resolve(cwd, one);
      const hit = sessions.filter((s) => s.file === abs);
      if (hit.length === 1) return { kind: 'one', session: hit[0]!, how: 'path' };
    }
    // (2) a full id (also `harness:id` keys)
    const exact = sessions.filter((s) => s.id === one || s.key === one);
    if (exact.length === 1) return { kind: 'one', session: exact[0]!, how: 'id' };
    if (exact.length > 1) return { kind: 'many', candidates: exact };
    // (3) an id prefix of at least 4 characters
    if (one.length >= MIN_PREFIX && /^[A-Za-z0-9_.-]+$/.test(one)) {
      const low = one.toLowerCase();
      const pre = sessions.filter((s) => s.id.toLowerCase().startsWith(low));
      if (pre.length === 1) return { kind: 'one', session: pre[0]!, how: 'prefix' };
      if (pre.length > 1) return { kind: 'ambiguous-prefix', candidates: pre };
    }
  }
  // (4) words: every word in the directory, title, prompts, branch, harness or id
  const words = query.flatMap((w) => w.toLowerCase().split(/\s+/)).filter(Boolean);
  const hits = sessions.filter((s) => {
    const hay = [s.cwd, s.title, s.firstPrompt, s.lastPrompt, s.branch, s.harness, s.id].filter(Boolean).join('\n').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  if (hits.length === 1) return { kind: 'one', session: hits[0]!, how: 'words' };
  if (hits.length > 1) return { kind: 'many', candidates: hits };
  return { kind: 'none' };
}
