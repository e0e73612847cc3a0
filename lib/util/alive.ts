// Is a process running? The one check every lock and registry uses.

/** Does process `pid` exist (EPERM: it does, owned by someone else)? */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
