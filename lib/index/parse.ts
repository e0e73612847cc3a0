// Parse one changed source: continue a `lines` source from its offset, or read a `whole` one.

import { adapter } from '../harness/registry.js';
import type { Ctx, Line, LineState, SessionCore, Source } from '../types.js';

const EMPTY = Buffer.alloc(0);

import { readFully } from '../util/fsx.js';
import { sanitizeSession } from '../util/redact.js';
import { MAX_LINE, readLines } from './lines.js';

export interface Job {
  src: Source;
  size: number;
  /** continue from this offset with this state (lines mode); 0 and null = from the start */
  from: number;
  state: LineState | null;
  /**
   * One-line texts of the source's sessions as the index stored them, sanitised (an append: its
   * earlier prompts and titles), which are not sanitised again
   */
  done?: string[];
}

export interface JobResult {
  path: string;
  offset: number;
  tail: string;
  state: LineState;
  sessions: SessionCore[];
  error?: string;
}

export async function runJob(job: Job, ctx: Ctx): Promise<JobResult> {
  const a = adapter(job.src.harness);
  const done = job.done?.length ? new Set(job.done) : null;
  const clean = (s: SessionCore) => sanitizeSession(s, done);
  try {
    if (job.src.mode === 'lines') {
      const r = a.lines;
      if (!r) throw new Error(`${a.name} has no line reader`);
      const state = job.state ?? r.begin(job.src);
      const line = r.line.bind(r);
      const wantLong = r.wantLong?.bind(r);
      const want = wantLong ? (head: Buffer) => wantLong(state, head) : undefined;
      const settle = r.settle ? r.settle.bind(r) : null;
      // one Line for the whole file, set again for each line (types.ts Line)
      const l: Line = { buf: EMPTY, start: 0, end: 0, complete: true, at: undefined };
      const read = readLines(
        job.src.path,
        job.from,
        job.size,
        (buf, s, e, complete, at) => {
          l.buf = buf;
          l.start = s;
          l.end = e;
          l.complete = complete;
          // (an offset only where the adapter settles what it put off: without one it decodes every line)
          if (settle) l.at = at;
          line(state, l);
        },
        { wantLong: want, maxLine: MAX_LINE, after: settle ? (fd) => settle(state, (at, len) => readBack(fd, at, len)) : undefined },
      );
      return { path: job.src.path, offset: read.offset, tail: read.tail, state, sessions: a.sessions(state, job.src).map(clean) };
    }
    if (!a.whole) throw new Error(`${a.name} has no whole-file reader`);
    const state = await a.whole(job.src, ctx);
    return { path: job.src.path, offset: job.size, tail: '', state, sessions: a.sessions(state, job.src).map(clean) };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { path: job.src.path, offset: 0, tail: '', state: {}, sessions: [], error: msg.split('\n')[0] };
  }
}

/** The bytes [at, at + len) of an open file; null when it is shorter now. */
function readBack(fd: number, at: number, len: number): Buffer | null {
  const b = Buffer.allocUnsafe(len);
  return readFully(fd, b, 0, len, at) === len ? b : null;
}
