// Worker thread: parses the jobs it is handed and posts the results back.
import { parentPort, workerData } from 'node:worker_threads';
import { makeCtx } from '../util/paths.js';
import { type Job, runJob } from './parse.js';

const ctx = makeCtx(workerData?.env ?? process.env);
// this file only runs as a worker (lib/index/index.ts starts it), where parentPort is always there
const port = parentPort;
if (!port) throw new Error('lib/index/worker.ts runs only in a worker thread');
port.on('message', async (msg: { id: number; job: Job } | null) => {
  if (msg === null) {
    process.exit(0);
  }
  const res = await runJob(msg.job, ctx);
  port.postMessage({ id: msg.id, res });
});
