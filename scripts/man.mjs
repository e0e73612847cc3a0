// Write man/resume.1 from the command definitions (lib/man.ts): `node scripts/man.mjs` (npm run man;
// npm pack runs it too, through prepack). `--stdout` prints it instead. Bundled with esbuild first,
// as the CLI is (Node does not run TypeScript), into a file beside package.json so that the bundle
// finds node_modules, then removed.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tmp = path.join(root, `.man-${process.pid}.mjs`);
try {
  await build({
    absWorkingDir: root,
    stdin: { contents: "export { manPage } from './lib/man.ts';", resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3'],
    // (commander is CommonJS: its require of node:events needs a require in an ES module)
    banner: { js: "import { createRequire as __manRequire } from 'node:module'; const require = __manRequire(import.meta.url);" },
    outfile: tmp,
    logLevel: 'warning',
  });
  const { manPage } = await import(pathToFileURL(tmp).href);
  const text = await manPage();
  if (process.argv.includes('--stdout')) process.stdout.write(text);
  else {
    fs.mkdirSync(path.join(root, 'man'), { recursive: true });
    fs.writeFileSync(path.join(root, 'man', 'resume.1'), text);
  }
} finally {
  fs.rmSync(tmp, { force: true });
}
