/**
 * The system-prompt section that lists the skills, laid out within a
 * character budget: every description whole, the longest cut, names only,
 * or the skills ranked for the request first and as many other names as fit.
 * Pure: entries and options in, text and a report out, the same text for the
 * same input (no clocks, no Map order), so provider prompt caches keep hitting.
 * Each name and description is cleaned by catalog-text.ts; system-prompt.ts
 * puts the section into a message list exactly once.
 */
import { positionLookup } from '../base/name-lookup.js';
import { DEFAULTS } from '../config/defaults.js';
import { createRanker, type BodyAwareRanker, type Ranker } from './rank/score.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from '../base/tool-names.js';
import type { SkillEntry } from '../base/model.js';
import { catalogText, shorten } from './catalog-text.js';
import { CATALOG_CLOSE, CATALOG_OPEN } from './system-prompt.js';

/** Descriptions are never cut below this many characters; past that, names only. */
export const MIN_DESCRIPTION_CHARS = 80;

/** In ranked mode, how many of the best matches keep a (shortened) description. */
export const RANKED_WITH_DESCRIPTION = 20;

/**
 * In ranked mode, how many of the best matches are listed before other
 * names (past RANKED_WITH_DESCRIPTION, by name only): a weak match is a
 * better guess than a name taken in catalog order.
 */
export const RANKED_LISTED = 250;

export interface CatalogEntry {
  readonly name: string;
  /** As written; the catalog puts it on one line (whitespace collapsed) where it lists it. */
  readonly description: string;
  readonly tags?: readonly string[];
}

/**
 * The catalog's view of an index, and what every ranker over skills ranks
 * (SkillRanker, one per Library), so a ranked catalog and find_skills agree: each skill's
 * metadata itself when its tags are absent or all strings (as validated
 * metadata always is), else a copy with the string tags only. No copies of
 * descriptions: an index lives for the whole process, and a copy per skill
 * adds up at 20,000 skills.
 */
export function catalogEntries(skills: readonly SkillEntry[]): CatalogEntry[] {
  return skills.map(({ metadata }) => {
    const tags: unknown = metadata.tags;
    if (tags === undefined || (Array.isArray(tags) && tags.every(isString))) return metadata;
    // Tags help ranking only; anything but a string in a list is ignored.
    const strings = Array.isArray(tags) ? tags.filter(isString) : [];
    return strings.length > 0
      ? { name: metadata.name, description: metadata.description, tags: strings }
      : { name: metadata.name, description: metadata.description };
  });
}

const isString = (value: unknown): value is string => typeof value === 'string';

export type CatalogMode = 'full' | 'shortened' | 'names' | 'ranked' | 'none';

export interface CatalogReport {
  /**
   * full: every skill with its whole description. shortened: every skill, the
   * longest descriptions cut. names: every skill, names only. ranked: the
   * skills most relevant to the query first, then as many other names as fit
   * (none at all when even one name does not fit: the section then only says
   * how many skills there are). none: no skills, or the budget cannot hold
   * even the smallest section; `text` is ''.
   */
  mode: CatalogMode;
  /** Characters of `text`; never more than `budget`. */
  length: number;
  budget: number;
  /** Names listed, in the order they appear. */
  included: string[];
  /** Names whose description was cut (shortened and ranked modes). */
  shortened: string[];
  /** In ranked mode, the names listed because they matched the query, best first; they come first in `included`. */
  ranked: string[];
  /** Skills not listed at all. */
  omitted: number;
}

export interface CatalogResult {
  text: string;
  report: CatalogReport;
}

export interface CatalogOptions {
  /** Most characters the section may take. Default 8000. */
  budget?: number;
  /** The request to rank by in ranked mode (usually the latest user message). */
  query?: string;
  /** A ranker built over the same entries; built on the spot when missing (slower). */
  ranker?: Ranker;
  /** The tool that activates a skill. Default `use_skill`. */
  toolName?: string;
  /**
   * The search tool, named when the section lists names only or leaves skills
   * out. Default `find_skills`. `null` when no search tool is registered: the
   * section then names none and only says how many skills it leaves out.
   */
  findToolName?: string | null;
  /**
   * In ranked mode, how many of the best matches are listed before other
   * names (the first 20 with their description). Default 250, about what the
   * default budget holds: measured by scripts/body-rank-experiment.mjs.
   */
  rankedListed?: number;
}

