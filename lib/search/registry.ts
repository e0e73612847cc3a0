// Harness → text extractor for deep search, filled from each adapter's `text` loader (the
// extractors live in lib/harness/<name>/text.ts and load only when a search or transcript needs them).
import type { Harness } from '../types.js';
import type { Extractor } from './types.js';
import { ADAPTERS } from '../harness/registry.js';

export const EXTRACTORS = {} as Record<Harness, Extractor>;

/** Load every harness's extractor once; call before anything reads EXTRACTORS. */
export async function loadExtractors(): Promise<Record<Harness, Extractor>> {
  await Promise.all(
    ADAPTERS.map(async (a) => {
      if (a.text && !EXTRACTORS[a.name]) EXTRACTORS[a.name] = await a.text();
    }),
  );
  return EXTRACTORS;
}
