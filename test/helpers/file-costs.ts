/**
 * Measures each test file's cost for test/helpers/file-order.ts's table: a
 * setup file, loaded only when MW_SKILLS_FILE_COSTS names a file (vitest.config.ts),
 * that appends `cpu<TAB>wall<TAB>test file` per test file, in seconds. With
 * `isolate: false` a worker runs its files one after another, so a file's
 * cost is what its worker spent from the end of the file before it: the
 * first file of a worker carries the worker's imports, as it does in a run.
 * CPU counts the worker's child processes once they have ended (Linux's
 * /proc/self/stat); elsewhere only the worker's own.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';

const output = process.env.MW_SKILLS_FILE_COSTS;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** CPU seconds of this process, and of its ended children where the system says. */
function cpuSeconds(): number {
  if (existsSync('/proc/self/stat')) {
    // Fields after the command's closing parenthesis (the last one: a command may hold one): utime, stime, cutime and
    // cstime are the 12th to 15th.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / 100;
  }
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

let cpuAtStart = cpuSeconds();
let wallAtStart = performance.now();

afterAll(() => {
  if (output === undefined) return;
  const file = relative(ROOT, expect.getState().testPath ?? 'unknown');
  const [cpu, wall] = [cpuSeconds() - cpuAtStart, (performance.now() - wallAtStart) / 1000];
  appendFileSync(output, `${cpu.toFixed(2)}\t${wall.toFixed(2)}\t${file}\n`);
  cpuAtStart = cpuSeconds();
  wallAtStart = performance.now();
});
