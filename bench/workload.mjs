// Synthetic skill libraries for the benchmark: realistic frontmatter shapes
// (block scalars, quoted values with escapes, nested metadata, tags as flow
// and block lists, comments), markdown bodies of 1-20 KB and 0-10 resource
// files per skill. Deterministic for a given seed.
import { Buffer } from 'node:buffer';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRandom } from './prng.mjs';
import { pool } from './stats.mjs';

const VERBS = [
  'review',
  'deploy',
  'debug',
  'generate',
  'migrate',
  'audit',
  'summarize',
  'convert',
  'validate',
  'optimize',
  'draft',
  'analyze',
  'test',
  'scaffold',
  'document',
  'monitor',
  'translate',
  'refactor',
  'schedule',
  'export',
];
const OBJECTS = [
  'pull requests',
  'invoices',
  'pdf forms',
  'kubernetes manifests',
  'sql queries',
  'release notes',
  'api schemas',
  'spreadsheets',
  'slide decks',
  'docker images',
  'terraform modules',
  'meeting notes',
  'unit tests',
  'log files',
  'landing pages',
  'emails',
  'contracts',
  'dashboards',
  'data pipelines',
  'mobile apps',
  'design tokens',
  'changelogs',
  'support tickets',
  'user stories',
  'budgets',
];
const CONTEXTS = [
  'for a small team',
  'in production',
  'before a release',
  'across several repositories',
  'with strict security rules',
  'on a deadline',
  'for non-technical readers',
  'in a monorepo',
  'for compliance audits',
  'at scale',
];
const TOOLS = ['Read', 'Write', 'Bash', 'Grep', 'Glob', 'WebFetch', 'Edit'];
const TAGS = [
  'devops',
  'security',
  'writing',
  'data',
  'finance',
  'testing',
  'frontend',
  'backend',
  'ml',
  'docs',
  'legal',
  'sales',
  'design',
  'cloud',
  'mobile',
];
const FILLER = (
  'the a step each file check result output input value team change report list section field option rule case error ' +
  'note example command script config version branch build service request response record table chart task plan summary'
).split(' ');

