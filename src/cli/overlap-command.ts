/**
 * `sisu-skills overlap <dir...>`: the pairs of skills a model is likely to
 * confuse (overlap.ts), and validate's DESCRIPTION_OVERLAP warnings built
 * from the same pairs. Only skills in the catalog count: a skill with
 * disable-model-invocation is never offered to the model.
 */
import { isModelInvocable } from '../metadata/invocation.js';
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { closestOverlaps, findOverlaps, OVERLAP_THRESHOLD, type OverlapPair } from '../catalog/overlap.js';
import type { Skill } from '../base/model.js';
import type { OverlapArgs } from './args.js';
import { count, EXIT, formatForCli, type CliIO } from './io.js';
import { load } from './load.js';

/** The pairs among the skills the model sees, at `threshold`. */
export function overlapsOf(skills: readonly Skill[], threshold = OVERLAP_THRESHOLD): OverlapPair[] {
  const visible = skills.filter((skill) => isModelInvocable(skill.metadata)).map((skill) => skill.metadata);
  return findOverlaps(visible, { threshold });
}

/** One DESCRIPTION_OVERLAP warning per skill in a pair, naming at most the 3 closest others. */
export function overlapDiagnostics(skills: readonly Skill[], pairs: readonly OverlapPair[]): Diagnostic[] {
  const closest = closestOverlaps(pairs, 3);
  const diagnostics: Diagnostic[] = [];
  for (const skill of skills) {
    const name = skill.metadata.name;
    const near = closest.get(name);
    if (near === undefined) continue;
    const others = near.map((pair) => {
      const other = pair.a === name ? pair.b : pair.a;
      return `${other} (${pair.score.toFixed(2)}: ${pair.shared.slice(0, 4).join(', ')})`;
    });
    diagnostics.push(
      createDiagnostic(
        'DESCRIPTION_OVERLAP',
        skill.path,
        `description: reads like ${others.join('; ')}, so a model may pick the wrong one. Say what this skill does that ` +
          `the others do not, and when to use it instead (sisu-skills overlap lists every pair and its shared words).`,
      ),
    );
  }
  return diagnostics;
}

export async function overlapCommand(args: OverlapArgs, io: CliIO): Promise<number> {
  const loaded = await load(args, io.cwd);
  for (const d of loaded.unreadable) io.err(formatForCli(d, io.cwd));
  if (loaded.unreadable.length > 0) return EXIT.problems;
  const threshold = args.threshold ?? OVERLAP_THRESHOLD;
  const pairs = overlapsOf(loaded.skills, threshold);
  const visible = loaded.skills.filter((skill) => isModelInvocable(skill.metadata)).length;
  if (args.json) {
    io.out(JSON.stringify({ threshold, skills: visible, pairs }, null, 2));
  } else {
    const width = Math.max(0, ...pairs.map((pair) => pair.a.length));
    for (const pair of pairs) {
      io.out(`${pair.score.toFixed(3)}  ${pair.a.padEnd(width)}  ${pair.b}  shared: ${pair.shared.join(', ')}`);
    }
    io.err(`${count(pairs.length, 'pair')} at or above ${threshold} among ${count(visible, 'skill')} in the catalog.`);
  }
  const skipped = loaded.errors;
  if (skipped > 0) io.err(`${count(skipped, 'error')} left skills out; run \`sisu-skills validate\` for details.`);
  return skipped > 0 ? EXIT.problems : EXIT.ok;
}
