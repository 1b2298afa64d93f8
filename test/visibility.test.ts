/**
 * `visible(skill, ctx)`: a hidden skill must be indistinguishable from one
 * that was never installed. The oracle is the same library loaded with
 * `include` listing only the visible names (the hidden skills never enter
 * the index): every message, tool answer and per-request log line of the
 * two middlewares must be equal, byte for byte.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSkills, skillsMiddleware, type SkillsOptions } from '../src/index.js';
import { KEPT_VISIBLE_SETS } from '../src/runtime/loaded-index.js';
import type { SkillsContext } from '../src/run/context.js';
import { callTool, compose, conversation, createContext, type StackContext, type StackMessage } from './helpers/stack.js';

interface Spec {
  name: string;
  folder?: string;
  description: string;
  files?: Record<string, string>;
}

const SPECS: Spec[] = [
  {
    name: 'report-writer',
    description: 'Writes quarterly reports from spreadsheets.',
    files: { 'references/guide.md': '# Guide\nreport steps\n' },
  },
  { name: 'deploy-production', description: 'Deploys services to production clusters.', files: { 'scripts/deploy.sh': 'echo deploy\n' } },
  // Folder and name differ: discovery warns about this skill's file (NAME_MISMATCH).
  { name: 'payroll-export', folder: 'payroll', description: 'Exports payroll data to CSV files for accounting.' },
  { name: 'pdf-forms', description: 'Fills PDF forms and extracts their fields.', files: { 'references/fields.md': 'fields\n' } },
  { name: 'deploy-staging', description: 'Deploys services to the staging cluster for testing.' },
  { name: 'code-review', description: 'Reviews code changes for bugs and style.' },
];
const NAMES = SPECS.map((s) => s.name);
const HIDDEN = ['deploy-production', 'payroll-export'];

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mw-skills-visible-'));
  for (const spec of SPECS) {
    const dir = join(root, spec.folder ?? spec.name);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'SKILL.md'),
      `---\nname: ${spec.name}\ndescription: ${spec.description}\n---\n# ${spec.name}\n\nBODY-${spec.name}\n`,
    );
    for (const [file, text] of Object.entries(spec.files ?? {})) {
      await mkdir(join(dir, file, '..'), { recursive: true });
      await writeFile(join(dir, file), text);
    }
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

type Call = { tool: string; args: unknown };

/** Every probe a model or user could make about a name. */
function probesOf(name: string): Call[] {
  return [
    { tool: 'use_skill', args: { skill_name: name } },
    { tool: 'use_skill', args: { skill_name: name.slice(0, -1) } },
    { tool: 'read_skill_resource', args: { skill_name: name, path: 'scripts/deploy.sh' } },
    { tool: 'read_skill_resource', args: { skill_name: name, path: 'SKILL.md' } },
    { tool: 'find_skills', args: { query: name.replace(/-/g, ' ') } },
    { tool: 'find_skills', args: { query: 'deploy services to production clusters', limit: 20 } },
  ];
}

interface Transcript {
  messages: StackMessage[][];
  tools: string[][];
  answers: string[];
  logs: unknown[];
}

/** Runs `requests` (user texts), each followed by `calls`, on one middleware; the first request's discovery logs are left out. */
async function transcript(options: SkillsOptions, requests: readonly string[], calls: readonly Call[]): Promise<Transcript> {
  const middleware = skillsMiddleware(options);
  const out: Transcript = { messages: [], tools: [], answers: [], logs: [] };
  // Discovery (logged once per index) is not per request: a warm-up request takes it.
  await compose([middleware])(createContext({ messages: conversation('warm up') }));
  for (const text of requests) {
    const ctx = createContext({ messages: conversation(text) });
    await compose([middleware])(ctx);
    out.messages.push(ctx.messages.map((m) => ({ ...m })));
    out.tools.push(
      ['use_skill', 'read_skill_resource', 'find_skills'].map((name) => {
        const tool = ctx.tools.get(name);
        return tool ? `${tool.name}: ${tool.description ?? ''}` : `${name}: absent`;
      }),
    );
    for (const call of calls)
      out.answers.push(ctx.tools.get(call.tool) ? await callTool(ctx, call.tool, call.args) : `(${call.tool} absent)`);
    out.logs.push(...ctx.log.entries);
  }
  return out;
}

const hide =
  (hidden: readonly string[]) =>
  (skill: { metadata: { name: string } }): boolean =>
    !hidden.includes(skill.metadata.name);

