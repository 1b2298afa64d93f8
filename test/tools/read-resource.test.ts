import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecordingLogger, toJsonSchemaLikeSisu, type MiniContext, type Middleware, type RecordingLogger } from '../../demo/mini-sisu.mjs';
import { discoverSkills } from '../../src/discover/discover.js';
import { createSkillIndex } from '../../src/skill-index.js';
import { createReadResourceTool, makeReadResourceTool, READ_RESOURCE_TOOL, ReadResourceArgsSchema } from '../../src/tools/read-resource.js';
import { DEFAULT_MAX_LISTED_RESOURCES, renderResourceListing } from '../../src/tools/resource-listing.js';
import { createUseSkillTool } from '../../src/tools/use-skill.js';
import { nodeFileSystem } from '../../src/fs.js';
import type { Skill, SkillResource, ToolContext } from '../../src/types.js';
import { cleanup, makeTempTree, skillMd } from '../discover/helpers.js';
import { callTool, runAgent, toolMessages, useSkill } from '../helpers/agent.js';

const SETTINGS = { fs: nodeFileSystem, maxFileSize: 100 * 1024, maxSkillSize: 500 * 1024, cacheTtl: 60_000 };

function toolCtx(): ToolContext & { log: RecordingLogger } {
  return { state: {}, log: createRecordingLogger() };
}

async function skillsIn(root: string): Promise<Skill[]> {
  return (await discoverSkills({ directories: [root] })).skills;
}

describe('read_skill_resource schema', () => {
  it('survives the conversion SISU adapters apply: four parameters, two required', () => {
    expect(toJsonSchemaLikeSisu(ReadResourceArgsSchema)).toEqual({
      type: 'object',
      properties: {
        skill_name: { type: 'string', description: expect.any(String) },
        path: { type: 'string', description: expect.any(String) },
        offset: { type: 'number', description: expect.any(String) },
        limit: { type: 'number', description: expect.any(String) },
      },
      required: ['skill_name', 'path'],
      additionalProperties: false,
    });
  });
});

