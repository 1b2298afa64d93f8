// Usage: npm run substitution -- <dir> [arguments]
// Counts what filling in argument and folder placeholders (src/base/arguments.ts)
// changes on every SKILL.md under <dir>, activated with [arguments]
// (default "ARG0 ARG1 ARG2"): files changed outside code, inside code (only
// skills that declare `arguments` or `argument-hint`), and files whose code
// holds placeholders left as written for want of that opt-in.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseFrontmatter } from '../dist/index.js';
import { substitutePlaceholders, substitutesInCode } from '../dist/internals.js';
import { measureSubstitution } from './argument-substitution-core.mjs';
import { findSkillFiles } from './conformance-core.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: npm run substitution -- <dir> [arguments]');
  process.exit(2);
}
const args = process.argv[3] ?? 'ARG0 ARG1 ARG2';
const root = resolve(dir);
const files = findSkillFiles(root).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
const { counts, untouchedFiles } = measureSubstitution(files, args, {
  parseFrontmatter,
  substitute: substitutePlaceholders,
  substitutesInCode,
});
console.log(`${counts.files} SKILL.md files under ${root}, activated with arguments ${JSON.stringify(args)}:`);
console.log(`  argument placeholders filled in outside code: ${counts.changedOutsideCode} files`);
console.log(
  `  argument placeholders filled in inside code:  ${counts.changedInsideCode} files (of ${counts.optedIn} that declare arguments or argument-hint)`,
);
console.log(
  `  placeholders in code left as written (no opt-in): ${counts.untouchedInCode} files, ${counts.untouchedInCodePlaceholders} placeholders`,
);
console.log(`  arguments appended (no placeholder used them): ${counts.appended} files`);
console.log(`  \${CLAUDE_SKILL_DIR} / \${SKILL_DIR}: ${counts.skillDir} files; \${CLAUDE_PLUGIN_ROOT}: ${counts.pluginRoot} files`);
for (const path of untouchedFiles) console.log(`    code left as written: ${path}`);
