// Usage: npx tsup --silent && node scripts/stress/long-input.mjs [--dist <folder>]
// Long and many inputs against a library of 2,000 skills, at full size (issue
// 15): a 10,000- and a 100,000-character `skill_name` given to use_skill, one
// user message of "@" and 100,000 letters, and one of 5,000 unknown
// @mentions. Each figure is how long the call held the event loop (the work
// is synchronous), median of 3. run() returns rows { case, figure, value } for
// the stress runner; run directly, it prints them.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { userContext } from '../../bench/plain-ctx.mjs';

const SKILLS = 2000;
const REPS = 3;
const VERBS = ['analyze', 'generate', 'review', 'deploy', 'convert', 'migrate', 'audit', 'render', 'sync', 'translate'];
const OBJECTS = ['audio', 'git', 'chart', 'logs', 'calendar', 'docs', 'invoices', 'images', 'schemas', 'metrics'];

async function writeLibrary(root) {
  for (let i = 0; i < SKILLS; i++) {
    const name = `${VERBS[i % VERBS.length]}-${OBJECTS[(i * 7) % OBJECTS.length]}-${i}`;
    const dir = join(root, `category-${i % 4}`, name);
    await mkdir(dir, { recursive: true });
    const description =
      `${VERBS[i % VERBS.length]}s ${OBJECTS[(i * 7) % OBJECTS.length]} for a project. ` +
      `Use when asked to ${VERBS[i % VERBS.length]} ${OBJECTS[(i * 7) % OBJECTS.length]}.`;
    await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps.\n`);
  }
}

async function medianMs(fn) {
  const times = [];
  for (let i = 0; i < REPS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length / 2)].toFixed(2));
}

export async function run({ dist } = {}) {
  const api = await import(pathToFileURL(join(dist ?? fileURLToPath(new URL('../../dist', import.meta.url)), 'index.js')).href);
  const root = await mkdtemp(join(tmpdir(), 'skills-long-input-'));
  try {
    await writeLibrary(root);
    // cacheTtl Infinity: every case measures the per-request work on a warm index, not discovery.
    const middleware = api.skillsMiddleware({ directories: [root], cacheTtl: Infinity });
    const warm = userContext('hello');
    await middleware(warm, async () => {});
    const useSkill = warm.tools.get('use_skill');
    const toolContext = { signal: warm.signal, log: warm.log };
    const request = (content) => middleware(userContext(content), async () => {});
    await request('warm-up @unknown-name');
    const rows = [];
    rows.push({
      case: `use_skill with an unknown 18-character skill_name (for comparison), ${SKILLS.toLocaleString('en-US')} skills`,
      figure: 'ms',
      value: await medianMs(() => useSkill.handler({ skill_name: 'kubernetes-migrate' }, toolContext)),
    });
    for (const length of [10_000, 100_000]) {
      const name = 'k'.repeat(length);
      rows.push({
        case: `use_skill with a ${length.toLocaleString('en-US')}-character skill_name, ${SKILLS.toLocaleString('en-US')} skills`,
        figure: 'ms',
        value: await medianMs(() => useSkill.handler({ skill_name: name }, toolContext)),
      });
    }
    rows.push({
      case: `one user message of "@" and 100,000 letters, ${SKILLS.toLocaleString('en-US')} skills`,
      figure: 'ms',
      value: await medianMs(() => request(`@${'a'.repeat(100_000)}`)),
    });
    const mentions = Array.from({ length: 5000 }, (_, i) => `@unknown-skill-${i}`).join(' ');
    rows.push({
      case: `one user message of 5,000 unknown @mentions, ${SKILLS.toLocaleString('en-US')} skills`,
      figure: 'ms',
      value: await medianMs(() => request(mentions)),
    });
    return rows;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--dist');
  const rows = await run(at === -1 ? {} : { dist: resolve(process.argv[at + 1] ?? 'dist') });
  console.log('case | figure | value');
  console.log('--- | --- | ---');
  for (const row of rows) console.log(`${row.case} | ${row.figure} | ${row.value}`);
}
