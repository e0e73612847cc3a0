// Harness → text extractor and search hooks for deep search, filled from each adapter's `search`
// part (its loaders live in lib/harness/<name>/text.ts and load only when a search or transcript
// needs them).

import { ADAPTERS } from '../harness/registry.js';
import type { Harness } from '../types.js';
import type { Extractor, SearchHooks } from './types.js';

export const EXTRACTORS = {} as Record<Harness, Extractor>;
export const HOOKS = {} as Record<Harness, SearchHooks>;

/** Load every harness's extractor and search hooks once; call before anything reads EXTRACTORS or HOOKS. */
export async function loadExtractors(): Promise<Record<Harness, Extractor>> {
  await Promise.all(
    ADAPTERS.map(async (a) => {
      if (a.search && !EXTRACTORS[a.name]) EXTRACTORS[a.name] = await a.search.text();
      if (!HOOKS[a.name]) HOOKS[a.name] = (await a.search?.hooks?.()) ?? {};
    }),
  );
  return EXTRACTORS;
}

/** The raw-head markers of every harness (tool-output lines never worth decoding when long). */
export function rawHeads(h: Harness): Buffer[] {
  // made once per harness: asked for every file a search reads (22,000 at a time)
  let b = heads.get(h);
  if (!b) {
    b = (HOOKS[h]?.rawHead ?? []).map((m) => Buffer.from(m));
    heads.set(h, b);
  }
  return b;
}
const heads = new Map<Harness, Buffer[]>();
