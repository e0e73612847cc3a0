// Quoting one word for a shell: the one place that does it.
//
//   quotePosix  the user's zsh or bash (launch lines, --dry-run, `init` headers, `__fzf-flags`)
//   quoteFish   the user's fish
//   quoteSh     a plain POSIX sh (fzf's `--with-shell=sh -c` callbacks, Claude hook commands)
//   shown       a word inside a one-line message on stderr
//
// zsh, bash and sh: bare when plain, else single quotes, inside which every character is literal
// (no `$`, backticks, globs, and no `!` history expansion in an interactive bash, which double
// quotes would allow). A zsh/bash word holding a control character is written as ANSI-C `$'…'`
// instead (bash and zsh both read it), with those characters as `\xHH` bytes of their UTF-8
// encoding (locale-independent), so a printed line stays one line and carries no escape sequence.
// Plain sh (dash) has no `$'…'`: quoteSh keeps such characters inside single quotes.
//
// fish: written here deliberately. Inside fish single quotes only `\\` and `\'` are escapes (no
// `$`, no globs, no command substitution); control characters are placed outside the quotes as
// `\xHH` escapes, which fish concatenates with the quoted parts into one word.
import { HAS_CONTROL } from './text.js';

export type ShellName = 'zsh' | 'bash' | 'fish';
export const SHELLS: readonly ShellName[] = ['zsh', 'bash', 'fish'];

// C0 and C1 controls, DEL, line/paragraph separators, bidi marks and overrides: never written raw
// (the one list of such characters is lib/util/text.ts's CONTROL_CHARS).
const UNSAFE = HAS_CONTROL;

/** `\xHH` per UTF-8 byte of one character (`\n`, `\t` for the common ones). */
function hexBytes(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  return [...Buffer.from(ch, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
}

function ansiC(w: string): string {
  let out = "$'";
  for (const ch of w) {
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (UNSAFE.test(ch)) out += hexBytes(ch);
    else out += ch;
  }
  return `${out}'`;
}

/** One word quoted for zsh or bash. */
export function quotePosix(w: string): string {
  return UNSAFE.test(w) ? ansiC(w) : quoteSh(w);
}

// Words fish reads literally without quotes (no `~`, `%`, `{`, `*`, `?`, `$`, `#`, `(`, …).
const BARE = /^[A-Za-z0-9_/.,:@+=-]+$/;
// Words sh, bash and zsh read literally: as above plus `%`, but not starting with `=` (zsh expands
// `=cmd` to the path of cmd).
const SH_BARE = /^[A-Za-z0-9_/.,:@+%-][A-Za-z0-9_/.,:@+=%-]*$/;

/** One word quoted for fish. */
export function quoteFish(w: string): string {
  if (BARE.test(w)) return w;
  let out = '';
  let open = false;
  for (const ch of w) {
    if (UNSAFE.test(ch)) {
      if (open) {
        out += "'";
        open = false;
      }
      out += hexBytes(ch);
    } else {
      if (!open) {
        out += "'";
        open = true;
      }
      out += ch === '\\' ? '\\\\' : ch === "'" ? "\\'" : ch;
    }
  }
  if (open) out += "'";
  return out || "''";
}

export function quoteFor(shell: ShellName): (w: string) => string {
  return shell === 'fish' ? quoteFish : quotePosix;
}

/**
 * One word for a plain POSIX sh (dash included): bare when plain, else in single quotes, where every
 * byte but NUL is literal. No ANSI-C quoting (`$'…'` is not in every sh), so a newline stays a
 * newline inside the quotes: for command strings that sh runs, not for lines shown to a user.
 */
export function quoteSh(w: string): string {
  return SH_BARE.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** A word for a one-line message on stderr: as-is when plain, else quoted so nothing raw reaches the terminal. */
export function shown(w: string): string {
  return /^[A-Za-z0-9_/.,:@+=~-]+$/.test(w) ? w : quotePosix(w);
}