/** Options with their defaults applied; `findToolName` is undefined when there is no search tool. */
interface Settings {
  budget: number;
  toolName: string;
  findToolName: string | undefined;
  rankedListed: number;
}

function settingsOf(options: Omit<CatalogOptions, 'query' | 'ranker'>): Settings {
  const { budget, toolName, findToolName, rankedListed } = options;
  return {
    budget: budget === undefined || Number.isNaN(budget) ? DEFAULTS.catalogBudget : Math.max(0, Math.floor(budget)),
    toolName: toolName ?? USE_SKILL_TOOL,
    findToolName: findToolName === null ? undefined : (findToolName ?? FIND_SKILLS_TOOL),
    rankedListed: rankedListed === undefined || Number.isNaN(rankedListed) ? RANKED_LISTED : Math.max(0, Math.floor(rankedListed)),
  };
}

const INTRO = 'Skills are folders of instructions for specific tasks.';

const thereAre = (n: number): string => (n === 1 ? 'There is 1' : `There are ${n}`);

const skillsAre = (n: number): string => (n === 1 ? '1 skill is' : `${n} skills are`);

function useLine(toolName: string): string {
  return (
    `When a task matches a skill, call the \`${toolName}\` tool with its \`skill_name\` before you start, ` +
    `then follow the instructions it returns. Call it once per skill; do not guess what a skill says.`
  );
}

/** The header of a section listing every skill: whole or shortened descriptions, or names only. */
function fixedHead(mode: 'full' | 'names', total: number, findToolName: string | undefined): string {
  if (mode === 'full') return `${INTRO} Each line below is a skill name and when to use it.`;
  const search =
    findToolName === undefined ? '' : ` Call \`${findToolName}\` with a few words about the task to see which skills fit and what they do.`;
  return `${INTRO} ${thereAre(total)}; each line below is a skill name.${search}`;
}

/** The header of a ranked section, saying exactly what follows it: how many lines, and whether the first ones matched the request. */
function rankedHead(total: number, listed: number, ranked: number): string {
  const head = `${INTRO} ${thereAre(total)}; ${listed} ${listed === 1 ? 'is' : 'are'} listed below`;
  if (ranked === 0) return `${head} by name.`;
  if (ranked === listed) return `${head}, the most relevant to this request first.`;
  return `${head}: first the ${ranked === 1 ? 'one' : ranked} most relevant to this request, then others by name.`;
}

/** The last line of a ranked section that leaves skills out. */
function trailer(omitted: number, total: number, findToolName: string | undefined): string {
  const search = findToolName === undefined ? '' : ` Call \`${findToolName}\` with a few words about the task to search all ${total}.`;
  return `${omitted} more ${omitted === 1 ? 'skill is' : 'skills are'} not listed here.${search}`;
}

const line = (name: string, description: string): string => (description === '' ? `- ${name}` : `- ${name}: ${description}`);

const nameLine = (name: string): string => `- ${name}`;

/** Total characters of entry lines (each plus its '\n') when descriptions are capped at `cap`. */
function linesLength(names: readonly string[], descriptions: readonly string[], cap: number): number {
  let total = 0;
  for (const [i, name] of names.entries()) total += line(name, shorten(descriptions[i] ?? '', cap)).length + 1;
  return total;
}

/** Characters of `lines` joined by '\n'. */
function joinedLength(lines: readonly string[]): number {
  return lines.reduce((sum, text) => sum + text.length + 1, 0) - 1;
}

function result(text: string, budget: number, fields: Omit<CatalogReport, 'length' | 'budget'>): CatalogResult {
  return { text, report: { ...fields, length: text.length, budget } };
}

/**
 * The catalog section within `budget` characters. Tries, in order: every
 * description whole; the longest descriptions cut (one common cap, as high as
 * fits, never under MIN_DESCRIPTION_CHARS); names only; the skills ranked
 * for `query`, then as many other names as fit, then how many are not listed
 * (and that the search tool searches them all, when there is one); and
 * finally a section that only says how many skills there are. Every header
 * line describes the lines that actually follow it.
 */
export function buildCatalog(entries: readonly CatalogEntry[], options: CatalogOptions = {}): CatalogResult {
  const settings = settingsOf(options);
  return renderFixed(entries, settings) ?? renderRanked(rankedContext(entries, settings), options.query?.trim() ?? '', options.ranker);
}

