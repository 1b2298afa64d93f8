/**
 * read_skill_resource as a hand-wired app registers it
 * (`createReadResourceTool`), called with arguments and `{ log }` only, as a
 * host calls a tool. Attacks are in test/security; how SISU's adapters show
 * its schema to a model is tested on the real SISU (test/real-sisu).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSkills } from '../../src/discover/with-storage.js';
import { bindReadResourceTool, bytesReadIn, createReadResourceTool, READ_RESOURCE_TOOL } from '../../src/tools/read-resource.js';
import { SkillRanker } from '../../src/catalog/skill-ranker.js';
import { createSkillIndex } from '../../src/index/skill-index.js';
import { createResourceReader } from '../../src/resources/resource-reader.js';
import { nodeFileSystem } from '../../src/base/fs.js';
import { renderResourceListing } from '../../src/tools/resource-listing.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { createUseSkillTool } from '../../src/tools/use-skill.js';
import type { Skill, SkillResource } from '../../src/base/model.js';
import { cleanup, makeTempTree, skillMd } from '../discover/helpers.js';
import { callTool, invoke, recordingLogger, runStack, type RecordingLogger, type StackContext } from '../helpers/stack.js';

function toolCtx(): { log: RecordingLogger } {
  return { log: recordingLogger() };
}

async function skillsIn(root: string): Promise<Skill[]> {
  return (await discoverSkills({ directories: [root] })).skills;
}

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
    const result = await invoke(createReadResourceTool(skills), { skill_name: 'pdf', path: 'references/forms.md' }, toolCtx());
    expect(result).toBe(
      '<skill_resource skill="pdf" path="references/forms.md" size="27 B" lines="1-3 of 3">\n# Forms\n\nFill every field.\n</skill_resource>',
    );
  });

  it('bytesReadIn reads back what each read charged to the budget, from the answers as they are stored', async () => {
    const budget = new Map<string, number>();
    const index = createSkillIndex({ skills });
    const ranking = new SkillRanker(index.skills);
    const reader = createResourceReader({ fs: nodeFileSystem, maxFileSize: 1_000_000, maxSkillSize: 1_000_000, cacheTtl: 0 });
    const tool = bindReadResourceTool({ source: () => index, ranker: () => ranking.get(), reader, budget });
    const answers = [
      await invoke(tool, { skill_name: 'pdf', path: 'references/forms.md' }),
      // A window, with the line that says how to read on after it.
      await invoke(tool, { skill_name: 'pdf', path: 'references/long.md' }),
      await invoke(tool, { skill_name: 'pdf', path: 'references/long.md', offset: 401 }),
      // A refusal charges nothing.
      await invoke(tool, { skill_name: 'pdf', path: 'references/missing.md' }),
    ];
    expect(budget.get('pdf')).toBeGreaterThan(2000);
    // SISU stores JSON.stringify(result); our own messages may hold the text as it is.
    const stored = answers.map((answer, i) => ({
      role: 'tool',
      tool_call_id: `c${i}`,
      content: i % 2 === 0 ? JSON.stringify(answer) : answer,
    }));
    expect(bytesReadIn(stored)).toEqual(budget);
    const empty = '<skill_resource skill="a&amp;&quot;b" path="e.md" size="0 B" lines="empty">\n(empty file)\n</skill_resource>';
    expect(bytesReadIn([{ role: 'tool', content: empty }])).toEqual(new Map([['a&"b', 0]]));
    // The same text anywhere but in a tool result is not a read.
    expect(bytesReadIn([{ role: 'user', content: answers[0] ?? '' }])).toEqual(new Map());
  });

  it('for a long file returns a window and says how to read on', async () => {
    const tool = createReadResourceTool(skills);
    const first = await invoke(tool, { skill_name: 'pdf', path: 'references/long.md' }, toolCtx());
    expect(first).toContain('lines="1-400 of 450"');
    const tail =
      'step 400\n</skill_resource>\nShowing lines 1-400 of 450. To read on, call read_skill_resource with ' +
      '{"skill_name":"pdf","path":"references/long.md","offset":401}.';
    expect(first.slice(-tail.length)).toBe(tail);
    const rest = await invoke(tool, { skill_name: 'pdf', path: 'references/long.md', offset: 401 }, toolCtx());
    expect(rest).toContain('lines="401-450 of 450"');
    expect(rest).not.toContain('Showing lines');
  });

  it('a nested folder with its own SKILL.md is a separate skill, not a resource', async () => {
    expect(skills.map((s) => s.metadata.name).sort()).toEqual(['nested', 'pdf']);
    const result = await invoke(createReadResourceTool(skills), { skill_name: 'pdf', path: 'nested/own.md' }, toolCtx());
    expect(result).toMatch(/^Cannot read "nested\/own.md" from skill "pdf": it is not one of the skill's listed files\./);
    expect(await invoke(createReadResourceTool(skills), { skill_name: 'nested', path: 'own.md' }, toolCtx())).toContain(
      'belongs to nested',
    );
  });

  it('an unknown skill lists the available names', async () => {
    expect(await invoke(createReadResourceTool(skills), { skill_name: 'pfd', path: 'x' }, toolCtx())).toBe(
      'Skill "pfd" not found. Closest available skills: pdf, nested.',
    );
  });

  it('bad arguments become a message naming the parameters', async () => {
    const tool = createReadResourceTool(skills);
    const bad = [
      undefined,
      {},
      { skill_name: 'pdf' },
      { skill_name: 'pdf', path: 3 },
      { skill_name: 'pdf', path: 'a', offset: 1.5 },
      'pdf',
    ];
    for (const args of bad) {
      expect(await invoke(tool, args, toolCtx())).toMatch(
        /^read_skill_resource needs `skill_name` and `path` strings .* e\.g\. \{"skill_name":"pdf","path":"references\/guide.md"\}\.$/,
      );
    }
  });

  it('logs reads, and refusals with their reason (security ones as warnings)', async () => {
    const tool = createReadResourceTool(skills);
    const ctx = toolCtx();
    await invoke(tool, { skill_name: 'pdf', path: 'scripts/fill.py' }, ctx);
    await invoke(tool, { skill_name: 'pdf', path: '../../etc/passwd' }, ctx);
    await invoke(tool, { skill_name: 'pdf', path: 'nope.md' }, ctx);
    const spans = ctx.log.entries.filter((entry) => entry.level === 'span').map((entry) => entry.args);
    expect(spans).toEqual([
      [
        'skills.read',
        { type: 'resource-read', skill: 'pdf', route: 'model', size: expect.any(Number), outcome: 'ok', path: 'scripts/fill.py' },
      ],
      [
        'skills.read',
        { type: 'resource-read', skill: 'pdf', route: 'model', size: 0, outcome: 'refused', reason: 'parent', path: '../../etc/passwd' },
      ],
      [
        'skills.read',
        { type: 'resource-read', skill: 'pdf', route: 'model', size: 0, outcome: 'refused', reason: 'not-listed', path: 'nope.md' },
      ],
    ]);
    expect((spans[0]?.[1] as { size: number }).size).toBeGreaterThan(13);
    expect(ctx.log.entries.filter((entry) => entry.level !== 'span')).toEqual([
      { level: 'info', args: ['[skills] resource read', { skill: 'pdf', path: 'scripts/fill.py', bytes: 13, cached: false }] },
      { level: 'warn', args: ['[skills] resource refused', { skill: 'pdf', path: '../../etc/passwd', reason: 'parent' }] },
      { level: 'debug', args: ['[skills] resource refused', { skill: 'pdf', path: 'nope.md', reason: 'not-listed' }] },
    ]);
  });

  it('never throws: a failure inside becomes a message and is logged', async () => {
    const [pdf] = skills.filter((s) => s.metadata.name === 'pdf');
    if (!pdf) throw new Error('pdf skill not discovered');
    // A skill whose resource list cannot be read stands for anything failing inside the tool.
    const broken: Skill = { ...pdf, metadata: { ...pdf.metadata, name: 'broken' } };
    Object.defineProperty(broken, 'resources', {
      get() {
        throw new Error('index exploded');
      },
    });
    const ctx = toolCtx();
    await expect(invoke(createReadResourceTool([broken]), { skill_name: 'broken', path: 'references/forms.md' }, ctx)).resolves.toBe(
      'Could not read the skill file: index exploded. Continue without it.',
    );
    expect(ctx.log.entries.filter((e) => e.level === 'error')).toEqual([
      { level: 'error', args: ['[skills] read_skill_resource failed', { error: 'index exploded' }] },
    ]);
  });

  it('with an empty list says no skills are loaded', async () => {
    expect(await invoke(createReadResourceTool([]), { skill_name: 'x', path: 'y' })).toBe('Skill "x" not found: no skills are loaded.');
  });

  it('works in a middleware stack: a skill is activated, then a file its listing names is read', async () => {
    const register = async (ctx: StackContext, next: () => Promise<void>): Promise<void> => {
      ctx.tools.register(createUseSkillTool(skills));
      ctx.tools.register(createReadResourceTool(skills));
      await next();
    };
    const ctx = await runStack(register);
    const activation = await callTool(ctx, 'use_skill', { skill_name: 'pdf' });
    const path = /^- (references\/forms\.md) /m.exec(activation)?.[1];
    expect(path).toBe('references/forms.md');
    expect(await callTool(ctx, READ_RESOURCE_TOOL, { skill_name: 'pdf', path })).toContain('Fill every field.');
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

  it(`caps the list (default ${DEFAULTS.maxListedResources}), naming readable files before assets, and counts the rest by folder`, () => {
    const resources = [
      ...Array.from({ length: 300 }, (_, i) => file(`assets/img-${String(i).padStart(3, '0')}.png`, 'asset')),
      file('references/guide.md', 'reference'),
      file('scripts/run.sh', 'script'),
      file('LICENSE', 'other'),
    ];
    const listing = renderResourceListing(resources).split('\n');
    expect(listing).toHaveLength(1 + DEFAULTS.maxListedResources + 1);
    expect(listing).toContain('- references/guide.md (reference, 10 B)');
    expect(listing).toContain('- scripts/run.sh (script, 10 B)');
    expect(listing.at(-1)).toBe('- ... and 103 more files not listed here (assets/ 103); ask for one by path if the instructions name it.');
    const small = renderResourceListing([file('a.md', 'reference'), file('b.md', 'reference'), file('c/d.md', 'reference')], {
      max: 1,
    }).split('\n');
    expect(small.slice(1)).toEqual([
      '- a.md (reference, 10 B)',
      '- ... and 2 more files not listed here ((top level) 1, c/ 1); ask for one by path if the instructions name it.',
    ]);
  });
});
