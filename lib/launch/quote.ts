// Quoting one word for the user's shell, so `cd DIR && ARGV` round-trips any directory name.
//
// zsh and bash: shell-quote's `quote`. It round-trips spaces, quotes, `$`, backticks, `;`, `&`,
// globs, `!` and non-ASCII (checked in real shells by test/launch.test.ts), but it leaves control
// characters raw and puts newlines inside single quotes, so the line would span several lines and a
// printed line could carry escape sequences to the terminal. A word holding any such character is
// written as ANSI-C `$'…'` instead (bash and zsh both read it), with those characters as `\xHH`
// bytes of their UTF-8 encoding (locale-independent).
//
// fish: written here deliberately. Inside fish single quotes only `\\` and `\'` are escapes (no
// `$`, no globs, no command substitution); control characters are placed outside the quotes as
// `\xHH` escapes, which fish concatenates with the quoted parts into one word.
import shellQuote from 'shell-quote';
import { HAS_CONTROL } from '../util/text.js';

export type ShellName = 'zsh' | 'bash' | 'fish';
export const SHELLS: readonly ShellName[] = ['zsh', 'bash', 'fish'];

// C0 and C1 controls, DEL, line/paragraph separators, bidi marks and overrides: never written raw
// (the one list of such characters is lib/util/text.ts's CONTROL_CHARS).
const UNSAFE = HAS_CONTROL;

/** `\xHH` per UTF-8 byte of one character (`\n`, `\t` for the common ones). */
function hexBytes(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  return [...Buffer.from(ch, 'utf8')].map((b) => '\\x' + b.toString(16).padStart(2, '0')).join('');
}

function ansiC(w: string): string {
  let out = "$'";
  for (const ch of w) {
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (UNSAFE.test(ch)) out += hexBytes(ch);
    else out += ch;
  }
  return out + "'";
}

/** One word quoted for zsh or bash. */
export function quotePosix(w: string): string {
  if (UNSAFE.test(w)) return ansiC(w);
  return shellQuote.quote([w]);
}

// Words fish reads literally without quotes (no `~`, `%`, `{`, `*`, `?`, `$`, `#`, `(`, …).
const FISH_BARE = /^[A-Za-z0-9_\/.,:@+=-]+$/;

/** One word quoted for fish. */
export function quoteFish(w: string): string {
  if (FISH_BARE.test(w)) return w;
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

/** A word for a one-line message on stderr: as-is when plain, else quoted so nothing raw reaches the terminal. */
export function shown(w: string): string {
  return /^[A-Za-z0-9_\/.,:@+=~-]+$/.test(w) ? w : quotePosix(w);
}
