// One `sisu-skills` run in this process, with its peak memory:
//   PEAK_FILE=<file> node bench/cli-peak.mjs <cli.js> <arguments...>
// Runs the CLI module as its own bin would (process.argv as node gives it)
// and, as the process exits, writes { maxRssBytes, cpuMs } to PEAK_FILE.
// What the CLI prints goes where it would.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [cli, ...args] = process.argv.slice(2);
process.on('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(
    process.env.PEAK_FILE,
    JSON.stringify({ maxRssBytes: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }),
  );
});
process.argv = [process.argv[0], resolve(cli), ...args];
await import(pathToFileURL(resolve(cli)).href);
