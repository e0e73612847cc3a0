// `npm run real:record [client…]`: install the pinned clients (clients.json), start the mock model
// server, drive each client in a throwaway HOME under /tmp/resume-real/<client>/, and write what it
// stored plus a manifest.json under test/fixtures/real/<client>-<version>/.
// `npm run real:record -- --starts [client…]` records how sessions begin (drivers.mjs, "Starts") into
// test/fixtures/real/<client>-<version>-starts/ instead, leaving the main set as it is.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { drivers, startDrivers } from './drivers.mjs';
import { clients, install } from './install.mjs';
import { dirSize, fixturesRoot, log, realRoot, scanSecrets } from './lib.mjs';
import { SCRIPTS, startMock } from './mock-server.mjs';

const ORDER = ['claude', 'codex', 'pi', 'opencode', 'gemini', 'qwen', 'copilot', 'droid', 'kilo'];
const args = process.argv.slice(2);
const startsOnly = args.includes('--starts');
const named = args.filter((a) => a !== '--starts');
const wanted = named.length ? named : ORDER;
for (const w of wanted)
  if (!clients[w]) {
    process.stderr.write(`real:record: unknown client ${w}\n`);
    process.exit(2);
  }

const logDir = join(homedir(), '.cache', 'resume-real', 'logs');
mkdirSync(logDir, { recursive: true });
mkdirSync(realRoot, { recursive: true });
let failed = 0;
for (const name of wanted) {
  const { version } = clients[name];
  const mock = await startMock({
    maxMs: 20 * 60 * 1000,
    maxRequests: 2000,
    unknownLog: join(logDir, `${name}-unknown.jsonl`),
    requestLog: join(logDir, `${name}-requests.jsonl`),
  });
  try {
    const bin = install(name);
    log(`${name} ${version}: recording against ${mock.url}`);
    const dest = join(fixturesRoot, `${name}-${version}${startsOnly ? '-starts' : ''}`);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    const result = await (startsOnly ? startDrivers : drivers)[name]({ bin, mock, dest, version });
    const manifest = {
      client: name,
      package: clients[name].package,
      ...(clients[name].wrapper ? { wrapper: clients[name].wrapper, binaryPackage: clients[name].binaryPackage } : {}),
      version,
      ...(startsOnly ? { scenario: 'starts' } : {}),
      recordedAt: new Date().toISOString().slice(0, 10),
      home: result.home,
      note: result.note,
      scripts: SCRIPTS,
      sessions: result.sessions,
    };
    writeFileSync(join(dest, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const fake = scanSecrets(dest);
    log(
      `${name}: ${result.sessions.length} sessions, ${(dirSize(dest) / 1024).toFixed(0)} KiB${fake.length ? `; fake key in ${fake.join(', ')}` : ''}`,
    );
  } catch (e) {
    failed++;
    log(`${name}: FAILED: ${e?.stack || e}`);
  } finally {
    await mock.close();
  }
}
log(`logs of every request: ${logDir}`);
process.exit(failed ? 1 : 0);
