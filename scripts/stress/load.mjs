// Load and churn: many concurrent requests and activations on one middleware, and
// discovery repeated while skills are added, edited and removed under it.
import { mkdir, mkdtemp, rm, writeFile, rename, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { plainContext } from '../../bench/plain-ctx.mjs';

const dist = pathToFileURL(fileURLToPath(new URL('../../dist/index.js', import.meta.url))).href;

const skillMd = (name, i) =>
  `---\nname: ${name}\ndescription: Skill ${i} does task ${i}. Use when asked about task ${i}.\n---\n# ${name}\n${'Step.\n'.repeat(50)}`;

async function library(count) {
  const root = await mkdtemp(join(tmpdir(), 'stress-load-'));
  for (let i = 0; i < count; i++) {
    await mkdir(join(root, `skill-${i}`));
    await writeFile(join(root, `skill-${i}`, 'SKILL.md'), skillMd(`skill-${i}`, i));
  }
  return root;
}

/** A request whose conversation is a system prompt and `text` (bench/plain-ctx.mjs). */
const requestWith = (text) =>
  plainContext([
    { role: 'system', content: 's' },
    { role: 'user', content: text },
  ]);

export async function run() {
  const { skillsMiddleware } = await import(dist);
  const rows = [];
  const root = await library(2000);
  try {
    const middleware = skillsMiddleware({ directories: [root] });
    let started = performance.now();
    const ctxs = Array.from({ length: 500 }, (_, i) => requestWith(`use @skill-${i}`));
    await Promise.all(ctxs.map((ctx) => middleware(ctx, async () => {})));
    rows.push({
      case: 'load: 500 concurrent first requests, 2,000 skills, each with an @mention',
      figure: 'total ms',
      value: (performance.now() - started).toFixed(0),
    });
    const injected = ctxs.filter((ctx) => ctx.messages.some((m) => m.role === 'tool')).length;
    rows.push({ case: 'load: requests whose mention was injected', figure: 'of 500', value: injected });

    const ctx = requestWith('go');
    await middleware(ctx, async () => {});
    const useSkill = ctx.tools.get('use_skill');
    started = performance.now();
    const answers = await Promise.all(Array.from({ length: 2000 }, (_, i) => useSkill.handler({ skill_name: `skill-${i}` }, {})));
    rows.push({
      case: 'load: 2,000 concurrent use_skill calls on one run',
      figure: 'total ms',
      value: (performance.now() - started).toFixed(0),
    });
    rows.push({
      case: 'load: use_skill answers carrying their body',
      figure: 'of 2,000',
      value: answers.filter((a, i) => a.includes(`<skill name="skill-${i}">`)).length,
    });

    // Churn: rescans (cacheTtl 0) while a writer adds, rewrites (atomically) and removes skills.
    const churning = skillsMiddleware({ directories: [root], cacheTtl: 0 });
    let stop = false;
    let writes = 0;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const dir = join(root, `churn-${i % 50}`);
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, 'SKILL.md.tmp'), skillMd(`churn-${i % 50}`, i));
        await rename(join(dir, 'SKILL.md.tmp'), join(dir, 'SKILL.md'));
        if (i % 3 === 0) await unlink(join(dir, 'SKILL.md')).catch(() => undefined);
        writes++;
      }
    })();
    let requests = 0;
    let failures = 0;
    started = performance.now();
    while (performance.now() - started < 5000) {
      const c = requestWith('hello');
      try {
        await churning(c, async () => {});
        if (!c.skills || c.skills.skills.length < 2000) failures++;
      } catch {
        failures++;
      }
      requests++;
    }
    stop = true;
    await writer;
    rows.push({
      case: 'churn: rescanning requests in 5 s while skills change underneath',
      figure: 'requests / writes / failed or short',
      value: `${requests} / ${writes} / ${failures}`,
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}
