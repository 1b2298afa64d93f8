/**
 * include / exclude: which skills a discovery keeps, matched against the
 * folder name (as reached and as it really is) and the declared name, each
 * pattern list compiled once. Also the warnings for patterns that cannot do
 * what they seem to.
 */
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { globMatcher } from '../base/glob.js';

export interface Selection {
  /** Whether `names` (folder names and declared name) are kept: exclude wins over include. */
  keeps(names: readonly string[]): boolean;
  /** Whether a folder with this real name is excluded before it is read. */
  excludesFolder(name: string): boolean;
}

export function createSelection(include: readonly string[], exclude: readonly string[]): Selection {
  const included = globMatcher(include);
  const excluded = globMatcher(exclude);
  return {
    keeps: (names) => !names.some(excluded) && (include.length === 0 || names.some(included)),
    excludesFolder: excluded,
  };
}

/** Glob syntax people expect that patterns read literally, with what it is. */
const UNSUPPORTED_SYNTAX: ReadonlyArray<[RegExp, string]> = [
  [/\[.*\]/, '"[...]" (a character class)'],
  [/\{.*\}/, '"{a,b}" (alternatives)'],
  [/[/\\]/, 'a path separator (patterns match names, not paths; "**/" is not needed)'],
  [/^!/, 'a leading "!" (negation; use `exclude` instead)'],
];

const PATTERN_HELP =
  'Patterns match a skill name or folder name, whole and case-sensitive: "*" matches any run of characters, "?" one character, and everything else is literal.';

/**
 * One warning per pattern that uses syntax we read literally, or that matches
 * none of `found` (each skill's folder names and declared name): either way
 * the filter does not do what its author meant, and nothing else would say so.
 */
export function filterWarnings(
  found: ReadonlyArray<readonly string[]>,
  patterns: { include: readonly string[]; exclude: readonly string[] },
): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const list of ['include', 'exclude'] as const) {
    for (const pattern of new Set(patterns[list])) {
      const syntax = UNSUPPORTED_SYNTAX.find(([shape]) => shape.test(pattern))?.[1];
      const matches = globMatcher([pattern]);
      const matched = found.some((names) => names.some(matches));
      if (syntax === undefined && matched) continue;
      const problems = [
        ...(syntax === undefined ? [] : [`uses ${syntax}, which is not supported${matched ? ' (it was matched literally)' : ''}`]),
        ...(matched ? [] : ['matches no skill that was found']),
      ];
      warnings.push(
        createDiagnostic(
          'FILTER_PATTERN',
          '<options>',
          `${list} pattern ${JSON.stringify(pattern)} ${problems.join(' and ')}. ${PATTERN_HELP}`,
        ),
      );
    }
  }
  return warnings;
}
