// Several sessions fit and no picker can ask: one line per candidate on stdout.

import { label } from '../output.js';
import type { Session } from '../types.js';
import { oneLine } from '../util/text.js';

/** One candidate per line: short id, harness, directory, title (tab-separated, sanitized). */
export function candidateLines(list: Session[], shorts: Map<string, string>): string {
  const f = (v: string) => oneLine(v).replace(/\t/g, ' ');
  return list.map((s) => `${[f(shorts.get(s.id) ?? s.id), s.harness, f(s.cwd ?? '?'), f(label(s))].join('\t')}\n`).join('');
}
