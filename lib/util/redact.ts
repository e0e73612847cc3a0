// Secrets out of anything shown from a transcript (search snippets, previews). Each rule replaces
// the secret, not its label, so the reader still sees what was there: `Authorization: Bearer
// [REDACTED]`, `password=[REDACTED]`, `https://user:[REDACTED]@host`, `[REDACTED:github-token]`.
// Over-redacting is preferred to leaking: a long random-looking value after a secret-ish name goes.

export const REDACTED = '[REDACTED]';

interface Rule {
  re: RegExp;
  to: string | ((...m: string[]) => string);
}

const tag = (name: string) => `[REDACTED:${name}]`;

const RULES: Rule[] = [
  // PEM private keys: the whole block; a block cut by the excerpt's edge is removed to that edge.
  { re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g, to: tag('private-key') },
  { re: /^[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g, to: tag('private-key') },
  // Provider keys and tokens with recognisable shapes.
  { re: /\bsk-ant-[A-Za-z0-9_-]{8,}/g, to: tag('anthropic-key') },
  { re: /\bsk-(?:proj-|svcacct-|admin-|live_|test_|live-|test-)?[A-Za-z0-9_-]{16,}/g, to: tag('api-key') },
  { re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}/g, to: tag('github-token') },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, to: tag('github-token') },
  { re: /\bglpat-[A-Za-z0-9_-]{16,}/g, to: tag('gitlab-token') },
  { re: /\bxox[abposre]-[A-Za-z0-9-]{8,}/g, to: tag('slack-token') },
  { re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g, to: tag('aws-key') },
  { re: /\bAIza[0-9A-Za-z_-]{30,}/g, to: tag('google-key') },
  { re: /\bnpm_[A-Za-z0-9]{30,}/g, to: tag('npm-token') },
  { re: /\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g, to: tag('jwt') },
  // Authorization headers (any scheme), then bare bearer tokens.
  {
    re: /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(bearer|basic|token|digest|negotiate|apikey)\s+)?([^\s"',;]+)/gi,
    to: (_m, head: string, scheme: string | undefined) => `${head}${scheme ? scheme + ' ' : ''}${REDACTED}`,
  },
  { re: /\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{12,})/gi, to: (_m, s: string, sp: string) => `${s}${sp}${REDACTED}` },
  // URLs with credentials: keep the user, drop the password.
  { re: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/"'<>]+):([^\s@/"'<>]+)@/gi, to: (_m, sch: string, user: string) => `${sch}${user}:${REDACTED}@` },
  // name = value / "name": "value" for secret-ish names (DB_PASSWORD=, "api_key": "…", --password x).
  {
    re: /\b([A-Za-z0-9_.-]*(?:passw(?:or)?d|passwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|client[_-]?secret|credentials?)["']?)(\s*(?::|=|:=|=>)\s*)(?!\[REDACTED)("[^"\n]*"|'[^'\n]*'|[^\s"',;&)}\]]+)/gi,
    to: (_m, name: string, op: string, val: string) => {
      const q = val[0] === '"' || val[0] === "'" ? val[0] : '';
      return `${name}${op}${q}${REDACTED}${q}`;
    },
  },
  { re: /(--?(?:password|passwd|token|secret|api-key)[ =])(?!\[REDACTED)(\S+)/gi, to: (_m, flag: string) => `${flag}${REDACTED}` },
];

/** The text with every recognised secret replaced. */
export function redact(s: string): string {
  let out = s;
  for (const r of RULES) {
    r.re.lastIndex = 0;
    out = out.replace(r.re, r.to as any);
  }
  return out;
}