describe('visible: a hidden skill is a skill never installed', () => {
  for (const catalogBudget of [8000, 260]) {
    it(`every message, tool answer and log line matches the library without it (catalogBudget ${catalogBudget})`, async () => {
      const shown = NAMES.filter((n) => !HIDDEN.includes(n));
      const common = {
        directories: [root],
        catalogBudget,
        always: ['deploy-production', 'report-writer'],
        autoActivate: { threshold: 0, maxSkills: 2 },
      };
      const requests = [
        '@deploy-production please ship it',
        'deploy services to production clusters',
        '@payroll-export @report-writer',
        'hello',
      ];
      const calls = HIDDEN.flatMap(probesOf).concat(probesOf('report-writer'), probesOf('no-such-skill'));
      const hidden = await transcript({ ...common, visible: hide(HIDDEN) }, requests, calls);
      const never = await transcript({ ...common, include: shown }, requests, calls);
      expect(hidden.messages).toEqual(never.messages);
      expect(hidden.tools).toEqual(never.tools);
      expect(hidden.answers).toEqual(never.answers);
      expect(hidden.logs).toEqual(never.logs);
      // Byte for byte; and no hidden skill's text got out.
      expect(JSON.stringify(hidden)).toBe(JSON.stringify(never));
      for (const name of HIDDEN) expect(JSON.stringify(hidden)).not.toContain(`BODY-${name}`);
      // The probes did reach the tools: the visible skill answers with its body.
      expect(hidden.answers.join('\n')).toContain('BODY-report-writer');
    });
  }

  it('property: any visibility function and any tool calls give the answers of the library without the hidden skills', async () => {
    const nameArb = fc.oneof(fc.constantFrom(...NAMES), fc.constantFrom('deploy', 'payroll', 'report', 'pdf', 'zzz-none'));
    const callArb: fc.Arbitrary<Call> = fc.oneof(
      nameArb.map((name) => ({ tool: 'use_skill', args: { skill_name: name } })),
      fc
        .tuple(nameArb, fc.constantFrom('SKILL.md', 'scripts/deploy.sh', 'references/guide.md', 'references/fields.md', '../x'))
        .map(([name, path]) => ({ tool: 'read_skill_resource', args: { skill_name: name, path } })),
      fc
        .tuple(
          fc.constantFrom('deploy', 'payroll csv', 'reports', 'forms pdf', 'review code', 'staging cluster'),
          fc.integer({ min: 1, max: 20 }),
        )
        .map(([query, limit]) => ({ tool: 'find_skills', args: { query, limit } })),
    );
    const requestArb = fc.oneof(
      nameArb.map((name) => `@${name} now`),
      fc.constantFrom('deploy to production', 'export payroll', 'hello', 'review my pdf forms'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: NAMES.length, maxLength: NAMES.length }),
        fc.array(callArb, { minLength: 1, maxLength: 6 }),
        fc.array(requestArb, { minLength: 1, maxLength: 2 }),
        fc.constantFrom(8000, 200),
        fc.boolean(),
        async (shownFlags, calls, requests, catalogBudget, async) => {
          const shown = NAMES.filter((_, i) => shownFlags[i]);
          // An empty include would mean "all": no skill visible is a library with none of them.
          const include = shown.length > 0 ? shown : ['no-skill-has-this-name'];
          const visible = (skill: { metadata: { name: string } }) =>
            async ? Promise.resolve(shown.includes(skill.metadata.name)) : shown.includes(skill.metadata.name);
          const common = { directories: [root], catalogBudget, always: ['payroll-export'], autoActivate: { threshold: 0.2, maxSkills: 1 } };
          const hidden = await transcript({ ...common, visible }, requests, calls);
          const never = await transcript({ ...common, include }, requests, calls);
          expect(JSON.stringify(hidden.messages)).toBe(JSON.stringify(never.messages));
          expect(hidden.tools).toEqual(never.tools);
          expect(hidden.answers).toEqual(never.answers);
          expect(hidden.logs).toEqual(never.logs);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('visible: asked once per skill per request', () => {
  it('is asked with the request ctx, once per skill, whatever the tools do; never when absent', async () => {
    const asked: string[] = [];
    const middleware = skillsMiddleware({
      directories: [root],
      visible: (skill, ctx) => {
        asked.push(`${String(ctx.state.user)}:${skill.metadata.name}`);
        return ctx.state.user === 'admin' || skill.metadata.name !== 'deploy-production';
      },
    });
    const ctx = createContext({ messages: conversation('@deploy-production') });
    ctx.state.user = 'alice';
    await compose([middleware])(ctx);
    expect([...asked].sort()).toEqual(NAMES.map((n) => `alice:${n}`).sort());
    for (const name of NAMES) {
      await callTool(ctx, 'use_skill', { skill_name: name });
      await callTool(ctx, 'read_skill_resource', { skill_name: name, path: 'SKILL.md' });
    }
    expect(asked).toHaveLength(NAMES.length);
    expect(ctx.messages.some((m) => m.content.includes('BODY-deploy-production'))).toBe(false);

    // The next request on the same ctx (the next turn) asks again, for its own user.
    ctx.state.user = 'admin';
    ctx.messages.push({ role: 'user', content: '@deploy-production' });
    await compose([middleware])(ctx);
    expect(asked).toHaveLength(NAMES.length * 2);
    expect(ctx.messages.filter((m) => m.role === 'tool' && m.content.startsWith('<skill name="deploy-production">'))).toHaveLength(1);
  });

  it('hides every skill whose answer throws, rejects or is not a boolean, and logs once per request', async () => {
    const middleware = skillsMiddleware({
      directories: [root],
      visible: (skill) => {
        const { name } = skill.metadata;
        if (name === 'deploy-production') throw new Error('directory service down');
        if (name === 'payroll-export') return Promise.reject(new Error('timeout'));
        if (name === 'pdf-forms') return 'yes' as unknown as boolean;
        return name === 'code-review' ? Promise.resolve(true) : true;
      },
    });
    const ctx = createContext({ messages: conversation('@pdf-forms @payroll-export') });
    await compose([middleware])(ctx);
    const state = getSkills(ctx as unknown as SkillsContext);
    expect(state?.skills.map((s) => s.metadata.name).sort()).toEqual(['code-review', 'deploy-staging', 'report-writer']);
    const failures = ctx.log.find('[skills] visible failed; those skills are hidden for this request');
    expect(failures).toHaveLength(1);
    expect(failures[0]?.level).toBe('error');
    expect(failures[0]?.args[1]).toEqual({
      count: 3,
      failures: [
        { skill: 'deploy-production', error: 'directory service down' },
        { skill: 'payroll-export', error: 'timeout' },
        { skill: 'pdf-forms', error: 'returned string "yes", not true or false' },
      ],
    });
    expect(await callTool(ctx, 'use_skill', { skill_name: 'pdf-forms' })).toMatch(/^Skill "pdf-forms" not found/);
    expect(ctx.log.find('[skills] visible failed; those skills are hidden for this request')).toHaveLength(1);
  });
});

describe('visible: the run view', () => {
  it('ctx.skills holds the visible skills only: entries, lookups, loads, activations and warnings', async () => {
    const middleware = skillsMiddleware({ directories: [root], visible: hide(['payroll-export']) });
    const ctx = createContext({ messages: conversation('@code-review') });
    await compose([middleware])(ctx);
    const state = getSkills(ctx as unknown as SkillsContext);
    if (!state) throw new Error('no run view');
    expect(state.skills.map((s) => s.metadata.name)).not.toContain('payroll-export');
    expect(state.get('payroll-export')).toBeUndefined();
    expect(await state.load('payroll-export')).toBeUndefined();
    expect(await state.loadDetailed('payroll-export')).toBeUndefined();
    expect((await state.load('code-review'))?.instructions).toContain('BODY-code-review');
    expect(state.activated).toEqual(['code-review']);
    // The folder/name mismatch warning is about the hidden skill's file: not shown.
    expect(state.warnings.filter((w) => w.file.includes(`${join(root, 'payroll')}`))).toEqual([]);
    const unfiltered = skillsMiddleware({ directories: [root] });
    const all = createContext({ messages: conversation('hi') });
    await compose([unfiltered])(all);
    expect(getSkills(all as unknown as SkillsContext)?.warnings.some((w) => w.code === 'NAME_MISMATCH')).toBe(true);
  });

  it('a skill active on an earlier turn and hidden on this one is gone from the view and the tools', async () => {
    let hidden = false;
    const middleware = skillsMiddleware({ directories: [root], visible: (s) => !(hidden && s.metadata.name === 'code-review') });
    const ctx: StackContext = createContext({ messages: conversation('@code-review') });
    await compose([middleware])(ctx);
    expect(getSkills(ctx as unknown as SkillsContext)?.activated).toEqual(['code-review']);
    hidden = true;
    ctx.messages.push({ role: 'user', content: 'again' });
    await compose([middleware])(ctx);
    const state = getSkills(ctx as unknown as SkillsContext);
    expect(state?.activated).toEqual([]);
    expect(state?.allowedTools.size).toBe(0);
    expect(await callTool(ctx, 'use_skill', { skill_name: 'code-review' })).toMatch(/not found/);
  });

  it('requests that see the same skills share one view (and its catalog and ranker), for the KEPT_VISIBLE_SETS latest sets', async () => {
    const middleware = skillsMiddleware({
      directories: [root],
      visible: (s, ctx) => !(ctx.state.hide as number[]).includes(NAMES.indexOf(s.metadata.name)),
    });
    const viewFor = async (hide: number[]) => {
      const ctx = createContext({ messages: conversation('hi') });
      ctx.state.hide = hide;
      await compose([middleware])(ctx);
      return getSkills(ctx as unknown as SkillsContext)?.skills;
    };
    const first = await viewFor([0]);
    expect(await viewFor([0])).toBe(first);
    expect(await viewFor([1])).not.toBe(first);
    // Nothing hidden: the whole index, shared by everyone.
    expect(await viewFor([])).toBe(await viewFor([99]));
    // KEPT_VISIBLE_SETS other sets later, the first one is built again.
    for (let mask = 1; mask <= KEPT_VISIBLE_SETS; mask++) await viewFor([1, 2, 3, 4, 5].filter((_, bit) => mask & (1 << bit)));
    const again = await viewFor([0]);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
