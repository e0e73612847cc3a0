// The state shards of a full build, written entry by entry as the sources are parsed, so the parser
// state of every source is never held at once (the caller lets an entry's state go once it is
// written: see `build` in lib/index/index.ts).
//
// Each shard is one JSON object, `{"v":…,"entries":{"<path>":<entry>,…}}`, an entry a line
// (lib/index/promptfile.ts), with its entries in a fixed order (the order of the build's entries, as the whole-object writer gave them). The order
// of every shard is known before parsing starts; an entry made before its turn (worker threads
// finish out of order) waits in the caller's entries until the ones before it are written. Each
// shard goes to a temp file (mode 0600) renamed into place when its last entry is written: a reader
// sees the old shard or the new one, whole.
import fs from 'node:fs';
import path from 'node:path';
import { itemSep, memberLine, STATE_TAIL } from './promptfile.js';
import { removeFile } from '../util/fsx.js';

/**
 * Text held per shard before it is written out. Small on purpose: with 16 shards filled at once,
 * text held longer outlives two young-generation collections, is moved to the old generation, and
 * 160 MB of shard text (at 22,000 sources) would pass through it as garbage.
 */
const FLUSH = 4 << 10;

interface Open {
  fd: number;
  tmp: string;
  buf: string;
  /** an item is written already (the next is preceded by a comma) */
  any: boolean;
}

export class ShardWriter<E> {
  private at: number[];
  private open = new Map<number, Open>();
  private failed: unknown = null;

  /**
   * `seqs[n]`: the paths of shard n in their order; `get(p)`: the entry of p once it is made
   * (undefined before); `written(p, e)`: called once p's entry is in its shard's temp file.
   * `item`: the text an entry is written as ('' for none; each item is a line, after a comma but
   * the first), and `tail` what closes the file (by default the state shards' object of entries).
   */
  constructor(
    private file: (n: number) => string,
    private head: string,
    private seqs: string[][],
    private get: (p: string) => E | undefined,
    private written: (p: string, e: E) => void,
    private item: (p: string, e: E) => string = memberLine,
    private tail = STATE_TAIL,
  ) {
    this.at = seqs.map(() => 0);
  }

  /** The first write error, if any: nothing more is written after it and no temp file is left. */
  get error(): unknown {
    return this.failed;
  }

  /** Write what shard n can take now (the entries made, in order); finish it when all are in. */
  pump(n: number): void {
    if (this.failed) return;
    try {
      this.step(n);
    } catch (err) {
      this.fail(err);
    }
  }

  /** Pump every shard (at the start: shards of reused or no entries; at the end: all). */
  pumpAll(): void {
    for (let n = 0; n < this.seqs.length; n++) this.pump(n);
  }

  /** Shards not finished (an entry never made, or an error): their temp files are removed. */
  close(): void {
    for (const n of [...this.open.keys()]) this.drop(n);
  }

  private step(n: number): void {
    const seq = this.seqs[n]!;
    let o = this.open.get(n);
    if (this.at[n]! > seq.length) return; // finished
    // (its file is made when it has an entry to take: a build's first rows do not wait for all of them)
    if (!o && this.at[n]! < seq.length && this.get(seq[this.at[n]!]!) === undefined) return;
    if (!o) {
      const file = this.file(n);
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
      o = { fd: fs.openSync(tmp, 'w', 0o600), tmp, buf: this.head, any: false };
      this.open.set(n, o);
    }
    while (this.at[n]! < seq.length) {
      const p = seq[this.at[n]!]!;
      const e = this.get(p);
      if (e === undefined) return;
      const text = this.item(p, e);
      if (text) {
        o.buf += itemSep(o.any ? 1 : 0) + text;
        o.any = true;
      }
      this.at[n]!++;
      if (o.buf.length >= FLUSH) {
        fs.writeSync(o.fd, o.buf);
        o.buf = '';
      }
      this.written(p, e);
    }
    fs.writeSync(o.fd, o.buf + this.tail);
    o.buf = '';
    fs.closeSync(o.fd);
    this.open.delete(n);
    this.at[n] = seq.length + 1;
    try {
      fs.renameSync(o.tmp, this.file(n));
    } catch (err) {
      removeFile(o.tmp);
      throw err;
    }
  }

  private fail(err: unknown): void {
    this.failed = err;
    this.close();
  }

  private drop(n: number): void {
    const o = this.open.get(n)!;
    this.open.delete(n);
    try {
      fs.closeSync(o.fd);
    } catch {
      /* closed already */
    }
    removeFile(o.tmp);
  }
}

/**
 * Two writers over the same entries, pumped together: the first (the prompt files) takes each entry
 * before the second (the state shards) is told it is written and may let parts of it go. Only the
 * second's error counts: a prompt file not written is read from its shard instead.
 */
export class PairedShardWriter<E> {
  constructor(
    private first: ShardWriter<E>,
    private second: ShardWriter<E>,
  ) {}

  get error(): unknown {
    return this.second.error;
  }

  pump(n: number): void {
    this.first.pump(n);
    this.second.pump(n);
  }

  pumpAll(): void {
    this.first.pumpAll();
    this.second.pumpAll();
  }

  close(): void {
    this.first.close();
    this.second.close();
  }
}
