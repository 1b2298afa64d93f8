/**
 * find_skills: searches every skill by name, description and tags with the
 * local ranker, for libraries too large to list whole in the catalog. Never
 * throws: every failure is a message the model can act on.
 */
import { z } from 'zod';
import { TOOL_DEFAULTS } from '../config/defaults.js';
import { queryWords, tokenize, whenClauses, type QueryWord } from '../catalog/rank/tokenize.js';
import type { BodyAwareRanker } from '../catalog/rank/score.js';
import { createSkillIndex, firstOfEachName, type SkillIndex } from '../index/skill-index.js';
import { oneLine } from '../base/text.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from '../base/tool-names.js';
import type { Skill, SkillEntry } from '../base/model.js';
import { SkillRanker } from '../catalog/skill-ranker.js';
import { skillTool, type IndexSource, type SkillTool } from './skill-tool.js';
import { matchedBy } from '../meaning/hybrid-ranker.js';
import type { HostLogger } from '../base/host.js';

export { FIND_SKILLS_TOOL } from '../base/tool-names.js';
const DEFAULT_FIND_LIMIT = TOOL_DEFAULTS.findLimit;
export const MAX_FIND_LIMIT = TOOL_DEFAULTS.maxFindLimit;
const NO_SKILLS = 'No skills are loaded, so there is nothing to search.';

/**
 * Arguments of find_skills. Plain zod 3 string and optional number on purpose:
 * SISU's adapters read `_def.typeName` and know only a few types.
 */
export const FindSkillsArgsSchema = z.object({
  query: z.string().describe('A few words about the task, e.g. "fill a PDF form" or "review a pull request".'),
  limit: z.number().optional().describe(`How many skills to return (default ${DEFAULT_FIND_LIMIT}, at most ${MAX_FIND_LIMIT}).`),
});

export type FindSkillsArgs = z.infer<typeof FindSkillsArgsSchema>;

/**
 * How the handler reads the same fields, leniently: the query on one line and
 * not empty, and any limit at all (models send "5" or 2.5) as a whole number
 * in [1, MAX_FIND_LIMIT], DEFAULT_FIND_LIMIT when it is no number.
 */
const FindSkillsInput = z.object({
  query: z
    .string()
    .transform(oneLine)
    .refine((query) => query !== ''),
  limit: z.unknown().transform(limitOf),
});

function limitOf(value: unknown): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) return DEFAULT_FIND_LIMIT;
  return Math.min(MAX_FIND_LIMIT, Math.max(1, Math.floor(number)));
}

/** Where a skill's text holds a query's word, in the order a match there weighs. */
type MatchField = 'name' | 'tags' | 'description' | 'instructions';

/** A query's word as `queryWords` gives it. */
type MatchWord = Pick<QueryWord, 'word' | 'term'>;

/**
 * Why `entry` matched: each of the query's words it holds, with the first
 * field that holds it, e.g. `matched: "merge" in the name; "fill", "form" in
 * the instructions`. The model can then tell a match on the task's own
 * words from one on a passing word.
 */
export function matchReason(ranker: BodyAwareRanker, entry: SkillEntry, words: readonly MatchWord[]): string {
  const { name, description } = entry.metadata;
  const tags: unknown = entry.metadata.tags;
  const fields: Array<[MatchField, Set<string>]> = [
    ['name', new Set(tokenize(name))],
    ['tags', new Set(Array.isArray(tags) ? tokenize(tags.filter((t) => typeof t === 'string').join(' ')) : [])],
    ['description', new Set(tokenize(`${description} ${whenClauses(description)}`))],
  ];
  // Per field, the words found there, quoted as the answer shows them.
  const found = new Map<MatchField, string[]>();
  const note = (field: MatchField, shown: string): void => {
    found.set(field, [...(found.get(field) ?? []), shown]);
  };
  const rest: MatchWord[] = [];
  for (const item of words) {
    const field = fields.find(([, terms]) => terms.has(item.term))?.[0];
    if (field) note(field, JSON.stringify(item.word));
    else rest.push(item);
  }
  const inBody = new Set(
    ranker.instructionsHold(
      name,
      rest.map((item) => item.term),
    ),
  );
  for (const item of rest) if (inBody.has(item.term)) note('instructions', JSON.stringify(item.word));
  const parts = (['name', 'tags', 'description', 'instructions'] as const)
    .filter((field) => found.has(field))
    .map((field) => `${(found.get(field) ?? []).join(', ')} in the ${field}`);
  return parts.length === 0 ? '' : `matched ${parts.join('; ')}`;
}

