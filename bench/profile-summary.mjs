// Self-time summaries of V8 CPU profiles (.cpuprofile objects), by function
// and by src/ module through the bundles' source maps: shared by
// bench/profile.mjs (whole processes) and bench/profile-request.mjs (requests in process).
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { basename } from 'node:path';

/** Self time (ms) per key over one .cpuprofile. */
export function selfTimes(profile, keyOf, into) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const key = keyOf(node.callFrame);
    into.set(key, (into.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
}

/** Source maps of bundles (dist/index.js.map), to name the src/ module each sampled function comes from. */
const maps = new Map();
function sourceOf(frame) {
  const file = frame.url.replace(/^file:\/\//, '');
  if (!maps.has(file))
    maps.set(file, existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))) : undefined);
  const entry = maps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber);
  return entry?.originalSource ? entry.originalSource.replace(/^.*?\/src\//, 'src/') : undefined;
}

const where = (frame) => (frame.url ? `${basename(frame.url.replace(/^file:\/\//, ''))}:${frame.lineNumber + 1}` : '');
export const functionKey = (frame) => `${frame.functionName || '(anonymous)'} ${(frame.url && sourceOf(frame)) || where(frame)}`.trim();
export const fileKey = (frame) =>
  frame.url ? (sourceOf(frame) ?? basename(frame.url.replace(/^file:\/\//, ''))) : frame.functionName || '(native)';

/** Prints the `limit` largest of `totals` (ms by key) with their shares. */
export function printTotals(title, totals, limit) {
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${title} (total ${all.toFixed(0)} ms sampled)`);
  for (const [key, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(`${((100 * ms) / all).toFixed(1).padStart(5)}%  ${ms.toFixed(1).padStart(8)} ms  ${key}`);
  }
}
