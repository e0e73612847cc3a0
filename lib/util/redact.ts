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
// Speed: a stored prompt passes through here at index time. One cheap test (a case-insensitive
// pattern of every rule's words, factored by their common starts) decides whether any rule can
// match; most text fails it and is returned as it came. Each rule then looks for its own words
// before its pattern runs. The rules are made when the first text is redacted, not at load.
// Every span a rule crosses is bounded, so that a line of megabytes stays linear.
//
// What the index stores is trusted as sanitised: an append keeps a session's earlier prompts as the
// index stored them (sanitizeSession's `done`). So a change to what is redacted (a rule, a keyword,
// the control characters) must bump INDEX_VERSION in lib/index/files.ts: every source is then parsed
// and sanitised again. test/redact.test.ts holds a fingerprint of the rules (their patterns, keywords
// and this prefilter, and the control characters) next to INDEX_VERSION, and fails when one changes
// without the other.
import type { SessionCore } from '../types.js';
import { escapeRe, oneLine, safeText } from './text.js';

/** `[REDACTED:<kind>]` */
export const redacted = (kind: string): string => `[REDACTED:${kind}]`;

/** Where `redacted` labels are in a text, [start, end) each (every kind is lower-case letters, digits and `-`). */
export function redactedSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (let at = text.indexOf('[REDACTED:'); at >= 0; at = text.indexOf('[REDACTED:', at + 1)) {
    const m = /^\[REDACTED:[a-z0-9-]+\]/.exec(text.slice(at, at + 64));
    if (m) out.push([at, at + m[0].length]);
  }
  return out;
}

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

/** `tagged` in the quotes `val` had, if it had any (a quoted secret stays quoted). */
const quoted = (val: string, tagged: string): string => {
  const q = val[0] === '"' || val[0] === "'" ? val[0] : '';
  return `${q}${tagged}${q}`;
};

/**
 * More providers' tokens, each known by its prefix alone (a key pasted into a prompt bare, or after
 * a name that is not secret-ish, `export GROQ=gsk_…`): model providers, databases and hosting,
 * secret stores, developer tools, mail and chat. [kind, its words for the cheap test, the token]
 */
