// Kilo CLI: a fork of opencode that keeps opencode's SQLite layout under its own names (recorded
// with Kilo CLI 7.7.9): `<data>/kilo.db` (`kilo-<channel>.db` on other channels, or an
// `opencode-<channel>.db` it found there first), KILO_DB for another database, `~/.local/share/kilo`
// or `$XDG_DATA_HOME/kilo`. Its `run` sessions carry the same deny rules as opencode's, and its forks
// are opencode 1.x forks (copied messages, `<title> (fork #N)`, no link). The reading is opencode's.
import { opencodeStore } from '../opencode/index.js';

export const kilo = opencodeStore({
  name: 'kilo',
  label: 'Kilo CLI',
  binaries: ['kilo', 'kilocode'],
  app: 'kilo',
  dbVar: 'KILO_DB',
  dirsVar: 'RESUME_KILO_DIRS',
  dbFile: /^(?:kilo.*|opencode-.+)\.db$/,
  color: 221,
  testedVersion: '7.7.9',
});
