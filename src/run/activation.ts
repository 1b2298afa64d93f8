/**
 * Activation strategies as pure functions: which skills to pre-activate for a
 * request, from `@` mentions, pinned `always` skills and local ranking, and
 * which ones the conversation already carries. No I/O, no logging: the
 * middleware calls these and logs what they decided.
 */
import type { SkillRoute } from '../base/skill-event.js';

/** A message as far as activation cares: only role and text content. */
export interface ActivationMessage {
  role: string;
  content: unknown;
}

// ---------------------------------------------------------------------------
// Mentions

export interface Mentions {
  /** Mentioned names that are loaded skills, in order of first mention. */
  known: string[];
  /** Mentioned names that are not, in order of first mention (log them; never fatal). */
  unknown: string[];
  /** Mentions of further names once MAX_MENTIONS distinct names were examined (each occurrence counts); absent when none. */
  ignored?: number;
}

/**
 * Most distinct `@` names examined per message. Each one is looked up (and an
 * unknown one gets suggestions), so a message of 5,000 mentions must not cost
 * 5,000 lookups; a person names a few skills at a time.
 */
export const MAX_MENTIONS = 10;

/** Longest skill name (agentskills.io): a longer `@word` cannot name a skill, and is not a mention. */
const MAX_MENTION_LENGTH = 64;

/**
 * `@name` where name uses the skill-name alphabet. The character before `@`
 * must not belong to an email's local part (so `a@b.com` is no mention), and
 * the name must not run on into other word characters (`@Override`,
 * `@code_review`), a path (`@scope/pkg`) or a dotted name (`@pytest.fixture`).
 */
// At most 64 name characters, and the lookahead rejects a following name character: a longer
// run is no mention, found after at most 64 steps of backtracking whatever its length.
const MENTION = new RegExp(`(?<![\\w.+%@-])@([a-z0-9-]{1,${MAX_MENTION_LENGTH}})(?![\\w/-]|\\.\\w)`, 'g');

/** A line that opens or closes a fenced code block. */
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;

/** `text` without its fenced code blocks: pasted code is full of `@decorators` nobody meant as mentions. */
function withoutFencedCode(text: string): string {
  const kept: string[] = [];
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line)?.[1];
    if (open === undefined) {
      if (fence !== undefined) open = fence;
      else kept.push(line);
    } else if (fence !== undefined && fence[0] === open[0] && fence.length >= open.length) {
      open = undefined;
    }
  }
  return kept.join('\n');
}

/**
 * The `@skill-name` mentions in `text`, split into loaded skills and unknown
 * names, each deduplicated in order of first mention. `knownNames` is the
 * names, or a test for one (a caller that checks every request passes its
 * index's lookup, so nothing is built per request or kept per skill). Only
 * the first MAX_MENTIONS distinct names are examined; later mentions are
 * counted in `ignored`. Names are at most 64 characters.
 */
export function findMentions(text: string, knownNames: Iterable<string> | ((name: string) => boolean)): Mentions {
  const isKnown = typeof knownNames === 'function' ? knownNames : setOf(knownNames);
  const seen = new Set<string>();
  const result: Mentions = { known: [], unknown: [] };
  let ignored = 0;
  for (const match of withoutFencedCode(text).matchAll(MENTION)) {
    // A trailing hyphen is punctuation ("ask @debug-"), not part of the name.
    const name = (match[1] ?? '').replace(/-+$/, '');
    if (name === '' || seen.has(name)) continue;
    if (seen.size === MAX_MENTIONS) {
      ignored++;
      continue;
    }
    seen.add(name);
    (isKnown(name) ? result.known : result.unknown).push(name);
  }
  if (ignored > 0) result.ignored = ignored;
  return result;
}

/**
 * The arguments of a mention that opens the message: `@deploy-staging eu-west
 * --dry-run` gives `deploy-staging` the rest of the message, as a slash
 * command gets what follows it. A mention anywhere else ("then ask
 * @code-review about it") activates its skill without arguments: the rest
 * of a sentence is not meant for the skill. Undefined when the message does
 * not open with a mention or nothing follows it.
 */