type Prefixed = [string, string[], RegExp];
const prefixedTable = (): Prefixed[] => [
  ['groq-key', ['gsk_'], /gsk_[A-Za-z0-9]{40,}/],
  ['xai-key', ['xai-'], /xai-[A-Za-z0-9]{40,}/],
  ['replicate-token', ['r8_'], /r8_[A-Za-z0-9]{30,}/],
  ['perplexity-key', ['pplx-'], /pplx-[A-Za-z0-9]{32,}/],
  ['langsmith-key', ['lsv2_'], /lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b/],
  ['pinecone-key', ['pcsk_'], /pcsk_[A-Za-z0-9_]{40,}/],
  ['elevenlabs-key', ['sk_'], /sk_[a-f0-9]{40,}\b/],
  ['google-oauth', ['gocspx-', 'ya29.', '1//0'], /(?:GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[A-Za-z0-9_-]{30,}|1\/\/0[A-Za-z0-9_-]{40,})/],
  ['supabase-token', ['sbp_', 'sb_secret_'], /(?:sbp_[a-f0-9]{40}\b|sb_secret_[A-Za-z0-9_-]{20,})/],
  ['neon-key', ['napi_'], /napi_[a-z0-9]{60,}/],
  ['planetscale-token', ['pscale_'], /pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}/],
  ['databricks-token', ['dapi'], /dapi[a-f0-9]{32}(?:-\d)?\b/],
  ['digitalocean-token', ['_v1_'], /do[opr]_v1_[a-f0-9]{64}\b/],
  ['heroku-key', ['hrku-'], /HRKU-[A-Za-z0-9_-]{40,}/],
  ['render-key', ['rnd_'], /rnd_[A-Za-z0-9]{30,}/],
  ['netlify-token', ['nfp_'], /nfp_[A-Za-z0-9]{36,}/],
  ['fly-token', ['fm1_', 'fm2_'], /fm[12]_[A-Za-z0-9+/=_-]{40,}/],
  ['docker-token', ['dckr_pat_'], /dckr_pat_[A-Za-z0-9_-]{20,}/],
  ['pulumi-token', ['pul-'], /pul-[a-f0-9]{40}\b/],
  ['terraform-token', ['atlasv1'], /[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}/],
  ['vault-token', ['hvs.', 'hvb.', 'hvr.'], /hv[sbr]\.[A-Za-z0-9_-]{24,}/],
  ['doppler-token', ['dp.'], /dp\.(?:st|sa|ct|pt|scim|audit)\.(?:[A-Za-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}/],
  ['tailscale-key', ['tskey-'], /tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}/],
  ['age-key', ['age-secret-key-1'], /AGE-SECRET-KEY-1[0-9A-Z]{40,}/],
  ['1password-token', ['ops_eyj'], /ops_eyJ[A-Za-z0-9+/=_-]{50,}/],
  ['linear-key', ['lin_'], /lin_(?:api|oauth)_[A-Za-z0-9]{32,}/],
  ['notion-token', ['ntn_', 'secret_'], /(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}(?![A-Za-z0-9_]))/],
  ['atlassian-token', ['atatt3', 'atbb'], /(?:ATATT3[A-Za-z0-9_=-]{100,}|ATBB[A-Za-z0-9_=.-]{28,})/],
  ['sentry-token', ['sntry'], /sntr(?:ys|yu)_[A-Za-z0-9+/=_-]{40,}/],
  ['grafana-token', ['glsa_', 'glc_'], /(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|glc_[A-Za-z0-9+/=]{32,})/],
  ['postman-key', ['pmak-'], /PMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/],
  ['newrelic-key', ['nrak-', 'nrii-', 'nrjs-'], /NR(?:AK|II|JS)-[A-Za-z0-9]{20,}/],
  ['sourcegraph-token', ['sgp_'], /sgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}\b/],
  ['contentful-token', ['cfpat-'], /CFPAT-[A-Za-z0-9_-]{43}/],
  ['figma-token', ['figd_'], /figd_[A-Za-z0-9_-]{30,}/],
  ['airtable-token', ['pat'], /pat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b/],
  ['shopify-token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], /shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/],
  ['square-token', ['sq0atp-', 'sq0csp-'], /sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}/],
  ['stripe-webhook-secret', ['whsec_'], /whsec_[A-Za-z0-9+/=]{24,}/],
  ['mailgun-key', ['key-'], /key-[a-f0-9]{32}\b/],
  ['resend-key', ['re_'], /re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24,}/],
  ['telegram-token', [':aa'], /\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/],
  ['discord-webhook', ['discord'], /discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{40,}/],
  // (Microsoft Teams' incoming webhook: anyone holding the URL posts to the channel)
  [
    'teams-webhook',
    ['webhook.office', 'outlook.office'],
    /(?:webhook\.office\.com\/webhookb2|outlook\.office(?:365)?\.com\/webhook)\/[A-Za-z0-9@/_-]{40,}/,
  ],
  ['firebase-key', ['apa91b'], /AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}/],
  ['mapbox-token', ['sk.eyj'], /sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/],
];

/**
 * One rule for all of prefixedTable's tokens, its kind told by which token matched: one look for
 * their words and one pass over the text, not one of each a rule (a rule each: ~2.4 µs a prompt in
 * bench/redact.mjs's mix, against ~1.8).
 */
function prefixedRule(table: Prefixed[]): Rule {
  return {
    kind: 'prefixed',
    kw: table.flatMap(([, kw]) => kw),
    re: new RegExp(`\\b(?:${table.map(([, , re]) => `(${re.source})`).join('|')})`, 'g'),
    to: (...m: string[]) => tag(table[m.slice(1, table.length + 1).findIndex((g) => g !== undefined)]?.[0] ?? 'token'),
  };
}