/** The section when every skill fits (whole, shortened or by name), or undefined when ranked mode is needed. */
function renderFixed(entries: readonly CatalogEntry[], settings: Settings): CatalogResult | undefined {
  const { budget, toolName, findToolName } = settings;
  const total = entries.length;
  if (total === 0) return result('', budget, { mode: 'none', included: [], shortened: [], ranked: [], omitted: 0 });
  // Every fixed mode lists every skill, each on a line of at least "- " and its newline: past that, none fits,
  // and a large library is not rewritten name by name to learn it (7 ms at 20,000 skills).
  if (total * (nameLine('').length + 1) > budget) return undefined;
  // One-line, escaped forms for this build only; nothing keeps them (see catalogEntries).
  const names = entries.map((entry) => catalogText(entry.name));
  const included = entries.map((entry) => entry.name);
  const tail = [useLine(toolName), CATALOG_CLOSE];
  const wide = [CATALOG_OPEN, fixedHead('full', total, findToolName)];
  const frame = joinedLength([...wide, ...tail]);
  const fits = (frameLength: number, body: number): boolean => frameLength + body <= budget;
  const bare = [CATALOG_OPEN, fixedHead('names', total, findToolName)];
  const namesLength = names.reduce((sum, name) => sum + nameLine(name).length + 1, 0);
  const namesFit = fits(joinedLength([...bare, ...tail]), namesLength);
  // A line with a description is never shorter than the name alone: when the names do not fit
  // under the full section's head, no description does, and large libraries (ranked mode) skip
  // rewriting and measuring every description.
  if (!namesFit && !fits(frame, namesLength)) return undefined;
  const descriptions = entries.map((entry) => catalogText(entry.description));

  const longest = descriptions.reduce((max, description) => Math.max(max, description.length), 0);
  if (fits(frame, linesLength(names, descriptions, longest))) {
    const text = [...wide, ...names.map((name, i) => line(name, descriptions[i] ?? '')), ...tail].join('\n');
    return result(text, budget, { mode: 'full', included, shortened: [], ranked: [], omitted: 0 });
  }

  if (longest > MIN_DESCRIPTION_CHARS && fits(frame, linesLength(names, descriptions, MIN_DESCRIPTION_CHARS))) {
    // The highest common cap that fits: cuts the longest descriptions first and only as far as needed.
    let low = MIN_DESCRIPTION_CHARS;
    let high = longest - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(frame, linesLength(names, descriptions, mid))) low = mid;
      else high = mid - 1;
    }
    const shortened: string[] = [];
    const lines = names.map((name, i) => {
      const whole = descriptions[i] ?? '';
      const description = shorten(whole, low);
      if (description !== whole) shortened.push(included[i] ?? name);
      return line(name, description);
    });
    const text = [...wide, ...lines, ...tail].join('\n');
    return result(text, budget, { mode: 'shortened', included, shortened, ranked: [], omitted: 0 });
  }

  if (namesFit) {
    const text = [...bare, ...names.map(nameLine), ...tail].join('\n');
    return result(text, budget, { mode: 'names', included, shortened: [], ranked: [], omitted: 0 });
  }
  return undefined;
}

/** What ranked mode needs besides the query, worked out once per catalog. */
interface RankedContext {
  entries: readonly CatalogEntry[];
  /** The position of the first entry of a name, or -1. */
  positionOf: (name: string) => number;
  /** Whether no two entries share a name (worked out on the first ranked render): then a ranker's positions are the catalog's. */
  unique?: boolean;
  settings: Settings;
  /**
   * Characters of the section before any skill line, with the longest header
   * and trailer its counts could give: filling against this keeps the final
   * section, whose header and trailer are written after, within the budget.
   */
  reserved: number;
}

function rankedContext(entries: readonly CatalogEntry[], settings: Settings, nameOrder?: Int32Array): RankedContext {
  const total = entries.length;
  // Ranked lines are at most RANKED_LISTED, so their count has one to three digits, or reads "one".
  const head = Math.max(...[0, 1, 10, 100, total].map((ranked) => rankedHead(total, total, Math.min(ranked, total)).length));
  const reserved = joinedLength([
    CATALOG_OPEN,
    'x'.repeat(head),
    trailer(total, total, settings.findToolName),
    useLine(settings.toolName),
    CATALOG_CLOSE,
  ]);
  // First wins, like the index; a sorted lookup rather than a Map, which costs ~40 bytes a skill for as long as the index lives.
  const positionOf = positionLookup(total, (position) => (entries[position] as CatalogEntry).name, nameOrder);
  return { entries, positionOf, settings, reserved };
}

