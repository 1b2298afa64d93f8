/**
 * The answer every skill tool gives for a name it does not know: the names
 * most likely meant (close spellings, then the local ranker's picks for the
 * request's words), and what to do next. Bounded work whatever the request's
 * length (src/catalog/suggest.ts).
 */
import type { SkillIndex } from '../index/skill-index.js';
import { suggestNames } from '../catalog/suggest.js';
import type { Ranker } from '../catalog/rank/score.js';

/** How many names a "not found" message suggests. */
const SUGGESTED_NAMES = 10;
/** How much of an unknown name a message quotes back. */
const QUOTED_NAME = 80;

export interface UnknownSkillHints {
  /** What to do next, e.g. "Call use_skill again with one of these names." */
  retry?: string;
  /** The search tool's name, when the run registered it: the answer then points to it. */
  searchTool?: string;
}

function quoted(name: string): string {
  return JSON.stringify(name.length > QUOTED_NAME ? `${name.slice(0, QUOTED_NAME)}…` : name);
}

/** `ranker`: the ranker over `index`'s skills, asked only when the name is unknown (its owner builds it on first use). */
export function unknownSkillMessage(requested: string, index: SkillIndex, ranker: () => Ranker, hints: UnknownSkillHints = {}): string {
  const names = index.skills.map((s) => s.metadata.name);
  if (names.length === 0) return `Skill ${quoted(requested)} not found: no skills are loaded.`;
  const shown = suggestNames(
    {
      names,
      rank: (query, limit) =>
        ranker()
          .rank(query, limit)
          .map((r) => r.name),
    },
    requested,
    SUGGESTED_NAMES,
  );
  const more = names.length - shown.length;
  const search = hints.searchTool
    ? ` Or call ${hints.searchTool} with a few words about the task to search all ${names.length} skills.`
    : '';
  return (
    `Skill ${quoted(requested)} not found. Closest available skills: ` +
    `${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}.${hints.retry ? ` ${hints.retry}` : ''}${search}`
  );
}