function search(index: SkillIndex, ranker: BodyAwareRanker, query: string, limit: number): string {
  const matches = ranker.rank(query, limit);
  if (matches.length === 0) {
    return `No skills match "${query}" among ${index.skills.length}. Try other words: what the task is about, or the tool or file type involved.`;
  }
  const words = queryWords(query);
  const lines = matches.map((match) => {
    const entry = index.get(match.name);
    const reason = withMeaning(entry ? matchReason(ranker, entry, words) : '', matchedBy(match));
    return `- ${match.name}: ${oneLine(entry?.metadata.description ?? '')}${reason === '' ? '' : ` (${reason})`}`;
  });
  return [
    `Skills matching "${query}", best first, each with the words it matched and where:`,
    ...lines,
    `Call \`${USE_SKILL_TOOL}\` with the \`skill_name\` of the one that fits to get its instructions. A skill that matched only a passing word may not fit.`,
  ].join('\n');
}

/** The reason, saying how a hybrid ranking found the skill: by words, by meaning, or both. */
function withMeaning(reason: string, by: ReturnType<typeof matchedBy>): string {
  if (by === undefined) return reason;
  if (by === 'meaning') return 'matched by meaning, no shared words';
  const how = by === 'both' ? 'by words and meaning' : 'by words';
  return reason === '' ? `matched ${how}` : `${how}: ${reason}`;
}

/**
 * find_skills bound to a source of skills: a run's, in the middleware, or a
 * fixed list (createFindSkillsTool). `ranker` gives the ranker over the
 * source's skills: in the middleware, the one its Library shares with ranked
 * catalogs.
 */
export function bindFindSkillsTool(
  source: IndexSource,
  ranker: () => BodyAwareRanker,
  /** With `embeddings`: fetch the query's vector (under its deadline) before ranking; never rejects. */
  prepare?: (query: string, log?: HostLogger) => Promise<void>,
): SkillTool<typeof FindSkillsArgsSchema> {
  return skillTool({
    name: FIND_SKILLS_TOOL,
    description:
      'Search all available skills by what they do. Returns the best matches with their descriptions; ' +
      'then activate one with use_skill. Use it when no skill listed in <available_skills> fits the task.',
    schema: FindSkillsArgsSchema,
    accepts: FindSkillsInput,
    source,
    noSkills: NO_SKILLS,
    usage: () => `${FIND_SKILLS_TOOL} needs a \`query\`: a few words about the task, e.g. {"query": "review a pull request"}.`,
    async run({ query, limit }, index, ctx) {
      if (index.skills.length === 0) return NO_SKILLS;
      await prepare?.(query, ctx.log);
      const text = search(index, ranker(), query, limit);
      ctx.log?.debug('[skills] searched', { query, limit });
      return text;
    },
    failed: (reason) => `Could not search the skills: ${reason}. Try again, or continue without a skill.`,
  });
}

/** Options of createFindSkillsTool. */
export interface FindSkillsToolOptions {
  /**
   * Rank by what each skill's instructions say too (headings and first terms,
   * at less weight than the description), as the middleware does once it has
   * read them. The skills given hold their instructions, so nothing is read;
   * they are tokenised on the first search. false: name, tags and description
   * only.
   * @default true
   */
  rankInstructions?: boolean;
}

/** A find_skills tool over a fixed list of skills, for apps that wire tools by hand. */
export function createFindSkillsTool(
  skills: readonly Skill[],
  options: FindSkillsToolOptions = {},
): SkillTool<typeof FindSkillsArgsSchema> {
  // The index's skills, in its order (first of each name): their instructions rank beside them.
  const kept = firstOfEachName(skills);
  const index = createSkillIndex({ skills: kept });
  const instructions = options.rankInstructions === false ? undefined : kept.map((skill) => skill.instructions);
  const ranker = new SkillRanker(index.skills, instructions);
  return bindFindSkillsTool(
    () => index,
    () => ranker.get(),
  );
}