/** The lines of a ranked section: the query's matches first, best first, then other names in catalog order. */
interface RankedLines {
  lines: string[];
  included: string[];
  shortened: string[];
  ranked: string[];
}

function renderRanked(context: RankedContext, query: string, ranker: Ranker | undefined): CatalogResult {
  const { entries, settings } = context;
  const total = entries.length;
  if (context.reserved > settings.budget) return compact(total, settings);
  const { lines, included, shortened, ranked } = fillRanked(context, query, ranker);
  if (included.length === 0) return compact(total, settings);
  const omitted = total - included.length;
  const body = omitted > 0 ? [...lines, trailer(omitted, total, settings.findToolName)] : lines;
  const text = [CATALOG_OPEN, rankedHead(total, included.length, ranked.length), ...body, useLine(settings.toolName), CATALOG_CLOSE].join(
    '\n',
  );
  return result(text, settings.budget, { mode: 'ranked', included, shortened, ranked, omitted });
}

/**
 * As many lines as fit after `context.reserved`. The listed skills are a
 * prefix of (matches by rank, then the rest in catalog order): a match whose
 * description does not fit is listed by name, and when even a name does not
 * fit, listing stops, so nothing less relevant is ever listed above it.
 */
function fillRanked(context: RankedContext, query: string, ranker: Ranker | undefined): RankedLines {
  const { entries, settings } = context;
  const out: RankedLines = { lines: [], included: [], shortened: [], ranked: [] };
  const matches = query === '' ? [] : rankedPositions(context, query, ranker ?? createRanker(entries));
  // By position; and by name too unless names are known to be unique: each name once, as its first entry.
  const listed = new Uint8Array(entries.length);
  const listedNames = context.unique === true ? undefined : new Set<string>();
  let used = context.reserved;
  const add = (text: string, position: number): boolean => {
    if (used + text.length + 1 > settings.budget) return false;
    used += text.length + 1;
    const { name } = entries[position] as CatalogEntry;
    out.lines.push(text);
    out.included.push(name);
    listed[position] = 1;
    listedNames?.add(name);
    return true;
  };
  for (const position of matches) {
    if (position === -1 || listed[position] === 1) continue;
    const entry = entries[position] as CatalogEntry;
    const name = catalogText(entry.name);
    // Past the first RANKED_WITH_DESCRIPTION, names only: their descriptions are not even rewritten.
    const whole = out.ranked.length < RANKED_WITH_DESCRIPTION ? catalogText(entry.description) : entry.description;
    const description = out.ranked.length < RANKED_WITH_DESCRIPTION ? shorten(whole, MIN_DESCRIPTION_CHARS) : '';
    if (add(line(name, description), position)) {
      if (description !== whole) out.shortened.push(entry.name);
    } else if (add(nameLine(name), position)) {
      if (whole !== '') out.shortened.push(entry.name);
    } else {
      return out;
    }
    out.ranked.push(entry.name);
  }
  // Then other names in catalog order, so this part changes little between requests.
  for (let position = 0; position < entries.length; position++) {
    if (listed[position] === 1) continue;
    const entry = entries[position] as CatalogEntry;
    if (listedNames?.has(entry.name) === true) continue;
    if (!add(nameLine(catalogText(entry.name)), position)) break;
  }
  return out;
}

/**
 * The positions of the query's matches, best first (-1 for a name no entry
 * has): a ranker over these entries gives them with its answer (rankDocs);
 * names are looked up otherwise (a ranker fusing meaning in, one a caller
 * made), or when two entries share a name.
 */
function rankedPositions(context: RankedContext, query: string, ranker: Ranker): number[] {
  const { entries, settings } = context;
  context.unique ??= new Set(entries.map((entry) => entry.name)).size === entries.length;
  const byDoc = (ranker as Partial<BodyAwareRanker>).rankDocs;
  if (!byDoc || !context.unique || ranker.size !== entries.length) {
    return ranker.rank(query, settings.rankedListed).map((match) => context.positionOf(match.name));
  }
  return byDoc
    .call(ranker, query, settings.rankedListed)
    .map(({ doc, name }) => (entries[doc]?.name === name ? doc : context.positionOf(name)));
}

