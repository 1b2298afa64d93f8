// The I/O floor discovery is compared with: what any discovery must do to find
// and read every SKILL.md (list every folder down to the same depth, skipping
// the same names, and read each SKILL.md), with the same number of calls in
// flight, and nothing else: no parsing, no validation, no resource stats.
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

const MAX_DEPTH = 6;
/** Calls in flight, as discovery's own limit; every bench contender of ours uses the same. */
export const IN_FLIGHT = 32;

/**
 * At most `max` calls at once, the rest in order (written here, not imported: the floor uses
 * no library code). A head index, not `shift()`: shift moves the whole queue on every take,
 * which at 20,000 queued reads would charge the floor quadratic work of its own.
 */
export function limiter(max) {
  let active = 0;
  let waiting = [];
  let head = 0;
  return async (call) => {
    if (active < max) active++;
    else await new Promise((resolve) => waiting.push(resolve));
    try {
      return await call();
    } finally {
      const next = head < waiting.length ? waiting[head++] : undefined;
      if (head === waiting.length) {
        waiting = [];
        head = 0;
      }
      if (next) next();
      else active--;
    }
  };
}

/**
 * @param {string} root
 * @param {{ statResources?: boolean, maxDepth?: number, descendIntoSkills?: boolean }} [options]
 *   statResources: also stat every other file in a skill's folder tree, the
 *   least an eager resource listing must do. maxDepth: folders below the root
 *   listed (default 6; the real-shaped rows pass Infinity, as discovery has
 *   no depth limit). descendIntoSkills: false stops at a folder holding a
 *   SKILL.md, the floor for a discovery that does not look for skills inside
 *   skills (what that trade would save).
 */
export async function ioFloor(root, options = {}) {
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  const descend = options.descendIntoSkills ?? true;
  const run = limiter(IN_FLIGHT);
  let files = 0;
  let bytes = 0;
  let stats = 0;
  const walk = async (folder, depth, inSkill) => {
    const entries = await run(() => readdir(folder, { withFileTypes: true }));
    const isSkill = entries.some((e) => e.name === 'SKILL.md' && !e.isDirectory());
    const work = [];
    if (isSkill) {
      work.push(
        run(() => readFile(join(folder, 'SKILL.md'), 'utf8')).then((text) => {
          files++;
          bytes += text.length;
        }),
      );
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      if (entry.isDirectory()) {
        if (depth < maxDepth && (descend || !isSkill)) work.push(walk(join(folder, entry.name), depth + 1, inSkill || isSkill));
      } else if (options.statResources && (inSkill || isSkill) && entry.name !== 'SKILL.md') {
        work.push(run(() => stat(join(folder, entry.name))).then(() => stats++));
      }
    }
    await Promise.all(work);
  };
  await walk(await realpath(root), 0, false);
  return { files, bytes, stats };
}
