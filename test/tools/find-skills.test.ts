/**
 * find_skills as a hand-wired app registers it (`createFindSkillsTool`),
 * called with arguments and `{ log }` only, as a host calls a tool. How SISU's
 * adapters show its schema to a model is tested on the real SISU (test/real-sisu).
 */
import { describe, expect, it } from 'vitest';
import { catalogEntries } from '../../src/catalog/catalog.js';
import { createRanker } from '../../src/catalog/rank/score.js';
import { queryWords } from '../../src/catalog/rank/tokenize.js';
import { createSkillIndex } from '../../src/index/skill-index.js';
import { createFindSkillsTool, matchReason, MAX_FIND_LIMIT } from '../../src/tools/find-skills.js';
import { SkillRanker } from '../../src/catalog/skill-ranker.js';
import { createUseSkillTool } from '../../src/tools/use-skill.js';
import type { Skill } from '../../src/base/model.js';
import { callTool, invoke, recordingLogger, runStack, type RecordingLogger, type StackContext } from '../helpers/stack.js';

function skill(name: string, description: string, tags?: unknown): Skill {
  return {
    metadata: { name, description, ...(tags === undefined ? {} : { tags: tags as string[] }) },
    instructions: `# ${name}\n\nDo the ${name} steps.`,
    path: `/skills/${name}/SKILL.md`,
    directory: `/skills/${name}`,
    resources: [],
  };
}

const skills = [
  skill('code-review', 'Reviews a change for bugs and security.\nUse when asked to review a pull request.'),
  skill('debug', 'Finds the cause of a crash from logs and stack traces.'),
  skill('pdf-forms', 'Fills and flattens PDF forms.', ['pdf', 42]),
  ...Array.from({ length: 30 }, (_, i) => skill(`report-${String(i).padStart(2, '0')}`, `Writes weekly report number ${i}.`)),
];
const index = createSkillIndex({ skills });

function toolCtx(): { log: RecordingLogger } {
  return { log: recordingLogger() };
}

const find = createFindSkillsTool(skills);
const call = (args: unknown, ctx = toolCtx()): Promise<string> => invoke(find, args, ctx);

/** A skill whose description cannot be read: stands for anything failing inside the tool. */
function exploding(): Skill {
  const broken = skill('broken', 'x');
  Object.defineProperty(broken.metadata, 'description', {
    get() {
      throw new Error('index gone');
    },
  });
  return broken;
}