/** The smallest sections, largest first: how many skills there are and, when there is one, the tool that searches them. */
function compact(total: number, settings: Settings): CatalogResult {
  const { budget, toolName, findToolName } = settings;
  const search = findToolName === undefined ? '' : ` Call \`${findToolName}\` with a few words about the task to find the ones that fit.`;
  const candidates = [
    [CATALOG_OPEN, `${INTRO} ${thereAre(total)}, not listed here for lack of room.${search}`, useLine(toolName), CATALOG_CLOSE],
    [
      CATALOG_OPEN,
      `${skillsAre(total)} not listed here.${findToolName === undefined ? '' : ` Call \`${findToolName}\` to search them.`}`,
      CATALOG_CLOSE,
    ],
    [CATALOG_OPEN, `${skillsAre(total)} not listed here.`, CATALOG_CLOSE],
  ];
  const fields = { included: [], shortened: [], ranked: [], omitted: total };
  const fitting = candidates.find((lines) => joinedLength(lines) <= budget);
  if (fitting) return result(fitting.join('\n'), budget, { mode: 'ranked', ...fields });
  return result('', budget, { mode: 'none', ...fields });
}

export interface Catalog {
  /** The section for a request; the same object for every request unless the mode is ranked. */
  render(query?: string): CatalogResult;
  /**
   * Whether the section hides something a search would show (descriptions,
   * or whole skills), for every query alike. The middleware registers
   * `find_skills` by default exactly when this is true; with `findToolName:
   * null` the section never names it either way.
   */
  readonly needsSearch: boolean;
}

/** Whether a catalog of `total` skills in `mode` hides descriptions or skills. */
export function catalogNeedsSearch(mode: CatalogMode, total: number): boolean {
  return total > 0 && mode !== 'full' && mode !== 'shortened';
}

export interface CreateCatalogOptions extends Omit<CatalogOptions, 'query' | 'ranker'> {
  /** A ranker over the same entries, or a function giving one: called only if requests are ranked. */
  ranker?: Ranker | (() => Ranker);
  /**
   * The entries' positions sorted by name (a prebuilt index stores them), so a
   * ranked catalog does not sort the names itself; checked, and not used when wrong.
   */
  nameOrder?: Int32Array;
  /**
   * True when no two entries share a name (an index's: it keeps the first of
   * each, src/index/skill-index.ts), so ranked mode does not find it out with
   * a set of every name (two of them, some 3 ms and their garbage at 20,000
   * skills). Wrong when true for entries that share a name: leave it out then.
   */
  uniqueNames?: boolean;
}

/**
 * buildCatalog prepared once per index: the query-independent section is
 * rendered once and reused, and ranked mode builds its ranker once and keeps
 * the last query's result (a rerun on the same conversation ranks nothing).
 */
export function createCatalog(entries: readonly CatalogEntry[], options: CreateCatalogOptions = {}): Catalog {
  const { ranker: given, nameOrder, uniqueNames, ...rest } = options;
  const settings = settingsOf(rest);
  const needsSearch = (mode: CatalogMode): boolean => catalogNeedsSearch(mode, entries.length);
  const fixed = renderFixed(entries, settings);
  if (fixed) return { render: () => fixed, needsSearch: needsSearch(fixed.report.mode) };
  const context = rankedContext(entries, settings, nameOrder);
  if (uniqueNames === true) context.unique = true;
  const unranked = renderRanked(context, '', undefined);
  const mode = unranked.report.mode;
  if (mode === 'none') return { render: () => unranked, needsSearch: needsSearch(mode) };
  let ranker = typeof given === 'function' ? undefined : given;
  let last: { query: string; version: number; result: CatalogResult } | undefined;
  return {
    needsSearch: needsSearch(mode),
    render(query = '') {
      const trimmed = query.trim();
      if (trimmed === '') return unranked;
      ranker ??= typeof given === 'function' ? given() : createRanker(entries);
      // A ranker that started reading the instructions ranks anew (src/catalog/body-indexer.ts).
      const version = (ranker as Partial<BodyAwareRanker>).version ?? 0;
      if (last && last.query === trimmed && last.version === version) return last.result;
      const rendered = renderRanked(context, trimmed, ranker);
      last = { query: trimmed, version, result: rendered };
      return rendered;
    },
  };
}
