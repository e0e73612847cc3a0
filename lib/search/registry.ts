// Harness → text extractor for deep search. One line per harness.
import type { Harness } from '../types.js';
import type { Extractor } from './types.js';
import { claudeText } from '../harness/claude/text.js';
import { codexText } from '../harness/codex/text.js';
import { piText } from '../harness/pi/text.js';
import { cursorText } from '../harness/cursor/text.js';
import { opencodeText } from '../harness/opencode/text.js';
import { geminiText } from '../harness/gemini/text.js';

export const EXTRACTORS: Record<Harness, Extractor> = {
  claude: claudeText,
  codex: codexText,
  pi: piText,
  cursor: cursorText,
  opencode: opencodeText,
  gemini: geminiText,
};
