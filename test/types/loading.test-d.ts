/**
 * Type tests, checked by `npm run typecheck` (never run by vitest): how far a
 * skill was read is in its type. A frontmatter-only discovery gives entries,
 * whose instructions cannot be read by mistake; a whole one gives skills.
 * Every `@ts-expect-error` must be needed.
 */
import { expectTypeOf } from 'vitest';
import type { DiscoveryResult, Skill, SkillEntry } from '../../src/base/model.js';
import type { ResolvedOptions } from '../../src/config/options.js';
import { discover } from '../../src/discover/discover.js';
import type { SkillsLoad } from '../../src/index/skills-load.js';

declare const options: ResolvedOptions;
declare const lazy: boolean;

expectTypeOf(discover(options)).resolves.toEqualTypeOf<DiscoveryResult<Skill>>();
expectTypeOf(discover(options, {})).resolves.toEqualTypeOf<DiscoveryResult<Skill>>();
expectTypeOf(discover(options, { frontmatterOnly: true })).resolves.toEqualTypeOf<DiscoveryResult<SkillEntry>>();
// A mode known only at run time may give either: entries.
expectTypeOf(discover(options, { frontmatterOnly: lazy })).resolves.toEqualTypeOf<DiscoveryResult<SkillEntry>>();

export async function readsNoInstructionsByMistake(): Promise<void> {
  const entries = await discover(options, { frontmatterOnly: true });
  // @ts-expect-error an entry's instructions are read at activation, not at discovery
  void entries.skills[0]?.instructions;
  const whole = await discover(options);
  void whole.skills[0]?.instructions;
}

export function loadsSayHowFarTheyRead(load: SkillsLoad): void {
  if (load.read === 'whole') expectTypeOf(load.discovery.skills).toEqualTypeOf<Skill[]>();
  else expectTypeOf(load.discovery.skills).toEqualTypeOf<SkillEntry[]>();
  if (load.from !== 'scan') expectTypeOf(load.discovery.stamps.of).toBeFunction();
  // @ts-expect-error only a prebuilt index's load carries stamps
  if (load.from === 'scan') void load.discovery.stamps;
}
