// Node built-ins that cost start-up time and are needed only on some paths, loaded on first use.
// (`node:crypto` alone adds ~9 ms to a run: a no-change listing never hashes anything.)
import fs from 'node:fs';
import { createRequire } from 'node:module';

// the bundle's own require when there is one (dist/*.cjs): createRequire works out module paths from
// a URL, ~1 ms of every start; under ESM (the tests) there is none
const req = typeof require === 'function' ? require : createRequire(import.meta.url);
let cryptoMod: typeof import('node:crypto') | null = null;

export function createHash(algorithm: string): import('node:crypto').Hash {
  cryptoMod ??= req('node:crypto') as typeof import('node:crypto');
  return cryptoMod.createHash(algorithm);
}

let decoderMod: typeof import('node:string_decoder') | null = null;

/** node:string_decoder's StringDecoder (for the few texts decoded in pieces that are not ASCII). */
export function stringDecoder(): typeof import('node:string_decoder').StringDecoder {
  decoderMod ??= req('node:string_decoder') as typeof import('node:string_decoder');
  return decoderMod.StringDecoder;
}

let osMod: typeof import('node:os') | null = null;

/** node:os (~0.4 ms to load: a listing that finds HOME set and builds nothing never needs it). */
export function nodeOs(): typeof import('node:os') {
  osMod ??= req('node:os') as typeof import('node:os');
  return osMod;
}

/**
 * Is descriptor `fd` a terminal? (process.stdout.isTTY would build the stream, and load node:net for
 * a pipe.) Only a character device can be one: a pipe or a file is told by fstat, without loading
 * node:tty (~3 ms of an `ls` into a pipe); a closed descriptor is none, as isatty says.
 */
export function isTty(fd: number): boolean {
  try {
    if (!fs.fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return (req('node:tty') as typeof import('node:tty')).isatty(fd);
}

/**
 * The width of the terminal stdout is (80 when it does not say), or null when stdout is no terminal:
 * what `search`, `show`, `doctor` and the transcript fit their text to, and print whole into a pipe.
 */
export function stdoutColumns(): number | null {
  return process.stdout.isTTY ? process.stdout.columns || 80 : null;
}

/** A package or built-in needed only on some paths, loaded when first asked for (resolved at run time). */
export function requireLazy(id: string): unknown {
  return req(id);
}
