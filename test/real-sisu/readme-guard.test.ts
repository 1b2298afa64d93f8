/**
 * The `allowed-tools` guard docs/usage.md shows (moved from README's Usage), run as
 * written in the real SISU with both adapters: while an active skill declares
 * `allowed-tools`, a tool no active skill names is refused and one it names
 * runs. The block is taken from docs/usage.md itself (only its import of our
 * package is pointed at src/), so the example cannot drift from what is tested.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { skillsMiddleware } from '../../src/index.js';
import { createCtx, describeSisu, lastToolResult, PROVIDERS, realSisu, skillsFixture, type SisuMiddleware, type SisuTool } from './host.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The guard block of docs/usage.md, with `@sisu-ai/mw-skills` pointed at our source. */
function readmeGuardSource(): string {
  const readme = readFileSync(path.join(REPO, 'docs', 'usage.md'), 'utf8');
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((code) => code.includes('allowedToolsGuard'));
  if (!block) throw new Error('docs/usage.md has no allowedToolsGuard example');
  return block.replace(/from '@sisu-ai\/mw-skills'/g, `from ${JSON.stringify(pathToFileURL(path.join(REPO, 'src', 'index.ts')).href)}`);
}

describeSisu("docs/usage.md's allowed-tools guard in the real SISU", () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'git-helper', frontmatter: 'allowed-tools: Bash(git:*)' }, { name: 'notes' }]);
  let dir: string;
  let guard: SisuMiddleware;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'readme-guard-'));
    const file = path.join(dir, 'guard.ts');
    writeFileSync(file, readmeGuardSource());
    ({ allowedToolsGuard: guard } = (await import(pathToFileURL(file).href)) as { allowedToolsGuard: SisuMiddleware });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const tool = (name: string): SisuTool => ({
    name,
    description: `The ${name} tool.`,
    schema: { parse: (value: unknown) => value },
    handler: async () => `${name} ran`,
  });

  for (const provider of PROVIDERS) {
    it(`${provider.name}: with git-helper active, Read is refused and Bash runs; with no such skill active, both run`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'Read', arguments: {} }] },
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'git-helper' } }] },
        { toolCalls: [{ name: 'Read', arguments: {} }] },
        { toolCalls: [{ name: 'Bash', arguments: {} }] },
        'done',
      ]);
      const ctx = createCtx(host, provider.model(host, server), { input: '@notes tidy the repo' });
      const app = new host.core.Agent()
        .use(host.core.inputToMessage)
        .use(host.registerTools([tool('Read'), tool('Bash')]))
        .use(skillsMiddleware({ directories: [skills.root] }))
        .use(guard)
        .use(host.core.execute)
        .handler();
      await app(ctx);
      expect(server.violations).toEqual([]);
      const answers = server.requests.slice(1).map((request) => lastToolResult(request));
      expect(answers[0]).toBe('Read ran');
      expect(answers[1]).toContain('<skill name="git-helper">');
      expect(answers[2]).toBe('The active skills do not allow the Read tool.');
      expect(answers[3]).toBe('Bash ran');
    });
  }
});
