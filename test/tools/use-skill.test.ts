/**
 * use_skill as a hand-wired app registers it: `createUseSkillTool(skills)`,
 * called with arguments and `{ log }` only, as a host calls a tool. How SISU's
 * adapters show its schema to a model is tested on the real SISU (test/real-sisu).
 */
import { describe, expect, it } from 'vitest';
import { createUseSkillTool, renderActivation } from '../../src/tools/use-skill.js';
import type { Skill } from '../../src/base/model.js';
import { SkillUnavailableError } from '../../src/config/errors.js';
import { CopyError, CopyCodes } from '../../src/storage/copies/copy-error.js';
import { invoke, recordingLogger, type RecordingLogger } from '../helpers/stack.js';

function skill(name: string, extra: Partial<Skill> = {}): Skill {
  return {
    metadata: { name, description: `${name} things` },
    instructions: `\n# ${name}\n\nDo the ${name} steps.\n`,
    path: `/skills/${name}/SKILL.md`,
    directory: `/skills/${name}`,
    resources: [],
    ...extra,
  };
}

const reviewSkill = skill('code-review', {
  resources: [
    {
      name: 'checklist.md',
      path: 'references/checklist.md',
      absolutePath: '/skills/code-review/references/checklist.md',
      type: 'reference',
      size: 2048,
    },
    { name: 'lint.sh', path: 'scripts/lint.sh', absolutePath: '/skills/code-review/scripts/lint.sh', type: 'script', size: 300 },
  ],
});
const skills = [reviewSkill, skill('debug'), skill('deploy-staging'), skill('explain')];

function toolCtx(): { log: RecordingLogger } {
  return { log: recordingLogger() };
}

/** A skill whose instructions cannot be read: stands for anything failing inside the tool. */
function exploding(name: string, thrown: unknown): Skill {
  const broken = skill(name);
  Object.defineProperty(broken, 'instructions', {
    get() {
      throw thrown;
    },
  });
  return broken;
}

describe('use_skill handler', () => {
  it('returns instructions without frontmatter, the directory, and resources with type and size', async () => {
    const tool = createUseSkillTool(skills);
    const result = await invoke(tool, { skill_name: 'code-review' }, toolCtx());
    expect(result).toContain('<skill name="code-review">');
    expect(result).toContain('Skill directory: /skills/code-review');
    expect(result).toContain('# code-review\n\nDo the code-review steps.');
    expect(result).toContain('- references/checklist.md (reference, 2.0 KB)');
    expect(result).toContain('- scripts/lint.sh (script, 300 B)');
    expect(renderActivation(skill('debug'))).toContain('This skill has no bundled resources.');
  });

  it('an unknown name lists the available names, closest first', async () => {
    const result = await invoke(createUseSkillTool(skills), { skill_name: 'deploy' }, toolCtx());
    expect(result).toMatch(/^Skill "deploy" not found\. Closest available skills: deploy-staging, /);
    expect(result).toContain('code-review');
  });

  it('caps the suggestions on large libraries and says how many more exist', async () => {
    const many = Array.from({ length: 25 }, (_, i) => skill(`skill-${String(i).padStart(2, '0')}`));
    const result = await invoke(createUseSkillTool(many), { skill_name: 'nope' }, toolCtx());
    expect(result).toMatch(/, and 15 more\./);
  });

  it('has no run of its own: asking again answers with the instructions again, and each activation is logged', async () => {
    // "Already active" belongs to a run, which only the middleware's tools have (test/middleware.test.ts).
    const tool = createUseSkillTool(skills);
    const ctx = toolCtx();
    expect(await invoke(tool, { skill_name: 'debug' }, ctx)).toContain('Do the debug steps.');
    expect(await invoke(tool, { skill_name: 'debug' }, ctx)).toContain('Do the debug steps.');
    expect(ctx.log.entries.filter((e) => e.level === 'info')).toEqual([
      { level: 'info', args: ['[skills] activated', { skill: 'debug', route: 'model' }] },
      { level: 'info', args: ['[skills] activated', { skill: 'debug', route: 'model' }] },
    ]);
  });

  it('works with no tool context at all, and with only a signal', async () => {
    const tool = createUseSkillTool(skills);
    expect(await invoke(tool, { skill_name: 'explain' })).toContain('<skill name="explain">');
    expect(await invoke(tool, { skill_name: 'explain' }, { signal: new AbortController().signal })).toContain('<skill name="explain">');
  });

  it('bad arguments become a message naming the parameter', async () => {
    const tool = createUseSkillTool(skills);
    const bad = [undefined, {}, { skill_name: 3 }, 'code-review'];
    for (const args of bad) {
      expect(await invoke(tool, args, toolCtx())).toBe('use_skill needs a `skill_name` string, e.g. {"skill_name": "code-review"}.');
    }
  });

  it('trims the requested name', async () => {
    expect(await invoke(createUseSkillTool(skills), { skill_name: '  explain ' }, toolCtx())).toContain('<skill name="explain">');
  });

  it('never throws: a failure inside becomes a message and is logged', async () => {
    const tool = createUseSkillTool([exploding('boom', new Error('index exploded')), exploding('odd', 'plain string')]);
    const ctx = toolCtx();
    await expect(invoke(tool, { skill_name: 'boom' }, ctx)).resolves.toBe(
      'Could not activate the skill: index exploded. Try again, or continue without it.',
    );
    expect(ctx.log.entries.filter((e) => e.level === 'error')).toEqual([
      { level: 'error', args: ['[skills] use_skill failed', { error: 'index exploded' }] },
    ]);
    await expect(invoke(tool, { skill_name: 'odd' })).resolves.toContain('plain string');
  });

  it('says trying again will not help when the refusal is one a retry cannot change (untrusted, a stale index, an unverified copy)', async () => {
    const untrusted = new SkillUnavailableError({ skill: 'signed', path: 'signed/SKILL.md', reason: 'untrusted', detail: 'hash differs' });
    const stale = new SkillUnavailableError({ skill: 'old', path: 'old/SKILL.md', reason: 'stale', detail: 'size changed' });
    const file = { path: 'scripts/run.sh', read: { sha256: 'b'.repeat(64), size: 3 } };
    const copy = new CopyError(CopyCodes.unverified, 'copied', 'scripts/run.sh: not the file its publisher signed', { untrusted: file });
    const changed = new SkillUnavailableError({ skill: 'busy', path: 'busy/SKILL.md', reason: 'changed', detail: 'mid-write' });
    const tool = createUseSkillTool([
      exploding('signed', untrusted),
      exploding('old', stale),
      exploding('copied', copy),
      exploding('busy', changed),
    ]);
    for (const name of ['signed', 'old', 'copied']) {
      const answer = await invoke(tool, { skill_name: name }, toolCtx());
      expect(answer).toMatch(/\. Trying again will not help; continue without it\.$/);
      expect(answer).not.toContain('Try again');
    }
    expect(await invoke(tool, { skill_name: 'busy' }, toolCtx())).toMatch(/\. Try again, or continue without it\.$/);
  });

  it('with an empty list says no skills are loaded', async () => {
    expect(await invoke(createUseSkillTool([]), { skill_name: 'x' })).toBe('Skill "x" not found: no skills are loaded.');
  });

  it('a hand-built list with a repeated name keeps the first, like discovery', async () => {
    const first = skill('debug', { instructions: 'FIRST' });
    const second = skill('debug', { instructions: 'SECOND' });
    expect(await invoke(createUseSkillTool([first, second]), { skill_name: 'debug' }, toolCtx())).toContain('FIRST');
  });
});