function sentence(random, min, max) {
  const words = [];
  const count = random.int(min, max);
  for (let i = 0; i < count; i++) words.push(random.pick(FILLER));
  const text = words.join(' ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

function describe(random) {
  const verb = random.pick(VERBS);
  const object = random.pick(OBJECTS);
  const parts = [`${verb[0].toUpperCase()}${verb.slice(1)} ${object} ${random.pick(CONTEXTS)}.`];
  for (let i = random.int(0, 4); i > 0; i--) parts.push(sentence(random, 6, 18));
  parts.push(`Use when the user asks to ${verb} ${object} or mentions ${random.pick(OBJECTS)}.`);
  return parts;
}

/** A description written in one of the styles real SKILL.md files use. */
function descriptionField(random) {
  const parts = describe(random);
  const style = random.int(0, 5);
  if (style === 0) return `description: >\n  ${parts.join('\n  ')}\n`;
  if (style === 1) return `description: |-\n  ${parts.join('\n  ')}\n`;
  if (style === 2) {
    const text = parts.join(' ').replace(/"/g, '\\"');
    return `description: "${text} It\\u2019s \\"quoted\\" and\\ttabbed."\n`;
  }
  if (style === 3) return `description: '${parts.join(' ').replace(/'/g, "''")} Don''t guess.'\n`;
  if (style === 4) return `description: ${parts[0]}\n  ${parts.slice(1).join('\n  ')}\n`;
  return `description: ${parts.join(' ')}\n`;
}

export function frontmatterFor(random, name) {
  let text = `name: ${name}\n`;
  text += descriptionField(random);
  if (random.chance(0.3)) text += '# Keep this short: it is shown in every prompt.\n';
  if (random.chance(0.6)) text += `license: ${random.pick(['MIT', 'Apache-2.0', '"Proprietary. See LICENSE.txt"'])}\n`;
  if (random.chance(0.5)) text += `version: "${random.int(0, 3)}.${random.int(0, 9)}.${random.int(0, 20)}"\n`;
  const tags = Array.from({ length: random.int(0, 4) }, () => random.pick(TAGS));
  if (tags.length > 0) {
    text += random.chance(0.5) ? `tags: [${tags.join(', ')}]\n` : `tags:\n${tags.map((t) => `  - ${t}`).join('\n')}\n`;
  }
  if (random.chance(0.4))
    text += `allowed-tools: ${random.chance(0.5) ? `[${TOOLS.slice(0, random.int(1, 4)).join(', ')}]` : 'Read Bash(git:*)'}\n`;
  if (random.chance(0.7)) {
    text += 'metadata:\n';
    text += `  author: ${random.pick(['Jane Doe', '"ACME Corp."', 'platform-team'])}\n`;
    text += `  category: ${random.pick(TAGS)}\n`;
    if (random.chance(0.5)) {
      text += `  source:\n    repository: https://example.com/${name}\n    commit: "${random.int(100000, 999999)}"\n`;
    }
    if (random.chance(0.3)) text += `  internal: ${random.chance(0.5)}\n  priority: ${random.int(1, 5)} # higher runs first\n`;
  }
  return text;
}

/** Markdown of about `size` characters: headings, steps, lists and code blocks. */
export function bodyFor(random, name, size) {
  const chunks = [`# ${name}\n\n${sentence(random, 10, 20)}\n`];
  let length = chunks[0].length;
  let section = 1;
  while (length < size) {
    let chunk = `\n## Step ${section++}\n\n`;
    for (let i = random.int(1, 3); i > 0; i--) chunk += `${sentence(random, 12, 30)} `;
    chunk += '\n\n';
    for (let i = random.int(2, 5); i > 0; i--) chunk += `- ${sentence(random, 4, 10)}\n`;
    if (random.chance(0.4))
      chunk += `\n\`\`\`bash\n${random.pick(['npm test', 'git diff --stat', 'kubectl get pods', 'python scripts/run.py --check'])}\n\`\`\`\n`;
    chunks.push(chunk);
    length += chunk.length;
  }
  return chunks.join('').slice(0, size);
}

const RESOURCE_KINDS = [
  ['scripts', 'run.sh', '#!/bin/sh\nset -eu\necho "checking"\n'],
  ['scripts', 'helper.py', 'import sys\n\nprint(sys.argv)\n'],
  ['references', 'guide.md', '# Guide\n\nDetails for the skill.\n'],
  ['references', 'checklist.md', '- [ ] first\n- [ ] second\n'],
  ['assets', 'template.json', '{"title": "", "items": []}\n'],
  ['assets', 'logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"></svg>\n'],
];

/**
 * One skill: its SKILL.md text (frontmatter part kept apart for the parser
 * benchmark) and its resource files.
 */
export function skillFor(random, index) {
  const name = `${random.pick(VERBS)}-${random
    .pick(OBJECTS)
    .split(' ')[0]
    .replace(/[^a-z]/g, '')}-${index}`;
  const frontmatter = frontmatterFor(random, name);
  const body = bodyFor(random, name, random.int(1024, 20 * 1024));
  const resources = [];
  for (let i = random.int(0, 10); i > 0; i--) {
    const [folder, file, content] = random.pick(RESOURCE_KINDS);
    const padding = 'x'.repeat(random.int(50, 2000));
    resources.push({ path: `${folder}/${i}-${file}`, content: `${content}# ${padding}\n` });
  }
  return { name, frontmatter, text: `---\n${frontmatter}---\n\n${body}`, bodyBytes: Buffer.byteLength(body), resources };
}

/**
 * Write `count` skills under `root` in category folders (as published
 * collections group them). Returns totals the benchmark reports against.
 */
export async function writeWorkload(root, count, seed) {
  const random = createRandom(seed);
  const skills = Array.from({ length: count }, (_, i) => skillFor(random, i));
  const categories = Math.max(1, Math.round(count / 500));
  let frontmatterBytes = 0;
  let bodyBytes = 0;
  let resourceFiles = 0;
  for (const skill of skills) {
    frontmatterBytes += Buffer.byteLength(skill.frontmatter);
    bodyBytes += skill.bodyBytes;
    resourceFiles += skill.resources.length;
  }
  await pool(skills, 64, async (skill, i) => {
    const dir = join(root, `category-${String(i % categories).padStart(3, '0')}`, skill.name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'SKILL.md'), skill.text);
    for (const resource of skill.resources) {
      const path = join(dir, resource.path);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, resource.content);
    }
  });
  return {
    root,
    count,
    names: skills.map((s) => s.name),
    frontmatters: skills.map((s) => s.frontmatter),
    frontmatterBytes,
    bodyBytes,
    resourceFiles,
  };
}
