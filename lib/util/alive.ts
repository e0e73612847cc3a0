// lib/index/lock.ts still reads alive() from here; the one check is lib/os/proc.ts.
export { alive } from '../os/proc.js';
