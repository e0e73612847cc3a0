// Node built-ins that cost start-up time and are needed only on some paths, loaded on first use.
// (`node:crypto` alone adds ~9 ms to a run: a no-change listing never hashes anything.)
import { createRequire } from 'node:module';

const req = createRequire(import.meta.url);
let cryptoMod: typeof import('node:crypto') | null = null;

export function createHash(algorithm: string): import('node:crypto').Hash {
  cryptoMod ??= req('node:crypto') as typeof import('node:crypto');
  return cryptoMod.createHash(algorithm);
}

/** Is descriptor `fd` a terminal? (process.stdout.isTTY would build the stream, and load node:net for a pipe.) */
export function isTty(fd: number): boolean {
  return (req('node:tty') as typeof import('node:tty')).isatty(fd);
}
