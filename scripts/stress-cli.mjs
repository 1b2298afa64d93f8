// What every stress module that re-runs itself in a child process needs from
// its command line: the built package's folder, its flags, and the row format.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built package the stress cases import, unless `--dist` says otherwise. */
export const DEFAULT_DIST = fileURLToPath(new URL('../dist', import.meta.url));

/** The value after `flag` on the command line, or undefined. */
export function cliArg(flag) {
  const at = process.argv.indexOf(flag);
  return at > 0 ? process.argv[at + 1] : undefined;
}

/** `--dist`, or the default, as an absolute path. */
export const distFolder = (given) => resolve(given ?? cliArg('--dist') ?? DEFAULT_DIST);

/** One figure a line, as scripts/stress.mjs prints them. */
export function printRows(rows) {
  for (const row of rows) console.log(`${row.case} | ${row.figure} | ${row.value}`);
}
