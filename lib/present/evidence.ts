// How a search's evidence reads, in `resume search` and in the picker's preview during deep search:
// what the text was (a prompt, a reply, …) and where it lies when not in the session's own live
// transcript.
import type { Evidence } from '../search/search.js';

const ROLE_LABEL: Record<Evidence['role'], string> = {
  user: 'prompt',
  assistant: 'reply',
  'tool-call': 'tool call',
  'tool-output': 'tool output',
  task: 'task',
  metadata: 'metadata',
};

/** `prompt`, `reply (subagent)`, `prompt (prompt history)`, `tool output (abandoned branch)`, … */
export function evidenceTag(e: Evidence): string {
  return (
    ROLE_LABEL[e.role] +
    (e.via ? ` (${e.via})` : '') +
    (e.copied ? ' (copied)' : '') +
    (e.child ? ' (subagent)' : '') +
    (e.abandoned ? ' (abandoned branch)' : '')
  );
}
