// The one sanitiser for text that came from a session: control characters and escape sequences out
// (lib/util/text.ts's stripControls), then every recognised secret replaced by `[REDACTED:<kind>]`.
// It runs where the index stores a session (sanitizeSession: so no listing, table, JSON or
// completion can forget it) and again on text read straight from transcripts (search snippets, the
// preview, the transcript pager).
//
// Each rule replaces the secret, not its label, so the reader still sees what was there:
// `Authorization: Bearer [REDACTED:bearer-token]`, `password=[REDACTED:password]`,
// `https://user:[REDACTED:url-password]@host`, `[REDACTED:github-token]`. Over-redacting is
// preferred to leaking: a value after a secret-ish name goes, whatever it looks like.
//
// Speed: a stored prompt passes through here at index time. Two cheap tests (one case-sensitive
// regex of the providers' prefixes, one case-insensitive of the secret-ish words) decide whether any
// rule can match; most text fails both and is returned as it came.
//
// What the index stores is trusted as sanitised: an append keeps a session's earlier prompts as the
// index stored them (sanitizeSession's `done`). So a change to what is redacted (a rule, a keyword,
// the control characters) must bump INDEX_VERSION in lib/index/files.ts: every source is then parsed
// and sanitised again. test/redact.test.ts holds a fingerprint of the rules (their patterns, keywords
// and this prefilter, and the control characters) next to INDEX_VERSION, and fails when one changes
// without the other.
import type { SessionCore } from '../types.js';
import { oneLine, safeText } from './text.js';

/** `[REDACTED:<kind>]` */
export const redacted = (kind: string): string => `[REDACTED:${kind}]`;

interface Rule {
  /** the rule's kind, as it appears in `[REDACTED:<kind>]` */
  kind: string;
  /** lower-case words one of which the text must hold for the rule to be tried (a cheap test first) */
  kw: string[];
  re: RegExp;
  to?: (...m: string[]) => string;
}

const tag = redacted;

// name = value pairs: the names (ending the key) that mark a secret value
const SECRET_NAME =
  '(?:passw(?:or)?d|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|client[_-]?secret|credentials?|token)';

const nameKind = (name: string): string =>
  /pass|pwd/i.test(name) ? 'password' : /token/i.test(name) ? 'token' : /key/i.test(name) ? 'api-key' : 'secret';

