/**
 * Type tests, checked by `npm run typecheck` (tsc over test/, never run by
 * vitest): the public tool factories and skillsMiddleware's options accept
 * what they document and reject what they do not. Every `@ts-expect-error`
 * must be needed: an unused one is itself a compile error, so each negative
 * case fails the typecheck the day the API starts accepting it.
 */
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import {
  createFindSkillsTool,
  createReadResourceTool,
  createUseSkillTool,
  skillsMiddleware,
  type FindSkillsArgs,
  type HostTool,
  type HostToolRegistry,
  type ReadResourceArgs,
  type Skill,
  type SkillEntry,
  type UseSkillArgs,
} from '../../src/index.js';
import { skillTool } from '../../src/tools/skill-tool.js';

declare const skills: Skill[];
declare const entries: SkillEntry[];
declare const registry: HostToolRegistry;

// ---------------------------------------------------------------------------
// use_skill

const useSkill = createUseSkillTool(skills, { maxInstructionChars: 1000 });
expectTypeOf(useSkill.handler).parameter(0).toEqualTypeOf<UseSkillArgs>();
expectTypeOf<UseSkillArgs>().toEqualTypeOf<{ skill_name: string; arguments?: string | undefined }>();
// The schema the host parses with and the handler's arguments are one type.
expectTypeOf<z.infer<typeof useSkill.schema>>().toEqualTypeOf<Parameters<typeof useSkill.handler>[0]>();
void useSkill.handler({ skill_name: 'pdf' });
void useSkill.handler({ skill_name: 'deploy', arguments: 'eu-west' });
// @ts-expect-error arguments is one string, as typed after the skill's name
void useSkill.handler({ skill_name: 'deploy', arguments: ['eu-west'] });
// @ts-expect-error skill_name is a string
void useSkill.handler({ skill_name: 5 });
// @ts-expect-error skill_name is required
void useSkill.handler({});
// @ts-expect-error the argument is an object, not the name itself
void useSkill.handler('pdf');
// @ts-expect-error a list of names is not a list of skills
createUseSkillTool(['pdf']);
// @ts-expect-error index entries (no instructions or resources) are not loaded skills
createUseSkillTool(entries);
// @ts-expect-error maxInstructionChars is a number
createUseSkillTool(skills, { maxInstructionChars: '1000' });

// ---------------------------------------------------------------------------
// read_skill_resource

const readResource = createReadResourceTool(skills, { maxFileSize: 1024, cacheTtl: 0 });
expectTypeOf(readResource.handler).parameter(0).toEqualTypeOf<ReadResourceArgs>();
expectTypeOf<z.infer<typeof readResource.schema>>().toEqualTypeOf<Parameters<typeof readResource.handler>[0]>();
void readResource.handler({ skill_name: 'pdf', path: 'references/guide.md' });
void readResource.handler({ skill_name: 'pdf', path: 'references/guide.md', offset: 10, limit: 20 });
// @ts-expect-error offset is a number of lines
void readResource.handler({ skill_name: 'pdf', path: 'references/guide.md', offset: '10' });
// @ts-expect-error path is required
void readResource.handler({ skill_name: 'pdf' });
// @ts-expect-error a single skill is not a list
createReadResourceTool(skills[0]);
// @ts-expect-error maxFileSize is in bytes, a number
createReadResourceTool(skills, { maxFileSize: '1 MB' });
// @ts-expect-error no such setting
createReadResourceTool(skills, { maxFileSizes: 1024 });

// ---------------------------------------------------------------------------
// find_skills

const findSkills = createFindSkillsTool(skills);
expectTypeOf(findSkills.handler).parameter(0).toEqualTypeOf<FindSkillsArgs>();
expectTypeOf<FindSkillsArgs>().toEqualTypeOf<{ query: string; limit?: number | undefined }>();
void findSkills.handler({ query: 'fill a pdf form' });
void findSkills.handler({ query: 'fill a pdf form', limit: 3 });
// @ts-expect-error limit is a number
void findSkills.handler({ query: 'fill a pdf form', limit: '3' });
// @ts-expect-error query is required
void findSkills.handler({ limit: 3 });
// @ts-expect-error index entries are not loaded skills
createFindSkillsTool(entries);

// Every factory's tool registers with a host as it is.
const asHostTools: HostTool[] = [useSkill, readResource, findSkills];
for (const tool of asHostTools) registry.register(tool);

// ---------------------------------------------------------------------------
// skillTool (internal): `run` gets what `accepts` outputs, not the shown schema's type.

const Shown = z.object({ count: z.number().optional() });
skillTool({
  name: 'demo',
  description: 'Demo.',
  schema: Shown,
  accepts: z.object({ count: z.unknown().transform(Number) }),
  source: () => undefined,
  noSkills: 'none',
  usage: () => 'call it with a count',
  run: async ({ count }) => {
    expectTypeOf(count).toEqualTypeOf<number>();
    return String(count);
  },
  failed: (reason) => reason,
});
skillTool({
  name: 'demo',
  description: 'Demo.',
  schema: Shown,
  // @ts-expect-error accepts gives a number, and run wants a string
  accepts: z.object({ count: z.number() }),
  source: () => undefined,
  noSkills: 'none',
  usage: () => 'call it with a count',
  run: async ({ count }: { count: string }) => count,
  failed: (reason) => reason,
});

// ---------------------------------------------------------------------------
// skillsMiddleware options

skillsMiddleware({
  directories: ['./skills'],
  catalogBudget: 8000,
  autoActivate: { threshold: 0.3, maxSkills: 1 },
  watch: { debounceMs: 100 },
});
// @ts-expect-error unknown option (a misspelt catalogBudget)
skillsMiddleware({ directories: ['./skills'], catalogBudgt: 8000 });
// @ts-expect-error directories is a list
skillsMiddleware({ directories: './skills' });
// @ts-expect-error catalogBudget is a number of characters
skillsMiddleware({ directories: ['./skills'], catalogBudget: '8000' });
// @ts-expect-error autoActivate takes threshold and maxSkills
skillsMiddleware({ directories: ['./skills'], autoActivate: { threshold: 0.3, max: 1 } });
// @ts-expect-error watch is true, false or { debounceMs }
skillsMiddleware({ directories: ['./skills'], watch: 'yes' });
// @ts-expect-error always is a list of names
skillsMiddleware({ directories: ['./skills'], always: 'house-style' });