describe('find_skills handler', () => {
  it('returns the best matches, one per line with the description, and points at use_skill', async () => {
    const text = await call({ query: 'please review my PR for security problems' });
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'Skills matching "please review my PR for security problems", best first, each with the words it matched and where:',
    );
    expect(lines[1]).toBe(
      '- code-review: Reviews a change for bugs and security. Use when asked to review ' +
        'a pull request. (matched "review" in the name; "security" in the description)',
    );
    expect(lines.at(-1)).toMatch(/^Call `use_skill` with the `skill_name`.* A skill that matched only a passing word may not fit\.$/);
  });

  it('says in which field each matched word was found, the instructions once they are ranked', async () => {
    const withBody: Skill = {
      ...skill('release-train', 'Ships a tagged version to customers.', ['deploy']),
      instructions: '# Release train\n\n## Rollback\n\nIf the canary fails, roll back the deploy and page the owner.',
    };
    const list = [withBody, ...skills];
    const ranker = new SkillRanker(list).get();
    const entry = list[0] as Skill;
    const words = queryWords('release train deploy canary rollback');
    expect(matchReason(ranker, entry, words)).toBe('matched "release", "train" in the name; "deploy" in the tags');
    const collector = ranker.bodyCollector();
    collector.add(0, withBody.instructions);
    ranker.useBodies(collector.build());
    expect(matchReason(ranker, entry, words)).toBe(
      'matched "release", "train" in the name; "deploy" in the tags; "canary", "rollback" in the instructions',
    );
    expect(matchReason(ranker, skills[0] as Skill, queryWords('canary'))).toBe('');
  });

  it('works over a fixed list for hand-wired apps', async () => {
    expect(await invoke(createFindSkillsTool(skills.slice(0, 3)), { query: 'stack trace' })).toMatch(/\n- debug: /);
  });

  it('searches tags too', async () => {
    expect((await call({ query: 'pdf' })).split('\n')[1]).toMatch(/^- pdf-forms:/);
  });

  it('returns 5 by default, caps the limit at 20, and accepts a numeric string', async () => {
    const entries = (text: string): number => text.split('\n').filter((l) => l.startsWith('- ')).length;
    expect(entries(await call({ query: 'weekly report' }))).toBe(5);
    expect(entries(await call({ query: 'weekly report', limit: 100 }))).toBe(MAX_FIND_LIMIT);
    expect(entries(await call({ query: 'weekly report', limit: '2' }))).toBe(2);
    expect(entries(await call({ query: 'weekly report', limit: 0 }))).toBe(1);
    expect(entries(await call({ query: 'weekly report', limit: 'lots' }))).toBe(5);
  });

  it('says so when nothing matches, when the query is missing, and when no skills are loaded', async () => {
    expect(await call({ query: 'kubernetes helm chart' })).toMatch(/^No skills match "kubernetes helm chart" among 33\. Try other words/);
    expect(await call({ query: '   ' })).toMatch(/needs a `query`/);
    expect(await call({})).toMatch(/needs a `query`/);
    expect(await call(null)).toMatch(/needs a `query`/);
    expect(await invoke(createFindSkillsTool([]), { query: 'x' })).toMatch(/No skills are loaded/);
  });

  it('never throws: a failing source becomes a message and an error log', async () => {
    const ctx = toolCtx();
    await expect(invoke(createFindSkillsTool([exploding()]), { query: 'review' }, ctx)).resolves.toMatch(
      /^Could not search the skills: index gone\./,
    );
    expect(ctx.log.entries.some((e) => e.level === 'error' && e.args[0] === '[skills] find_skills failed')).toBe(true);
  });

  it('builds its ranker once, on first use, and keeps it', () => {
    const ranking = new SkillRanker(index.skills);
    expect(ranking.get()).toBe(ranking.get());
    expect(new SkillRanker(index.skills).get()).not.toBe(ranking.get());
  });

  it('ranks exactly as a ranked catalog over the same skills does, odd tags included', () => {
    const odd = [...skills, skill('pdf-split', 'Splits PDF files.', 'pdf'), skill('pdf-merge', 'Merges PDF files.', [7, 'pdf', null])];
    const catalogRanker = createRanker(catalogEntries(odd));
    for (const query of ['pdf', 'merge pdf files', 'weekly report 7', 'review a pull request for security']) {
      expect(new SkillRanker(odd).get().rank(query)).toEqual(catalogRanker.rank(query));
    }
  });
});

describe('find_skills in a middleware stack', () => {
  it('a search answer names a skill that use_skill then activates', async () => {
    const register = async (ctx: StackContext, next: () => Promise<void>): Promise<void> => {
      ctx.tools.register(createFindSkillsTool(skills));
      ctx.tools.register(createUseSkillTool(skills));
      await next();
    };
    const ctx = await runStack(register, [{ role: 'user', content: 'it crashes' }]);
    const found = await callTool(ctx, 'find_skills', { query: 'app crashed with a stack trace', limit: 3 });
    expect(found).toMatch(/^Skills matching "app crashed with a stack trace", best first, each with the words it matched and where:$/m);
    expect(found).toMatch(/^Skills matching .*\n- debug: .*\(matched "crashed", "stack", "trace" in the description\)$/m);
    const name = /^- ([a-z0-9-]+):/m.exec(found)?.[1];
    expect(await callTool(ctx, 'use_skill', { skill_name: name })).toContain('<skill name="debug">');
  });
});

describe('createFindSkillsTool ranks by the instructions the skills hold', () => {
  const withBody = (name: string, description: string, instructions: string): Skill => ({ ...skill(name, description), instructions });
  const library = [
    withBody('release', 'Ships a tagged version to customers.', '## Canary stages\n\nWatch the canary, then promote it to every region.'),
    withBody('notes', 'Writes meeting notes.', '# Notes\n\nSummarise the meeting.'),
    ...Array.from({ length: 10 }, (_, i) => skill(`chore-${i}`, `Helps with chore number ${i}.`)),
  ];

  it('finds a skill by a word only its instructions use, and says so', async () => {
    const text = await invoke(createFindSkillsTool(library), { query: 'canary promote' }, toolCtx());
    expect(text).toMatch(/\n- release: Ships a tagged version to customers\. \(matched "canary", "promote" in the instructions\)/);
  });

  it('with rankInstructions: false, ranks by name, tags and description only', async () => {
    const text = await invoke(createFindSkillsTool(library, { rankInstructions: false }), { query: 'canary promote' }, toolCtx());
    expect(text).toMatch(/^No skills match "canary promote"/);
  });
});