/** Keys and tokens known by their shape. */
const keyRules = (prefixed: Rule): Rule[] => [
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
  // A Discord bot token: the bot's id in base64 (the digits of an id of 17 to 20 start it with M, N
  // or O), a time and an HMAC, joined by dots. No word gives it away: the prefilter looks for its
  // shape (secretRules), and the rule is tried on any text with a dot, as every token has two.
  {
    kind: 'discord-token',
    kw: ['.'],
    re: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])/g,
  },
  // (a Mapbox secret token is `sk.` and a JWT's two last parts: before the JWT rules)
  prefixed,
  { kind: 'jwt', kw: ['eyj'], re: /\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g },
  { kind: 'jwt', kw: ['eyj'], re: /\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g },
];

/** Secrets known by what labels them: a header, a scheme, a URL's user, a secret-ish name. */
const labelledRules = (): Rule[] => [
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
    to: (_m, name: string, op: string, val: string) => `${name}${op}${quoted(val, tag(nameKind(name)))}`,
  },
  {
    kind: 'secret',
    kw: ['-pass', '-token', '-secret', '-api-key'],
    re: /(--?(?:password|passwd|pass|token|secret|api-key)[ =])(?!\[REDACTED)(\S+)/gi,
    to: (_m, flag: string) => `${flag}${tag(/pass/i.test(flag) ? 'password' : /token/.test(flag) ? 'token' : 'secret')}`,
  },
  // An environment variable's name that ends in a secret-ish word after others (DB_PASS=,
  // MISTRAL_KEY=, SECRET_KEY_BASE=, JWT_SIGNING_KEY:): upper case only, where `sort_key=` in code
  // is left alone. A name that only starts with one (TOKEN_LIMIT=) is no secret's.
  {
    kind: 'secret',
    kw: ['_key', '_pass', '_secret', '_token', '_pwd', '_credential'],
    re: /\b((?:[A-Z0-9]+_)+(?:KEY|KEY_BASE|PASS|PWD|SECRET|TOKEN|CREDENTIALS?)["']?)(\s*(?::|=|:=|=>)\s*)(?!\[REDACTED|(?:bearer|basic)\s)("[^"\n]*"|'[^'\n]*'|[^\s"',;&)}\]]+)/g,
    to: (_m, name: string, op: string, val: string) => `${name}${op}${quoted(val, tag(nameKind(name)))}`,
  },
];

/** Secrets where files and commands keep them: .netrc, a Docker config, cookies, command lines. */
/** A shell argument as typed: quoted, or a word up to a space, quote or the end of a command (htpasswd's) */
const ARG = String.raw`'[^'\n]*'|"[^"\n]*"|[^\s'"|;&<>]+`;

