import type { App } from '../app.js';
import { launchInfo, liveInfo } from '../launch/info.js';
import { toJson } from '../output.js';
import { hiddenSummary, shortIds } from '../select/filter.js';
import { writeJsonArray } from '../util/stdout.js';
import { filtered, note } from './common.js';
import { type LsOpts, lsAction, NO_SESSIONS, withDirArg } from './ls-list.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const o = withDirArg(
    call.opts as LsOpts & { json?: boolean },
    (call.args as string[]).filter((a) => a !== undefined),
  );
  if (o.json) {
    const { all, shown, filters } = await filtered(app, o);
    const list = o.n ? shown.slice(0, o.n) : shown;
    const shorts = shortIds(all);
    const launch = await launchInfo(app);
    const live = await liveInfo(app, list);
    writeJsonArray(list, (s) => toJson(s, shorts.get(s.id) ?? s.id, launch, live.get(s.key)));
    // on stderr, so it is seen under --json too without touching the JSON
    const h = hiddenSummary(all, filters);
    if (h) note(h);
    if (all.length === 0 && !app.demo) note(NO_SESSIONS);
    return;
  }
  await lsAction(app, o);
}