export function leadingMention(text: string): { name: string; arguments: string } | undefined {
  const match = /^\s*@([a-z0-9-]{1,64})(?![\w/-]|\.\w)[ \t]*(?:\r?\n)?([\s\S]*)$/.exec(text);
  const name = match?.[1]?.replace(/-+$/, '');
  const rest = match?.[2]?.trim() ?? '';
  return name && rest !== '' ? { name, arguments: rest } : undefined;
}

function setOf(names: Iterable<string>): (name: string) => boolean {
  const set = names instanceof Set ? (names as ReadonlySet<string>) : new Set(names);
  return (name) => set.has(name);
}

// ---------------------------------------------------------------------------
// Selection

export interface RankedSkill {
  name: string;
  /** Relevance, normalised to 0..1. */
  score: number;
}

export interface AutoActivation {
  /** The text to rank skills against: the latest user message. */
  query: string;
  /** Lowest score (0..1) that activates a skill. */
  threshold: number;
  /** Most skills the ranker may pick per request (already active ones count). */
  maxSkills: number;
  /** Local ranker, e.g. catalog/rank's BM25, best first or not: selection sorts by score. */
  rank: (query: string) => readonly RankedSkill[];
}

export interface SelectionInput {
  /** Known `@` mentions, in order (findMentions(...).known). */
  mentions: readonly string[];
  /** The `always` option: skills every request starts with. */
  always: readonly string[];
  /** Ranking-based activation; leave out when autoActivate is off. */
  auto?: AutoActivation;
  /** Skills the conversation already holds (alreadyActivated, plus this run's activations). */
  alreadyActive: Iterable<string>;
  /**
   * Arguments given with a mention (leadingMention). A mention with arguments
   * is activated even when the skill is already active: the new arguments
   * must reach the model.
   */
  mentionArguments?: { name: string; arguments: string } | undefined;
}

export interface Activation {
  name: string;
  route: Exclude<SkillRoute, 'model' | 'kept-in-view'>;
  /** The ranker's score, for `auto` activations. */
  score?: number;
  /** The arguments given with a mention. */
  arguments?: string;
}

/**
 * What to pre-activate, in injection order: mentions (the user asked), then
 * `always`, then ranked skills. A skill appears once, under the first route
 * that picked it, and never when it is already active.
 */
export function selectActivations(input: SelectionInput): Activation[] {
  const taken = new Set(input.alreadyActive);
  const selected: Activation[] = [];
  const given = input.mentionArguments;
  if (given !== undefined && input.mentions.includes(given.name)) {
    taken.add(given.name);
    selected.push({ name: given.name, route: 'mention', arguments: given.arguments });
  }
  const add = (activation: Activation): void => {
    if (taken.has(activation.name)) return;
    taken.add(activation.name);
    selected.push(activation);
  };
  for (const name of input.mentions) add({ name, route: 'mention' });
  for (const name of input.always) add({ name, route: 'always' });
  if (input.auto) {
    for (const { name, score } of pickRanked(input.auto)) add({ name, route: 'auto', score });
  }
  return selected;
}

/**
 * The top `maxSkills` ranked skills at or above the threshold, best first.
 * Skills hidden from the model (`disable-model-invocation`) never come up:
 * the caller ranks only the skills the model may see.
 */
function pickRanked(auto: AutoActivation): RankedSkill[] {
  if (auto.maxSkills <= 0 || auto.query.trim() === '') return [];
  const eligible: RankedSkill[] = [];
  const seen = new Set<string>();
  for (const { name, score } of auto.rank(auto.query)) {
    if (seen.has(name) || !Number.isFinite(score) || score < auto.threshold) continue;
    seen.add(name);
    eligible.push({ name, score });
  }
  // Stable sort: equal scores keep the ranker's order.
  return eligible.sort((a, b) => b.score - a.score).slice(0, auto.maxSkills);
}
