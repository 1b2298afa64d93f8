// A skill loader built the way most hosts build one: walk the tree for
// SKILL.md files, parse each frontmatter with the `yaml` package, keep those
// with a name and a description, then list each skill's files (walking its
// folder and stat-ing every file) for its resource list. Ours, for the bench
// only; the same number of calls in flight as the floor.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { IN_FLIGHT, limiter } from './floor.mjs';

const skipped = (name) => name.startsWith('.') || name === 'node_modules';
const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;

export async function loadWithYaml(root) {
  const run = limiter(IN_FLIGHT);
  const folders = [];
  const walk = async (folder) => {
    const entries = await run(() => readdir(folder, { withFileTypes: true }));
    if (entries.some((e) => e.name === 'SKILL.md' && e.isFile())) folders.push(folder);
    await Promise.all(entries.filter((e) => e.isDirectory() && !skipped(e.name)).map((e) => walk(join(folder, e.name))));
  };
  await walk(root);

  const listFiles = async (skillDir, folder, out) => {
    const entries = await run(() => readdir(folder, { withFileTypes: true }));
    await Promise.all(
      entries.map(async (e) => {
        if (skipped(e.name)) return;
        const path = join(folder, e.name);
        if (e.isDirectory()) return listFiles(skillDir, path, out);
        if (e.name === 'SKILL.md' && folder === skillDir) return;
        const stats = await run(() => stat(path));
        if (stats.isFile()) out.push({ path: relative(skillDir, path), size: stats.size });
      }),
    );
    return out;
  };

  const skills = [];
  let failed = 0;
  await Promise.all(
    folders.map(async (folder) => {
      const text = await run(() => readFile(join(folder, 'SKILL.md'), 'utf8'));
      const match = FRONTMATTER.exec(text);
      let metadata;
      try {
        metadata = match ? parse(match[1]) : undefined;
      } catch {
        metadata = undefined;
      }
      if (typeof metadata?.name !== 'string' || typeof metadata?.description !== 'string') {
        failed++;
        return;
      }
      const resources = await listFiles(folder, folder, []);
      skills.push({ metadata, instructions: text.slice(match[0].length), directory: folder, resources });
    }),
  );
  return { skills, failed };
}
