// Usage: npm run conformance -- <dir>
// Parses every SKILL.md under <dir> with the built package and compares the
// metadata with the `yaml` package's reading of the same frontmatter.
// Exit code 1 when any file fails.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseFrontmatter } from '../dist/index.js';
import { checkSkill, findSkillFiles } from './conformance-core.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: npm run conformance -- <dir>');
  process.exit(2);
}
const root = resolve(dir);
const files = findSkillFiles(root);
if (files.length === 0) {
  console.error(`no SKILL.md files under ${root}`);
  process.exit(2);
}

// yaml warns on stderr about things like collection keys; the comparison is what matters here.
process.removeAllListeners('warning');

const counts = { equal: 0, recovered: 0, failed: 0 };
const failures = [];
for (const file of files) {
  const result = checkSkill(readFileSync(file, 'utf8'), { parseFrontmatter, parseYaml: (text) => parseYaml(text) });
  counts[result.outcome]++;
  if (result.outcome === 'failed') failures.push(`  ${relative(root, file)}: ${result.reason}`);
}

console.log(`${files.length} SKILL.md files: ${counts.equal} equal, ${counts.recovered} recovered, ${counts.failed} failed`);
if (failures.length > 0) {
  console.log('failed:');
  for (const line of failures) console.log(line);
  process.exit(1);
}
