// `[[resume.on_update]]` entries of the config file: what `resume hooks run` does when a harness
// changes version.
//
//   [[resume.on_update]]
//   harness = "claude"                 # only claude for now
//   action = "restart"                 # exactly one of action or command
//   timeout_seconds = 1800             # default 300 for a command, 1800 for the restart
//
//   [[resume.on_update]]
//   harness = "claude"
//   command = ["/usr/bin/notify-send", "claude updated"]   # argv, run without a shell
import { HARNESSES } from '../types.js';
import { isTable, tomlType } from '../util/toml-value.js';

export interface OnUpdate {
  /** 1-based position among the entries (config order) */
  n: number;
  harness: 'claude';
  action: 'restart' | null;
  /** argv (no shell) when this is a command hook */
  command: string[] | null;
  timeoutSeconds: number;
}

export const SUPPORTED = ['claude'] as const;
export const DEFAULT_TIMEOUT = 300;
export const RESTART_TIMEOUT = 1800;
const KEYS = ['harness', 'action', 'command', 'timeout_seconds'];

/**
 * The `[resume]` table's value. Returns the hooks, or a message naming the key (the caller turns it
 * into the config's exit-2 error).
 */
export function parseResumeTable(v: unknown): OnUpdate[] | { error: string } {
  if (!isTable(v)) return { error: `'resume' must be a table ([resume] or [[resume.on_update]]), not ${tomlType(v)}` };
  const out: OnUpdate[] = [];
  for (const [k, val] of Object.entries(v)) {
    if (k !== 'on_update') return { error: `unknown key 'resume.${k}' (known: on_update)` };
    if (!Array.isArray(val)) return { error: `'resume.on_update' must be an array of tables ([[resume.on_update]]), not ${tomlType(val)}` };
    for (let i = 0; i < val.length; i++) {
      const r = parseEntry(val[i], i);
      if ('error' in r) return r;
      out.push(r);
    }
  }
  return out;
}

function parseEntry(e: unknown, i: number): OnUpdate | { error: string } {
  const at = `resume.on_update[${i}]`;
  if (!isTable(e)) return { error: `'${at}' must be a table ([[resume.on_update]]), not ${tomlType(e)}` };
  for (const k of Object.keys(e))
    if (!KEYS.includes(k)) return { error: `unknown key '${at}.${k.replace(/[^\x20-\x7e]/g, '?')}' (known: ${KEYS.join(', ')})` };
  const harnessError = checkHarness(e.harness, at);
  if (harnessError) return { error: harnessError };
  const hasA = e.action !== undefined;
  const hasC = e.command !== undefined;
  if (hasA === hasC) return { error: `'${at}' needs exactly one of action = "restart" or command = ["program", "arg", …]` };
  let action: 'restart' | null = null;
  let command: string[] | null = null;
  if (hasA) {
    if (e.action !== 'restart')
      return { error: `'${at}.action' must be "restart"${typeof e.action === 'string' ? '' : `, not ${tomlType(e.action)}`}` };
    action = 'restart';
  } else {
    const c = parseCommand(e.command, at);
    if ('error' in c) return c;
    command = c;
  }
  const timeoutSeconds = parseTimeout(e.timeout_seconds, at, action ? RESTART_TIMEOUT : DEFAULT_TIMEOUT);
  if (typeof timeoutSeconds !== 'number') return timeoutSeconds;
  return { n: i + 1, harness: 'claude', action, command, timeoutSeconds };
}

/** Why `harness` is not one update hooks support, or null when it is. */
function checkHarness(h: unknown, at: string): string | null {
  if (h === undefined) return `'${at}.harness' is missing (harness = "claude")`;
  if (typeof h !== 'string') return `'${at}.harness' must be a string, not ${tomlType(h)}`;
  if ((SUPPORTED as readonly string[]).includes(h)) return null;
  if ((HARNESSES as readonly string[]).includes(h))
    return `'${at}.harness' = "${h}": update hooks are not supported yet for ${h} (only "claude")`;
  return `'${at}.harness' must be one of ${HARNESSES.join(', ')} (only "claude" is supported yet)`;
}

function parseCommand(c: unknown, at: string): string[] | { error: string } {
  if (!Array.isArray(c)) return { error: `'${at}.command' must be an array of strings (argv, run without a shell), not ${tomlType(c)}` };
  if (c.length === 0) return { error: `'${at}.command' must name a program` };
  for (let j = 0; j < c.length; j++) {
    if (typeof c[j] !== 'string') return { error: `'${at}.command[${j}]' must be a string, not ${tomlType(c[j])}` };
    if ((c[j] as string).includes('\u0000')) return { error: `'${at}.command[${j}]' must not contain a NUL character` };
  }
  if ((c[0] as string).trim() === '') return { error: `'${at}.command[0]' must name a program` };
  return c as string[];
}

function parseTimeout(t: unknown, at: string, fallback: number): number | { error: string } {
  if (t === undefined) return fallback;
  if (typeof t !== 'number' && typeof t !== 'bigint')
    return { error: `'${at}.timeout_seconds' must be a number of seconds, not ${tomlType(t)}` };
  const n = Number(t);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400) return { error: `'${at}.timeout_seconds' must be more than 0 and at most 86400` };
  return n;
}
