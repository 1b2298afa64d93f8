// Types for argument-substitution-core.mjs, so tests can import it.
import type { Substituted, Substitutions } from '../src/base/arguments.js';

export interface SubstitutionCounts {
  files: number;
  changedOutsideCode: number;
  changedInsideCode: number;
  untouchedInCode: number;
  untouchedInCodePlaceholders: number;
  appended: number;
  optedIn: number;
  skillDir: number;
  pluginRoot: number;
}

export interface SubstitutionDeps {
  parseFrontmatter: (text: string) => { metadata?: Record<string, unknown> | undefined; body: string };
  substitute: (text: string, fill: Substitutions) => Substituted;
  substitutesInCode: (metadata: Readonly<Record<string, unknown>>) => boolean;
}

export function measureSubstitution(
  files: ReadonlyArray<{ path: string; text: string }>,
  args: string,
  deps: SubstitutionDeps,
): { counts: SubstitutionCounts; untouchedFiles: string[] };
