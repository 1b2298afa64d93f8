/**
 * Which candidates load: those include/exclude keep, valid, and not named
 * like one already accepted. Sequential on purpose: filtering and name
 * clashes follow discovery order, so the first directory listed wins.
 */
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { foldName } from '../metadata/names.js';
import type { SkillMetadata } from '../base/model.js';
import type { Candidate } from './candidates.js';
import type { Selection } from './select.js';
import type { SkillLocation } from './walk.js';

export interface Accepted {
  candidate: Candidate;
  metadata: SkillMetadata;
  /** This skill's diagnostics (the same array as in `perSkill`): later steps add theirs. */
  found: Diagnostic[];
}

export interface Acceptance {
  accepted: Accepted[];
  /** The diagnostics of every kept candidate, accepted or not, in discovery order. */
  perSkill: Diagnostic[][];
}

export function acceptCandidates(candidates: readonly Candidate[], selection: Selection): Acceptance {
  const accepted: Accepted[] = [];
  const perSkill: Diagnostic[][] = [];
  const firstByName = new Map<string, SkillLocation>();
  const firstByLook = new Map<string, { name: string; location: SkillLocation }>();
  for (const candidate of candidates) {
    if (candidate.excluded || !selection.keeps(candidate.names)) continue;
    const found = [...candidate.diagnostics];
    perSkill.push(found);
    if (!candidate.metadata) continue;
    const { name } = candidate.metadata;
    const first = firstByName.get(name);
    if (first) {
      found.push(duplicate(name, first, candidate.location));
      continue;
    }
    firstByName.set(name, candidate.location);
    const look = lookKey(name);
    const twin = firstByLook.get(look);
    if (twin) found.push(lookAlike(name, candidate.location, twin));
    else firstByLook.set(look, { name, location: candidate.location });
    accepted.push({ candidate, metadata: candidate.metadata, found });
  }
  return { accepted, perSkill };
}

function duplicate(name: string, first: SkillLocation, later: SkillLocation): Diagnostic {
  return createDiagnostic(
    'SKILL_DUPLICATE',
    later.file,
    `skill name "${name}" is already taken by ${first.file}, so ${later.file} was not ` +
      `loaded. The first directory listed wins; rename one of the skills to load both.`,
  );
}

/** Names a reader cannot tell apart share this key. Plain ASCII (nearly every name) only needs lower case. */
function lookKey(name: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(name) ? name.toLowerCase() : foldName(name);
}

function lookAlike(name: string, later: SkillLocation, first: { name: string; location: SkillLocation }): Diagnostic {
  return createDiagnostic(
    'NAME_LOOKALIKE',
    later.file,
    `skill name ${JSON.stringify(name)} looks the same as ${JSON.stringify(first.name)} (${first.location.file}) once case, accents, ` +
      'fullwidth forms and Cyrillic or Greek look-alike letters are folded, so a reader or a model can mistake one for the other. ' +
      'Both are loaded; rename one of them.',
  );
}