/** The rules, most specific first (a later rule never re-redacts a `[REDACTED:…]`). Exported for tests. */
export const RULES: Rule[] = [
  // PEM private keys: the whole block; a block cut by the excerpt's edge is removed to that edge.
  {
    kind: 'private-key',
    kw: ['private key'],
    re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g,
  },
  { kind: 'private-key', kw: ['private key'], re: /^[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g },
  // Provider keys and tokens with recognisable shapes.
  { kind: 'anthropic-key', kw: ['sk-ant-'], re: /\bsk-ant-[A-Za-z0-9_-]{8,}/g },
  { kind: 'openai-key', kw: ['sk-'], re: /\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{16,}/g },
  { kind: 'openai-key', kw: ['sk-'], re: /\bsk-[A-Za-z0-9_-]{20,}/g },
  { kind: 'stripe-key', kw: ['k_'], re: /\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}/g },
  { kind: 'github-token', kw: ['gh'], re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}/g },
  { kind: 'github-token', kw: ['github_pat_'], re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { kind: 'gitlab-token', kw: ['gl'], re: /\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{16,}/g },
  { kind: 'slack-token', kw: ['xox'], re: /\bxox[abposre]-[A-Za-z0-9-]{8,}/g },
  { kind: 'slack-token', kw: ['xapp-'], re: /\bxapp-\d-[A-Za-z0-9-]{8,}/g },
  { kind: 'slack-webhook', kw: ['hooks.slack'], re: /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{8,}/g },
  // AWS: an access key id, and the 40-character secret written right after it (`AKIA… wJalr…`)
  {
    kind: 'aws-key',
    kw: ['akia', 'asia', 'a3t', 'abia', 'acca', 'agpa', 'aida', 'aroa', 'anpa', 'anva', 'aipa'],
    re: /\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16})\b(?:([\s"',:;=|/]{1,12}(?:[A-Za-z_]{0,40}[\s"':=]{1,4})?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=]))?/g,
    to: (_m, _id: string, sep: string | undefined, secret: string | undefined) =>
      tag('aws-key') + (secret ? `${sep}${tag('aws-secret')}` : ''),
  },
  {
    kind: 'aws-secret',
    kw: ['access'],
    re: /\b((?:aws_?)?secret_?access_?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    to: (_m, name: string) => `${name}${tag('aws-secret')}`,
  },
  { kind: 'google-key', kw: ['aiza'], re: /\bAIza[0-9A-Za-z_-]{30,}/g },
  // Azure: storage account keys and SAS signatures in connection strings and URLs, AD client secrets
  {
    kind: 'azure-key',
    kw: ['accountkey', 'sharedaccess'],
    re: /\b((?:AccountKey|SharedAccessKey|SharedAccessSignature)=)([^;\s"']{16,})/gi,
    to: (_m, name: string) => `${name}${tag('azure-key')}`,
  },
  { kind: 'azure-sas', kw: ['sig='], re: /([?&]sig=)([A-Za-z0-9%+/=]{16,})/g, to: (_m, name: string) => `${name}${tag('azure-sas')}` },
  { kind: 'azure-client-secret', kw: ['q~'], re: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g },
  { kind: 'twilio-key', kw: ['sk'], re: /\bSK[0-9a-f]{32}\b/g },
  { kind: 'sendgrid-key', kw: ['sg.'], re: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}/g },
  { kind: 'npm-token', kw: ['npm_'], re: /\bnpm_[A-Za-z0-9]{30,}/g },
  { kind: 'pypi-token', kw: ['pypi-'], re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'huggingface-token', kw: ['hf_', 'api_org_'], re: /\b(?:hf_|api_org_)[A-Za-z0-9]{30,}/g },
  { kind: 'jwt', kw: ['eyj'], re: /\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g },
  { kind: 'jwt', kw: ['eyj'], re: /\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g },
  // Authorization headers (any scheme), then bare bearer tokens.
  {
    kind: 'authorization',
    kw: ['authoriz'],
    re: /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?!(?:(?:bearer|basic|token|digest|negotiate|apikey)\s+)?\[REDACTED)(?:(bearer|basic|token|digest|negotiate|apikey)\s+)?([^\s"',;]+)/gi,
    to: (_m, head: string, scheme: string | undefined) =>
      `${head}${scheme ? `${scheme} ` : ''}${tag(scheme && /^bearer$/i.test(scheme) ? 'bearer-token' : 'authorization')}`,
  },
  {
    kind: 'bearer-token',
    kw: ['bearer', 'basic'],
    re: /\b(bearer|basic)(\s+)(?!\[REDACTED)([A-Za-z0-9._~+/=-]{12,})/gi,
    to: (_m, s: string, sp: string) => `${s}${sp}${tag(/^bearer$/i.test(s) ? 'bearer-token' : 'authorization')}`,
  },
  // URLs with credentials: keep the user, drop the password.
  {
    kind: 'url-password',
    kw: ['://'],
    re: /(?<=[a-z0-9+.-]):\/\/([^\s:@/"'<>[\]]+):(?!\[REDACTED)([^\s@/"'<>]+)@/gi,
    to: (_m, user: string) => `://${user}:${tag('url-password')}@`,
  },
  // name = value / "name": "value" for secret-ish names (DB_PASSWORD=, "api_key": "…", token: …).
  {
    kind: 'secret',
    kw: ['pass', 'pwd', 'secret', 'key', 'token', 'credential'],
    re: new RegExp(
      `(${SECRET_NAME}["']?)(\\s*(?::|=|:=|=>)\\s*)(?!\\[REDACTED|(?:bearer|basic)\\s)("[^"\\n]*"|'[^'\\n]*'|[^\\s"',;&)}\\]]+)`,
      'gi',
    ),
    to: (_m, name: string, op: string, val: string) => {
      const q = val[0] === '"' || val[0] === "'" ? val[0] : '';
      return `${name}${op}${q}${tag(nameKind(name))}${q}`;
    },
  },
  {
    kind: 'secret',
    kw: ['-pass', '-token', '-secret', '-api-key'],
    re: /(--?(?:password|passwd|token|secret|api-key)[ =])(?!\[REDACTED)(\S+)/gi,
    to: (_m, flag: string) => `${flag}${tag(/pass/i.test(flag) ? 'password' : /token/.test(flag) ? 'token' : 'secret')}`,
  },
];

// The prefilter: a rule can match only where one of these occurs. One case-insensitive regex of
// literal alternatives (measured faster than String.includes per word, and than lower-casing first).
const KEYWORDS = [
  'sk-',
  'sk_',
  'rk_',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'glpat-',
  'gldt-',
  'glrt-',
  'glptt-',
  'glcbt-',
  'gloas-',
  'glsoat-',
  'glft-',
  'glimt-',
  'glagent-',
  'xox',
  'xapp-',
  'hooks.slack',
  'aiza',
  'akia',
  'asia',
  'a3t',
  'abia',
  'acca',
  'agpa',
  'aida',
  'aroa',
  'anpa',
  'anva',
  'aipa',
  'q~',
  'sg.',
  'npm_',
  'pypi-',
  'hf_',
  'api_org_',
  'private key',
  'eyj',
  'sig=',
  'pass',
  'pwd',
  'secret',
  'token',
  'key',
  'credential',
  'authoriz',
  'bearer',
  'basic',
  'sharedaccess',
];
/** the prefilter (exported for the rules' fingerprint in the tests) */
export const MAY = new RegExp(
  [...KEYWORDS.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), ':\\/\\/[^\\s/@]+:[^\\s/@]*@', 'sk[0-9a-f]{32}'].join('|'),
  'i',
);

/** Might the text hold a secret? (false: no rule can match) */
export function maySecret(s: string): boolean {
  return MAY.test(s);
}

/** The text with every recognised secret replaced by `[REDACTED:<kind>]`. */
export function redact(s: string): string {
  if (!s || !maySecret(s)) return s;
  let out = s;
  let low = s.toLowerCase();
  for (const r of RULES) {
    if (!r.kw.some((k) => low.includes(k))) continue;
    r.re.lastIndex = 0;
    const before = out;
    out = r.to ? out.replace(r.re, r.to as (...m: string[]) => string) : out.replace(r.re, tag(r.kind));
    if (out !== before) low = out.toLowerCase();
  }
  return out;
}

/** One line of session text for display or storage: controls and escapes out, then secrets. */
export function sanitize(s: string): string {
  return redact(oneLine(s));
}

/** Multi-line session text (a reply, a transcript turn): controls out but newlines kept, then secrets. */
export function sanitizeText(s: string): string {
  return redact(safeText(s));
}

const nul = <T>(v: T | null | undefined, f: (x: T) => T): T | null => (v == null ? null : f(v));

/**
 * A session as the index stores it: every text field that came from the session sanitised (title,
 * prompts, reply, branch, model). The directory, ids and file paths are kept as they are (they are
 * needed to resume; display paths pass them through oneLine). `done`: one-line texts known to be
 * sanitised already (sanitize's own results), kept as they are: an append to a session of hundreds
 * of prompts redacted every one of them again (~15 ms at 300 prompts).
 */
export function sanitizeSession<T extends SessionCore>(s: T, done?: ReadonlySet<string> | null): T {
  // `{ ...s, title: … }` field by field: the same object, but with a hidden class shared by every
  // session (a spread gives each copy its own, about half a KiB per session at scale)
  const out: T = Object.assign({}, s);
  const all = s.allPrompts;
  // a text that is already the sanitised form of one (`done`: an append's earlier prompts, as the
  // index stored them) is its own sanitised form: sanitize(sanitize(x)) === sanitize(x)
  const one = done ? (v: string) => (done.has(v) ? v : sanitize(v)) : sanitize;
  const sane = all?.map(one);
  if (sane) out.allPrompts = sane;
  // the first and last prompts (and a title that is the first) are among every prompt: the same
  // strings, sanitised once
  const once = (v: string | null | undefined): string | null => {
    if (v == null) return null;
    if (all?.length && sane) {
      if (v === all[0]) return sane[0];
      if (v === all[all.length - 1]) return sane[all.length - 1];
    }
    return one(v);
  };
  out.title = once(s.title);
  out.firstPrompt = once(s.firstPrompt);
  out.lastPrompt = once(s.lastPrompt);
  out.lastReply = nul(s.lastReply, sanitizeText);
  out.branch = nul(s.branch, sanitize);
  out.model = nul(s.model, sanitize);
  return out;
}