const commandRules = (): Rule[] => [
  // A `.netrc` entry's password (`machine HOST login USER password PASS`), a Docker config's
  // `"auth"` (base64 of user:password), and cookies (`Cookie:`/`Set-Cookie:` headers: a session's).
  {
    kind: 'password',
    kw: ['machine'],
    re: /(\bmachine\s+\S+\s+login\s+\S+\s+password\s+)(?!\[REDACTED)(\S+)/g,
    to: (_m, head: string) => `${head}${tag('password')}`,
  },
  {
    kind: 'docker-auth',
    kw: ['"auth"'],
    re: /("auth"\s*:\s*")([A-Za-z0-9+/]{8,}={0,2})(")/g,
    to: (_m, a: string, _v, b: string) => `${a}${tag('docker-auth')}${b}`,
  },
  {
    kind: 'cookie',
    kw: ['cookie'],
    re: /(\b(?:set-)?cookie\s*:\s*)(?!\[REDACTED)([^\s'";=]+=[^\n'"]*)/gi,
    to: (_m, head: string) => `${head}${tag('cookie')}`,
  },
  // Passwords on command lines: `curl -u user:pass`, `mysql -pPASS`, `sshpass -p PASS`, `docker
  // login -p PASS` (and podman, helm, az, oc, mongosh), `redis-cli -a PASS`, `smbclient -U
  // user%PASS`, openssl's `-pass pass:PASS`, `ssh-keygen -N PASS`. The user is kept.
  {
    kind: 'password',
    kw: ['curl'],
    // (quoted, the password runs to the closing quote)
    re: /(\bcurl\b[^\n|;&]{0,1000}?\s(?:-u\s*|--user(?:\s+|=)))(?:(["'])([^\s:'"]+):(?!\[REDACTED)[^'"\n]*\2|([^\s:'"]+):(?!\[REDACTED)[^\s'"]+)/g,
    to: (_m, head: string, q: string | undefined, qUser: string | undefined, user: string | undefined) =>
      q ? `${head}${q}${qUser}:${tag('password')}${q}` : `${head}${user}:${tag('password')}`,
  },
  {
    kind: 'password',
    kw: ['mysql', 'mariadb'],
    re: /(\b(?:mysql(?:dump|admin|sh)?|mariadb(?:-dump)?)\b[^\n|;&]{0,1000}?\s-p)(?!\[REDACTED)([^\s'"-][^\s'"]*|'[^'\n]+'|"[^"\n]+")/g,
    to: (_m, head: string) => `${head}${tag('password')}`,
  },
  {
    kind: 'password',
    kw: ['sshpass', 'login', 'mongo', 'redis-cli', 'ssh-keygen'],
    re: /(\b(?:sshpass\s+-p\s*|(?:docker|podman|buildah|skopeo|helm(?:\s+registry)?|az|oc|cf)\s+login\b[^\n|;&]{0,1000}?\s-p\s+|mongo(?:sh|dump|restore)?\b[^\n|;&]{0,1000}?\s-p\s+|redis-cli\b[^\n|;&]{0,1000}?\s-a\s+|ssh-keygen\b[^\n|;&]{0,1000}?\s-N\s+))(?!\[REDACTED|''|"")('[^'\n]+'|"[^"\n]+"|\S+)/g,
    to: (_m, head: string) => `${head}${tag('password')}`,
  },
  // Secrets set from a command line: `aws configure set aws_secret_access_key …`, `gh secret set
  // NAME --body …`, `kubectl create secret … --from-literal=NAME=…` (the look behind comes after
  // the flag: before it, it was tried at every character of the text, ~1 s a MB; and every span
  // of a command line is bounded, 1,000 characters: unbounded, a line of megabytes full of
  // command words ran for minutes)
  {
    kind: 'secret',
    kw: ['configure', 'secret'],
    re: /(\baws\s+configure\s+set\s+\S{0,60}(?:secret|token|key)\S{0,60}\s+|\bgh\s+secret\s+set\b[^\n|;&]{0,1000}?\s(?:--body|-b)(?:\s+|=)?|--from-literal=(?<=\bkubectl\s+create\s+secret\b[^\n|;&]{0,1000}--from-literal=)[^=\s]+=)(?!\[REDACTED)('[^'\n]*'|"[^"\n]*"|\S+)/g,
    to: (_m, head: string, val: string) => `${head}${quoted(val, tag('secret'))}`,
  },
  // `htpasswd -b FILE USER PASSWORD` (`-nb USER PASSWORD`: no file), flags combined or apart (and
  // bcrypt's cost after -C)
  {
    kind: 'password',
    kw: ['htpasswd'],
    re: new RegExp(String.raw`(\bhtpasswd((?:\s+-[A-Za-z]+(?:\s+\d{1,2}(?=\s))?){1,6})\s+)((?:${ARG})(?:\s+(?:${ARG})){1,2})`, 'g'),
    to: (m: string, head: string, flags: string, args: string) => {
      if (!/-[A-Za-z]*b/.test(flags)) return m;
      // (-n: USER PASSWORD, the password second; else FILE USER PASSWORD, third)
      const pw = [...args.matchAll(new RegExp(ARG, 'g'))][/-[A-Za-z]*n/.test(flags) ? 1 : 2];
      if (pw?.index === undefined || pw[0].startsWith('[REDACTED')) return m;
      return `${head}${args.slice(0, pw.index)}${quoted(pw[0], tag('password'))}${args.slice(pw.index + pw[0].length)}`;
    },
  },
  {
    kind: 'password',
    kw: ['smb', 'rpcclient', 'pass:'],
    re: /(\b(?:smbclient|smbget|rpcclient)\b[^\n|;&]{0,1000}?\s-U\s+[^\s%]+%|-pass(?:in|out)?\s+pass:)(?!\[REDACTED)(\S+)/g,
    to: (_m, head: string) => `${head}${tag('password')}`,
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
  // (and, made with the rules, the words of commandRules and prefixedTable: secretRules)
];

/**
 * The keywords as one alternation factored by their common starts (`gh(?:p_|o_|…)`): V8 tries a
 * flat alternation's words one by one at every position of the text; with a hundred of them the
 * factored one is ~1.2 µs a prompt of prose where the flat one was ~1.4 (bench/redact.mjs).
 */
function factored(words: readonly string[]): string {
  // (sorted, the words with a common start lie together: each group is cut at the next character)
  const sorted = [...new Set(words)].sort();
  const emit = (ws: string[], at: number): string => {
    // a word that ends here matches alone: the longer ones it starts need not be looked for
    if (ws[0].length === at) return '';
    const alts: string[] = [];
    for (let i = 0; i < ws.length; ) {
      const c = ws[i][at];
      let j = i + 1;
      while (j < ws.length && ws[j][at] === c) j++;
      alts.push(escapeRe(c) + emit(ws.slice(i, j), at + 1));
      i = j;
    }
    return alts.length === 1 ? alts[0] : `(?:${alts.join('|')})`;
  };
  return sorted.length ? emit(sorted, 0) : '(?!)';
}

/** The rules and their cheap tests, as redact uses them. */
interface Compiled {
  /** prefixedTable: the providers' tokens known by their prefix alone */
  prefixed: Prefixed[];
  rules: Rule[];
  /** the prefilter: a rule can match only where this does */
  may: RegExp;
  /** each rule's cheap test of the lower-cased text: its words one by one, or, when many, factored */
  ruleMay: ((low: string) => boolean)[];
}

let made: Compiled | null = null;

/**
 * The rules and their prefilters, made when the first text is redacted: a run that redacts nothing
 * (a no-change listing: every `resume rows` the picker starts) does not make their hundred
 * patterns (~3 ms of its start). Exported for the tests (the rules' fingerprint, a sample of each).
 */
export function secretRules(): Compiled {
  if (made) return made;
  const prefixed = prefixedTable();
  const commands = commandRules();
  // (most specific first: a later rule never re-redacts a `[REDACTED:…]`)
  const rules = [...keyRules(prefixedRule(prefixed)), ...labelledRules(), ...commands];
  const may = new RegExp(
    [
      // (the command rules' words and prefixedTable's too, but two of those too common as words:
      // looked for as patterns below)
      factored([
        ...KEYWORDS,
        ...commands.flatMap((r) => r.kw),
        ...prefixed.flatMap(([, kw]) => kw).filter((k) => k !== 're_' && k !== 'pat'),
      ]),
      ':\\/\\/[^\\s/@]+:[^\\s/@]*@',
      'sk[0-9a-f]{32}',
      // (`re_` in snake_case names, `pat` in `path`)
      're_[a-z0-9]{8}_',
      'pat[a-z0-9]{14}\\.',
      // (a Discord bot token's first two parts: keyRules)
      '\\b[mno][a-z0-9_-]{23,27}\\.[a-z0-9_-]{6,7}\\.',
    ].join('|'),
    'i',
  );
  const ruleMay = rules.map((r) => {
    if (r.kw.length <= 4) return (low: string) => r.kw.some((k) => low.includes(k));
    // (flat: this runs only on text the prefilter let through, and is made on every first use)
    const re = new RegExp(r.kw.map(escapeRe).join('|'));
    return (low: string) => re.test(low);
  });
  made = { prefixed, rules, may, ruleMay };
  return made;
}

/** Might the text hold a secret? (false: no rule can match) */
export function maySecret(s: string): boolean {
  return secretRules().may.test(s);
}

/** The text with every recognised secret replaced by `[REDACTED:<kind>]`. */
export function redact(s: string): string {
  if (!s) return s;
  const { may, rules, ruleMay } = secretRules();
  if (!may.test(s)) return s;
  let out = s;
  let low = s.toLowerCase();
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    if (!ruleMay[i](low)) continue;
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
