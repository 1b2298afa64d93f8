/**
 * The secret patterns are compiled once per middleware (its options), not per
 * skill listed, per activation or per rediscovery: counted through the one
 * function that compiles them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSkills, skillsMiddleware } from '../src/index.js';
import { callTool, conversation, createContext, FIXTURE_SKILL_NAMES, SKILLS_FIXTURES } from './helpers/stack.js';

// Counted where every compile ends: the RegExp constructor, for expressions holding a pattern no other code uses.
// (The suite shares modules between test files, so a module mock would not reach the code under test.)
const OriginalRegExp = RegExp;
let compiled: string[] = [];

beforeEach(() => {
  compiled = [];
  globalThis.RegExp = new Proxy(OriginalRegExp, {
    construct(target, args: ConstructorParameters<RegExpConstructor>) {
      compiled.push(String(args[0]));
      return Reflect.construct(target, args) as RegExp;
    },
  });
});

afterEach(() => {
  globalThis.RegExp = OriginalRegExp;
});

/** How many times the secret patterns holding `extra` (a file extension) were compiled so far. */
function secretCompiles(extension: string): number {
  return compiled.filter((source) => source.includes(extension) && source.includes('env')).length;
}

describe('secret patterns are compiled once per options', () => {
  it('the middleware: once at construction, whatever it discovers, activates and reads', async () => {
    const skills = skillsMiddleware({ directories: [SKILLS_FIXTURES], secretPatterns: ['*.pfx12'], preload: false, cacheTtl: 0 });
    expect(secretCompiles('pfx12')).toBe(1);
    for (let turn = 0; turn < 2; turn++) {
      // cacheTtl 0: each request discovers again.
      const ctx = createContext({ messages: conversation('Please help.') });
      await skills(ctx, async () => undefined);
      for (const name of FIXTURE_SKILL_NAMES) {
        expect(await callTool(ctx, 'use_skill', { skill_name: name })).toContain(`<skill name="${name}">`);
      }
      expect(await callTool(ctx, 'read_skill_resource', { skill_name: 'code-review', path: 'references/../.env' })).toMatch(/^Cannot read/);
    }
    expect(secretCompiles('pfx12')).toBe(1);
  });

  it('discoverSkills: once per call, not once per skill listed', async () => {
    const result = await discoverSkills({ directories: [SKILLS_FIXTURES], secretPatterns: ['*.jks34'] });
    expect(result.skills.filter((skill) => skill.resources.length > 0).length).toBeGreaterThan(1);
    expect(secretCompiles('jks34')).toBe(1);
  });
});