describe('read_skill_resource handler', () => {
  let root: string;
  let skills: Skill[];
  beforeEach(async () => {
    const lines = Array.from({ length: 450 }, (_, i) => `step ${i + 1}`).join('\n');
    root = await makeTempTree({
      'pdf/SKILL.md': skillMd('pdf'),
      'pdf/references/forms.md': '# Forms\n\nFill every field.\n',
      'pdf/references/long.md': lines,
      'pdf/scripts/fill.py': 'print("fill")\n',
      'pdf/nested/SKILL.md': skillMd('nested'),
      'pdf/nested/own.md': 'belongs to nested',
    });
    skills = await skillsIn(root);
  });
  afterEach(async () => {
    await cleanup(root);
  });

  it('returns the text with skill, path, size and lines', async () => {
    const result = await createReadResourceTool(skills).handler({ skill_name: 'pdf', path: 'references/forms.md' }, toolCtx());
    expect(result).toBe('<skill_resource skill="pdf" path="references/forms.md" size="27 B" lines="1-3 of 3">\n# Forms\n\nFill every field.\n</skill_resource>');
  });

  it('for a long file returns a window and says how to read on', async () => {
    const tool = createReadResourceTool(skills);
    const first = await tool.handler({ skill_name: 'pdf', path: 'references/long.md' }, toolCtx());
    expect(first).toContain('lines="1-400 of 450"');
    expect(first).toMatch(/step 400\n<\/skill_resource>\nShowing lines 1-400 of 450\. To read on, call read_skill_resource with \{"skill_name":"pdf","path":"references\/long.md","offset":401\}\.$/);
    const rest = await tool.handler({ skill_name: 'pdf', path: 'references/long.md', offset: 401 }, toolCtx());
    expect(rest).toContain('lines="401-450 of 450"');
    expect(rest).not.toContain('Showing lines');
  });

  it('a nested folder with its own SKILL.md is a separate skill, not a resource', async () => {
    expect(skills.map((s) => s.metadata.name).sort()).toEqual(['nested', 'pdf']);
    const result = await createReadResourceTool(skills).handler({ skill_name: 'pdf', path: 'nested/own.md' }, toolCtx());
    expect(result).toMatch(/^Cannot read "nested\/own.md" from skill "pdf": it is not one of the skill's listed files\./);
    expect(await createReadResourceTool(skills).handler({ skill_name: 'nested', path: 'own.md' }, toolCtx())).toContain('belongs to nested');
  });

  it('an unknown skill lists the available names', async () => {
    expect(await createReadResourceTool(skills).handler({ skill_name: 'pfd', path: 'x' }, toolCtx())).toBe(
      'Skill "pfd" not found. Available skills (closest first): pdf, nested.',
    );
  });

  it('bad arguments become a message naming the parameters', async () => {
    const tool = createReadResourceTool(skills);
    const bad = [undefined, {}, { skill_name: 'pdf' }, { skill_name: 'pdf', path: 3 }, { skill_name: 'pdf', path: 'a', offset: 1.5 }, 'pdf'];
    for (const args of bad) {
      expect(await tool.handler(args as never, toolCtx())).toMatch(/^read_skill_resource needs `skill_name` and `path` strings .* e\.g\. \{"skill_name":"pdf","path":"references\/guide.md"\}\.$/);
    }
  });

  it('logs reads, and refusals with their reason (security ones as warnings)', async () => {
    const tool = createReadResourceTool(skills);
    const ctx = toolCtx();
    await tool.handler({ skill_name: 'pdf', path: 'scripts/fill.py' }, ctx);
    await tool.handler({ skill_name: 'pdf', path: '../../etc/passwd' }, ctx);
    await tool.handler({ skill_name: 'pdf', path: 'nope.md' }, ctx);
    expect(ctx.log.entries).toEqual([
      { level: 'info', args: ['[skills] resource read', { skill: 'pdf', path: 'scripts/fill.py', bytes: 13, cached: false }] },
      { level: 'warn', args: ['[skills] resource refused', { skill: 'pdf', path: '../../etc/passwd', reason: 'parent' }] },
      { level: 'debug', args: ['[skills] resource refused', { skill: 'pdf', path: 'nope.md', reason: 'not-listed' }] },
    ]);
  });

  it('never throws: a failure inside becomes a message and is logged', async () => {
    const tool = makeReadResourceTool(() => {
      throw new Error('index exploded');
    }, SETTINGS);
    const ctx = toolCtx();
    await expect(tool.handler({ skill_name: 'x', path: 'y' }, ctx)).resolves.toBe('Could not read the skill file: index exploded. Continue without it.');
    expect(ctx.log.entries.map((e) => e.level)).toEqual(['error']);
    const failingLoad = createSkillIndex({ skills });
    const broken = makeReadResourceTool(() => ({ ...failingLoad, load: () => Promise.reject(new Error('SKILL.md vanished')) }), SETTINGS);
    await expect(broken.handler({ skill_name: 'pdf', path: 'a' }, { state: {} })).resolves.toContain('SKILL.md vanished');
  });

  it('with no index says nothing is loaded', async () => {
    expect(await makeReadResourceTool(() => undefined, SETTINGS).handler({ skill_name: 'x', path: 'y' }, { state: {} })).toBe(
      'No skills are loaded, so there are no skill files to read.',
    );
    expect(await createReadResourceTool([]).handler({ skill_name: 'x', path: 'y' }, { state: {} })).toBe('Skill "x" not found: no skills are loaded.');
  });

  it('works through a composed stack: the model activates a skill, then reads a listed file', async () => {
    const register: Middleware<MiniContext> = async (ctx, next) => {
      ctx.tools.register(createUseSkillTool(skills));
      ctx.tools.register(createReadResourceTool(skills));
      await next();
    };
    const { ctx, model } = await runAgent(register, [
      useSkill('pdf'),
      (messages) => {
        const activation = String(messages[messages.length - 1]?.content);
        const path = /^- (references\/forms\.md) /m.exec(activation)?.[1];
        return callTool(READ_RESOURCE_TOOL, JSON.stringify({ skill_name: 'pdf', path }));
      },
      'Done.',
    ]);
    const [, read] = toolMessages(ctx);
    expect(read?.content).toContain('Fill every field.');
    expect(model.calls[0]?.tools.find((t) => t.name === READ_RESOURCE_TOOL)?.parameters.required).toEqual(['skill_name', 'path']);
    expect(ctx.log.entries.filter((e) => e.level === 'error')).toEqual([]);
  });
});

describe('renderResourceListing', () => {
  const file = (path: string, type: SkillResource['type'], size = 10, extra: object = {}): SkillResource => ({
    name: path.slice(path.lastIndexOf('/') + 1),
    path,
    absolutePath: join('/s', path),
    type,
    size,
    ...extra,
  });

  it('lists relative POSIX paths with type and size, and flags files too large to read', () => {
    const listing = renderResourceListing(
      [file('assets/big.pdf', 'asset', 2 * 1024 * 1024, { tooLarge: true }), file('references/a/b.md', 'reference', 2048)],
      { readTool: READ_RESOURCE_TOOL },
    );
    expect(listing).toBe(
      [
        'Resources (paths relative to the skill directory; open one with read_skill_resource only when the instructions call for it):',
        '- assets/big.pdf (asset, 2.0 MB, too large to read)',
        '- references/a/b.md (reference, 2.0 KB)',
      ].join('\n'),
    );
    expect(renderResourceListing([file('x.md', 'reference')])).toContain('open one only when the instructions call for it');
    expect(renderResourceListing([])).toBe('This skill has no bundled resources.');
  });

  it(`caps the list (default ${DEFAULT_MAX_LISTED_RESOURCES}), naming readable files before assets, and counts the rest by folder`, () => {
    const resources = [
      ...Array.from({ length: 300 }, (_, i) => file(`assets/img-${String(i).padStart(3, '0')}.png`, 'asset')),
      file('references/guide.md', 'reference'),
      file('scripts/run.sh', 'script'),
      file('LICENSE', 'other'),
    ];
    const listing = renderResourceListing(resources).split('\n');
    expect(listing).toHaveLength(1 + DEFAULT_MAX_LISTED_RESOURCES + 1);
    expect(listing).toContain('- references/guide.md (reference, 10 B)');
    expect(listing).toContain('- scripts/run.sh (script, 10 B)');
    expect(listing.at(-1)).toBe("- ... and 103 more files not listed here (assets/ 103); ask for one by path if the instructions name it.");
    const small = renderResourceListing([file('a.md', 'reference'), file('b.md', 'reference'), file('c/d.md', 'reference')], { max: 1 }).split('\n');
    expect(small.slice(1)).toEqual(['- a.md (reference, 10 B)', '- ... and 2 more files not listed here ((top level) 1, c/ 1); ask for one by path if the instructions name it.']);
  });
});
