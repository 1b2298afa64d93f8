// Types for conformance-core.mjs, so test/conformance.test.ts can import it.
import type { ParsedFrontmatter } from '../src/frontmatter/parse.js';

export interface Difference {
  path: string;
  actual: unknown;
  expected: unknown;
}

export type Outcome = 'equal' | 'recovered' | 'failed';

export interface CheckResult {
  outcome: Outcome;
  reason?: string;
}

export interface CheckDeps {
  parseFrontmatter: (text: string) => ParsedFrontmatter;
  parseYaml: (text: string) => unknown;
}

export function findSkillFiles(dir: string): string[];
export function firstDifference(actual: unknown, expected: unknown, path?: string): Difference | undefined;
export function checkSkill(text: string, deps: CheckDeps): CheckResult;
