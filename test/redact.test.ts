// The one sanitiser: every secret rule with a real-shaped sample (redacted) and near misses (kept),
// and the control-character stripping it starts with.
import { describe, expect, it } from 'vitest';
import { INDEX_VERSION } from '../lib/index/index.js';
import type { SessionCore } from '../lib/types.js';
import { fnv1a } from '../lib/util/fnv.js';
import { maySecret, redact, sanitize, sanitizeSession, sanitizeText, secretRules } from '../lib/util/redact.js';
import { CONTROL_CHARS, oneLine, safeText, stripControls } from '../lib/util/text.js';

// Samples are assembled from parts so this file holds no string a secret scanner would flag.
const j = (...p: string[]) => p.join('');
const A40 = 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY/+'; // 40 characters of the AWS secret alphabet
const R = (n: number, alphabet = 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz') =>
  Array.from({ length: n }, (_, i) => alphabet[(i * 7) % alphabet.length]).join('');
const HEX = (n: number) => Array.from({ length: n }, (_, i) => '0123456789abcdef'[(i * 5 + 3) % 16]).join('');

/** [rule kind, sample text, the secret part that must vanish] */
const SAMPLES: [string, string, string][] = [
  ['anthropic-key', j('key: sk-ant-', 'api03-', R(93), 'AA'), j('sk-ant-api03-', R(20))],
  ['openai-key', j('OPENAI key sk-', 'proj-', R(48), ' ok'), j('proj-', R(30))],
  ['openai-key', j('old key sk-', R(20), 'T3BlbkFJ', R(20)), R(20)],
  ['stripe-key', j('stripe sk_', 'live_', R(24)), j('live_', R(24))],
  ['stripe-key', j('restricted rk_', 'live_', R(24)), R(24)],
  ['github-token', j('export GH=ghp_', R(36)), R(36)],
  ['github-token', j('oauth gho_', R(36)), R(36)],
  ['github-token', j('user ghu_', R(36)), R(36)],
  ['github-token', j('server ghs_', R(36)), R(36)],
  ['github-token', j('refresh ghr_', R(36)), R(36)],
  ['github-token', j('pat github_', 'pat_', R(22), '_', R(59)), R(22)],
  ['gitlab-token', j('glpat', '-', R(20)), R(20)],
  ['slack-token', j('slack xoxb', '-1234567890-1234567890123-', R(24)), R(24)],
  ['slack-token', j('user xoxp', '-1234567890-1234567890-1234567890123-', HEX(32)), HEX(32)],
  ['slack-webhook', j('https://hooks.slack.com/services/', 'T0000000/B0000000/', R(24)), R(24)],
  ['aws-key', j('AKIA', 'IOSFODNN7EXAMPLE is the id'), 'IOSFODNN7EXAMPLE'],
  ['aws-secret', j('AKIA', 'IOSFODNN7EXAMPLE ', A40), A40],
  ['aws-secret', j('aws_secret_access_key = ', A40), A40],
  ['google-key', j('AIza', 'SyD', R(32)), R(32)],
  ['azure-key', j('DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=', R(86), '==;EndpointSuffix=core.windows.net'), R(86)],
  ['azure-key', j('Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=', R(43), '='), R(43)],
  ['azure-sas', j('https://acct.blob.core.windows.net/c/b?sv=2021-08-06&sp=r&sig=', R(44), '%3D'), R(44)],
  ['azure-client-secret', j('client secret ', 'abc8Q~', R(34)), R(34)],
  ['twilio-key', j('twilio SK', HEX(32)), HEX(32)],
  ['sendgrid-key', j('SG', '.', R(22), '.', R(43)), R(43)],
  ['npm-token', j('//registry.npmjs.org/:_authToken=npm_', R(36)), R(36)],
  ['pypi-token', j('pypi-', 'AgEIcHlwaS5vcmc', R(60)), R(60)],
  ['huggingface-token', j('HF hf_', R(34)), R(34)],
  ['private-key', j('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow', R(60), '\n-----END RSA ', 'PRIVATE KEY-----'), R(60)],
  ['jwt', j('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.', R(43)), R(43)],
  ['url-password', 'git clone https://alice:pa55word@git.example.com/r.git', 'pa55word'],
  ['bearer-token', j('curl -H "Authorization: Bearer ', R(40), '"'), R(40)],
  ['bearer-token', j('token was Bearer ', R(40)), R(40)],
  ['bearer-token', j('Token: Bearer ', R(40)), R(40)],
  ['password', 'DB_PASSWORD=hunter2hunter2', 'hunter2'],
  ['password', 'password: "correct horse"', 'correct horse'],
  ['secret', j('client_secret=', R(12)), R(12)],
  ['token', j('"token": "', R(16), '"'), R(16)],
  ['api-key', j('api_key = ', R(16)), R(16)],
  ['password', 'mysql --password=s3cr3tpw -u root', 's3cr3tpw'],
  // an environment variable's name ending in a secret-ish word after others
  ['password', 'DB_PASS=hunter2hunter2', 'hunter2'],
  ['api-key', j('export MISTRAL_KEY=', R(32)), R(32)],
  ['api-key', j('SECRET_KEY_BASE=', HEX(64)), HEX(64)],
  ['api-key', j('JWT_SIGNING_KEY: "', R(40), '"'), R(40)],
  // .netrc, a Docker config's auth, cookies
  ['password', 'machine api.example.com login bob password pa55word', 'pa55word'],
  ['docker-auth', j('{"auths":{"ghcr.io":{"auth":"', 'Ym9iOnBhNTV3b3Jk', '"}}}'), 'Ym9iOnBhNTV3b3Jk'],
  ['cookie', j("curl -H 'Cookie: sessionid=", R(32), "; theme=dark' https://x"), R(32)],
  ['cookie', j('Set-Cookie: session=', R(32), '; Path=/; HttpOnly'), R(32)],
  // passwords on command lines (the user is kept)
  ['password', 'curl -u alice:pa55word https://api.example.com', 'pa55word'],
  ['password', 'curl -X POST --user "alice:pa55 word" https://x', 'pa55'],
  ['password', 'mysqldump -uroot -ppa55word shop > shop.sql', 'pa55word'],
  ['password', 'sshpass -p pa55word ssh deploy@host', 'pa55word'],
  ['password', 'docker login -u bob -p pa55word registry.example.com', 'pa55word'],
  ['password', 'mongosh -u admin -p pa55word', 'pa55word'],
  ['password', 'redis-cli -h cache -a pa55word ping', 'pa55word'],
  ['password', 'redis-cli --pass pa55word ping', 'pa55word'],
  ['password', 'smbclient //host/share -U bob%pa55word', 'pa55word'],
  ['password', 'openssl enc -aes256 -pass pass:pa55word -in x', 'pa55word'],
  ['password', 'ssh-keygen -t ed25519 -N pa55word', 'pa55word'],
  ['password', 'htpasswd -bc /etc/nginx/.htpasswd admin pa55word && nginx -s reload', 'pa55word'],
  ['password', 'htpasswd -nbB -C 12 admin "pa55 word"', 'pa55'],
  // secrets set from a command line
  ['secret', j('aws configure set aws_secret_access_key ', A40), A40],
  ['secret', 'gh secret set NPM_TOKEN --body pa55word', 'pa55word'],
  ['secret', 'kubectl create secret generic db --from-literal=pw=pa55word', 'pa55word'],
  // providers' tokens known by their prefix alone (redact.ts prefixedTable), bare or after a name that is not secret-ish
  ['groq-key', j('export GROQ=gsk', '_', R(52)), R(40)],
  ['xai-key', j('xai', '-', R(80)), R(40)],
  ['replicate-token', j('REPLICATE=r8', '_', R(37)), R(30)],
  ['perplexity-key', j('pplx', '-', R(48)), R(32)],
  ['langsmith-key', j('lsv2', '_pt_', HEX(32), '_', HEX(10)), HEX(32)],
  ['pinecone-key', j('pcsk', '_', R(20), '_', R(40)), R(40)],
  ['elevenlabs-key', j('xi key sk', '_', HEX(48)), HEX(40)],
  ['google-oauth', j('client GOCSPX', '-', R(28)), R(28)],
  ['google-oauth', j('access ya29', '.', R(120)), R(40)],
  ['google-oauth', j('refresh 1', '//0', R(100)), R(40)],
  ['supabase-token', j('sbp', '_', HEX(40)), HEX(40)],
  ['supabase-token', j('sb_secret', '_', R(32)), R(32)],
  ['neon-key', j('napi', '_', HEX(64)), HEX(60)],
  ['planetscale-token', j('pscale_tkn', '_', R(43)), R(32)],
  ['databricks-token', j('host x token dapi', HEX(32)), HEX(32)],
  ['digitalocean-token', j('dop_v1', '_', HEX(64)), HEX(64)],
  ['heroku-key', j('HRKU', '-', R(60)), R(40)],
  ['render-key', j('rnd', '_', R(32)), R(30)],
  ['netlify-token', j('nfp', '_', R(40)), R(36)],
  ['fly-token', j('FlyV1 fm2', '_', R(120)), R(40)],
  ['docker-token', j('dckr_pat', '_', R(27)), R(20)],
  ['pulumi-token', j('pul', '-', HEX(40)), HEX(40)],
  ['terraform-token', j(R(14), '.atlasv1.', R(70)), R(60)],
  ['vault-token', j('VAULT=hvs', '.', R(95)), R(40)],
  ['doppler-token', j('dp.st', '.dev.', R(44)), R(40)],
  ['tailscale-key', j('tskey-auth', '-', R(12), '-', R(30)), R(30)],
  ['age-key', j('AGE-SECRET', '-KEY-1', R(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')), R(40, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')],
  ['1password-token', j('ops', '_eyJ', R(250)), R(50)],
  ['linear-key', j('lin_api', '_', R(40)), R(32)],
  ['notion-token', j('ntn', '_', R(46)), R(40)],
  ['notion-token', j('integration secret', '_', R(43), ' here'), R(43)],
  ['atlassian-token', j('ATATT3', R(180)), R(100)],
  ['atlassian-token', j('app password ATBB', R(32)), R(28)],
  ['sentry-token', j('sntrys', '_eyJ', R(80)), R(40)],
  ['grafana-token', j('glsa', '_', R(32), '_', HEX(8)), R(32)],
  ['grafana-token', j('glc', '_', R(60)), R(32)],
  ['postman-key', j('PMAK', '-', HEX(24), '-', HEX(34)), HEX(34)],
  ['newrelic-key', j('NRAK', '-', R(27).toUpperCase()), R(20).toUpperCase()],
  ['sourcegraph-token', j('sgp', '_', HEX(16), '_', HEX(40)), HEX(40)],
  ['contentful-token', j('CFPAT', '-', R(43)), R(43)],
  ['figma-token', j('figd', '_', R(40)), R(30)],
  ['airtable-token', j('pat', R(14), '.', HEX(64)), HEX(64)],
  ['shopify-token', j('shpat', '_', HEX(32)), HEX(32)],
  ['square-token', j('sq0atp', '-', R(22)), R(22)],
  ['stripe-webhook-secret', j('whsec', '_', R(32)), R(24)],
  ['mailgun-key', j('mailgun key', '-', HEX(32)), HEX(32)],
  ['resend-key', j('re', '_', R(8), '_', R(30)), R(24)],
  ['telegram-token', j('bot 1234567890', ':AA', R(33)), R(33)],
  ['discord-webhook', j('https://discord.com/api/webhooks/', '123456789012345678/', R(68)), R(40)],
  ['discord-token', j('client.login("M', R(25), '.', R(6), '.', R(38), '")'), R(38)],
  ['discord-token', j('DISCORD_BOT=N', R(23), '.', R(7), '.', R(27)), R(27)],
  [
    'teams-webhook',
    j('https://acme.webhook.office.com/webhookb2/', HEX(8), '-1111-2222-3333-', HEX(12), '@', HEX(8), '/IncomingWebhook/', HEX(32), '/x'),
    HEX(32),
  ],
  ['teams-webhook', j('https://outlook.office.com/webhook/', HEX(8), '-1111-2222-3333-', HEX(12), '/IncomingWebhook/', HEX(32)), HEX(32)],
  ['firebase-key', j('AAAA', R(7), ':APA91b', R(134)), R(100)],
  ['mapbox-token', j('sk', '.eyJ', R(40), '.', R(22)), R(40)],
];

const NEAR_MISSES = [
  'commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it', // a git sha
  'commit 3f2a9c1 and 3f2a9c1d8e7b',
  'session 0197a3f2-8c1d-7e6b-9a5f-4e3d2c1b0a98 resumed', // a UUID
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', // base64 image prefix
  'the task-management-service is slow', // a hyphenated word around "sk-"
  'max_tokens: 4096 and tokens used 12',
  'the AKIA prefix marks an AWS key id', // the prefix alone
  'ghp_ tokens start with ghp_', // the prefix alone
  'a password manager is a good idea', // the word without a value
  'eyJhbGciOiJIUzI1NiJ9 alone is no token', // a JWT header without the rest
  'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'pk_live_ keys are publishable', // Stripe publishable prefix
  // the providers' prefixes in names and prose, without a token after them
  'set rnd_seed to 42, call re_match_all and lin_reg, read pat.json and the path pattern',
  'a key-value store with key-2 entries and a secret_key_base setting',
  'edit dp.py; the sk_test prefix; hvs. and ya29 and whsec_ are prefixes; time 12:AA',
  'gsk_ and xai- and sk.eyJ and ops_eyJ and AGE-SECRET-KEY-1 alone are no tokens',
  'the dapi-client 2.0 and pul-request flows',
  // secret-ish words that name no secret, and command lines without a password
  'MAX_TOKENS=4096 and TOKEN_LIMIT=9; sort_key=name, primary_key=True',
  "ssh-keygen -t ed25519 -N '' -f key; mysql -u root -p shop",
  'htpasswd -c .htpasswd admin; htpasswd -D .htpasswd bob; htpasswd -v .htpasswd carol; the webhook.office.com docs',
  'git push -u origin main; docker run -u 1000:1000 image; curl -u alice https://x',
  'aws configure set region us-east-1; gh secret list; kubectl create configmap x --from-literal=a=b',
  'the cookie: a small cake; "auth": "none"; const auth = require("./auth"); the machine learning password reset',
  // dotted names of about a Discord bot token's length, but not its shape
  'MyApplicationConfiguration.builder.withTimeout(30) and NotificationManagerCompat.from(context).notify(id)',
  'org.springframework.boot.autoconfigure.web.ServerProperties',
];

describe('secret rules', () => {
  it.each(SAMPLES)('%s: %s', (kind, text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(`[REDACTED:${kind}]`);
    // idempotent: a second pass changes nothing (the index may sanitise twice)
    expect(redact(out)).toBe(out);
  });

  it('every rule kind has a sample', () => {
    const { rules, prefixed } = secretRules();
    const kinds = new Set([...rules.map((r) => r.kind).filter((k) => k !== 'prefixed'), ...prefixed.map(([k]) => k)]);
    const sampled = new Set(SAMPLES.map((s) => s[0]));
    for (const k of kinds) if (k !== 'secret' && k !== 'authorization') expect(sampled, k).toContain(k);
  });

  it('keeps the label so the reader sees what was there', () => {
    expect(redact('git clone https://alice:pa55word@git.example.com/r.git')).toBe(
      'git clone https://alice:[REDACTED:url-password]@git.example.com/r.git',
    );
    expect(redact('export DB_PASSWORD=hunter2')).toBe('export DB_PASSWORD=[REDACTED:password]');
    expect(redact('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe('Authorization: Basic [REDACTED:authorization]');
  });

  it.each(NEAR_MISSES)('keeps %s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('the prefilter lets plain text through untouched and is never wrong about a sample', () => {
    expect(maySecret('fix the flaky test in the checkout flow')).toBe(false);
    for (const [, text] of SAMPLES) expect(maySecret(text), text).toBe(true);
  });
});

describe('long text', () => {
  // A rule that looked behind at every character (kubectl's --from-literal) took over ten minutes on
  // a 2.8 MB line of command words; each rule's look now starts at its own words. (Only a hang fails
  // this: no time is asserted.)
  it('a line of megabytes full of the rules words is redacted, and its secrets with it', () => {
    const words = 'curl https://x mysql shop docker login registry redis-cli ping ssh-keygen -t rsa smbclient //h gh secret set X ';
    const line = `${words.repeat(8000)}${'--from-literal=x=y '.repeat(20000)}${'secret token key pass '.repeat(20000)}`;
    const out = redact(`${line}; kubectl create secret generic a --from-literal=a=pa55word; curl -u alice:pa55word https://x`);
    expect(out).toContain('curl -u alice:[REDACTED:password]');
    expect(out).toContain('--from-literal=a=[REDACTED:secret]');
    expect(out).not.toContain('pa55word');
  }, 60_000);
});

describe('control characters', () => {
  const nasty =
    'a\x1b[31mred\x1b[0m b\x1b]0;title\x07c \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ d\x1bPq#0;1\x1b\\e \u202egnp.exe\u202c f\x00g\x7fh\x9bi\u2028j\tk\r\nl';
  it('oneLine removes escape sequences whole and every control (one implementation)', () => {
    const t = oneLine(nasty);
    // eslint-disable-next-line no-control-regex
    expect(t).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(t).toContain('ared');
    expect(t).toContain('link');
    expect(t).not.toContain('title');
    expect(t).not.toContain('q#0');
  });
  it('safeText keeps line breaks and nothing else', () => {
    const t = safeText(nasty);
    expect(t).toMatch(/k\nl$/);
    // eslint-disable-next-line no-control-regex
    expect(t).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  });
  it('clean text comes back as it was', () => {
    expect(stripControls('plain ünïcode 日本語 text')).toBe('plain ünïcode 日本語 text');
  });
  it('strips before redacting: a secret split by an escape sequence is still found', () => {
    const out = sanitize(j('ghp_', R(10), '\x1b[0m', R(26)));
    expect(out).toBe('[REDACTED:github-token]');
  });
  it('sanitizeText keeps a PEM block recognisable across lines', () => {
    const out = sanitizeText(
      j('here:\n-----BEGIN OPENSSH ', 'PRIVATE KEY-----\r\n', R(70), '\r\n-----END OPENSSH ', 'PRIVATE KEY-----\nthanks'),
    );
    expect(out).toBe('here:\n[REDACTED:private-key]\nthanks');
  });
});

describe('sanitizeSession', () => {
  it('sanitises every text field and keeps ids, paths and the directory', () => {
    const s: SessionCore = {
      harness: 'claude',
      id: 'abc',
      cwd: '/tmp/x',
      title: 't\x1b[2J',
      firstPrompt: j('use ghp_', R(36)),
      lastPrompt: 'password=x1',
      lastReply: 'line1\nline2 \x1b]0;pwn\x07',
      prompts: 2,
      branch: 'main\u202e',
      model: 'm',
      started: 1,
      updated: 2,
      file: '/tmp/x.jsonl',
      hidden: false,
      hiddenReason: null,
      parent: null,
      forkedFrom: null,
      allPrompts: ['one', j('AKIA', 'IOSFODNN7EXAMPLE')],
    };
    const o = sanitizeSession(s);
    expect(o.title).toBe('t');
    expect(o.firstPrompt).toBe('use [REDACTED:github-token]');
    expect(o.lastPrompt).toBe('password=[REDACTED:password]');
    expect(o.lastReply).toBe('line1\nline2 ');
    expect(o.branch).toBe('main');
    expect(o.allPrompts).toEqual(['one', '[REDACTED:aws-key]']);
    expect([o.id, o.cwd, o.file]).toEqual(['abc', '/tmp/x', '/tmp/x.jsonl']);
  });

  // An append passes the texts the index stored for the session (sanitised) as `done`: they are
  // kept as they are, which is right only because sanitize's results are its own fixed points.
  it('sanitize is idempotent on every sample, near miss and control-character text', () => {
    const texts = [
      ...SAMPLES.map((x) => x[1]),
      ...NEAR_MISSES,
      't\x1b[2J  x',
      'a\u202e b\n c\t',
      j('use ghp_', R(36), ' \x1b]0;t\x07 and password=x1'),
    ];
    for (const t of texts) {
      const once = sanitize(t);
      expect(sanitize(once), t).toBe(once);
    }
  });

  it('a change to the rules comes with a new INDEX_VERSION (stored texts are trusted as sanitised)', () => {
    // When this fails after a change to the redaction: bump INDEX_VERSION in
    // lib/index/files.ts, then put the new value here.
    const { rules: all, prefixed, may } = secretRules();
    const rules = all.map((r) => [r.kind, r.kw, r.re.source, r.re.flags]).concat(prefixed.map(([k, kw, re]) => [k, kw, re.source]));
    const sig = fnv1a(Buffer.from(JSON.stringify([rules, may.source, may.flags, CONTROL_CHARS]))).toString(16);
    expect({ INDEX_VERSION, sig }).toEqual({ INDEX_VERSION: 39, sig: 'a4c4918c' });
  });

  it('keeps the texts given as sanitised already, and sanitises every other', () => {
    const secret = j('AKIA', 'IOSFODNN7EXAMPLE');
    const s: SessionCore = {
      harness: 'pi',
      id: 'p',
      cwd: '/w',
      title: null,
      firstPrompt: 'first \x1b[2J',
      lastPrompt: `new ${secret}`,
      lastReply: null,
      prompts: 3,
      branch: null,
      model: null,
      started: 1,
      updated: 2,
      file: '/w/p.jsonl',
      hidden: false,
      hiddenReason: null,
      parent: null,
      forkedFrom: null,
      allPrompts: ['first \x1b[2J', 'stored already', `new ${secret}`],
    };
    // what the index stored for the first two prompts: their sanitised forms
    const done = new Set(['first', 'stored already']);
    const o = sanitizeSession(s, done);
    expect(o.allPrompts).toEqual(['first', 'stored already', 'new [REDACTED:aws-key]']);
    expect(o.firstPrompt).toBe('first');
    expect(o.lastPrompt).toBe('new [REDACTED:aws-key]');
    // a raw text is never taken for its stored form: only an equal string is kept
    const o2 = sanitizeSession(
      { ...s, allPrompts: [`old ${secret}`], firstPrompt: `old ${secret}`, lastPrompt: `old ${secret}` },
      new Set(['old [REDACTED:aws-key]']),
    );
    expect(o2.allPrompts).toEqual(['old [REDACTED:aws-key]']);
    expect(o2.firstPrompt).toBe('old [REDACTED:aws-key]');
  });
});
