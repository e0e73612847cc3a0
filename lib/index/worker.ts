// Worker thread: parses the jobs it is handed and posts the results back.
import { parentPort, workerData } from 'node:worker_threads';
import { makeCtx } from '../util/paths.js';
import { type Job, runJob } from './parse.js';

const ctx = makeCtx(workerData?.env ?? process.env);
parentPort!.on('message', async (msg: { id: number; job: Job } | null) => {
  if (msg === null) {
    process.exit(0);
  }
  const res = await runJob(msg.job, ctx);
  parentPort!.postMessage({ id: msg.id, res });
});
