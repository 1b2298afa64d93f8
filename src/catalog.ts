/**
 * The system-prompt section that lists the skills, within a character budget.
 * Pure: entries and options in, text and a report out, the same text for the
 * same input (no clocks, no Map order), so provider prompt caches keep hitting.
 * withCatalog puts that text into a message list exactly once.
 */
import { nameLookup } from './name-lookup.js';
import { createRanker, type Ranker } from './rank.js';
import { oneLine } from './text.js';
import type { HostMessage, SkillEntry } from './types.js';

/** Opening and closing tags of the section; used to find it again on a rerun. */
export const CATALOG_OPEN = '<available_skills>';
export const CATALOG_CLOSE = '</available_skills>';

/** About 1% of a 200k-token context, as other agent hosts budget their skill lists. */
export const DEFAULT_CATALOG_BUDGET = 8000;
/** Descriptions are never cut below this many characters; past that, names only. */
export const MIN_DESCRIPTION_CHARS = 80;
/** In ranked mode, how many of the best matches keep a (shortened) description. */
const RANKED_WITH_DESCRIPTION = 20;
const ELLIPSIS = '…';

export interface CatalogEntry {
  readonly name: string;
  /** As written; the catalog puts it on one line (whitespace collapsed) where it lists it. */
  readonly description: string;
  readonly tags?: readonly string[];
}

/**
 * The catalog's view of an index: each skill's metadata itself when its tags
 * are absent or all strings (as validated metadata always is), else a copy
 * with the string tags only. No copies of descriptions: an index lives for
 * the whole process, and a copy per skill adds up at 20,000 skills.
 */
export function catalogEntries(skills: readonly SkillEntry[]): CatalogEntry[] {
  return skills.map(({ metadata }) => {
    const tags: unknown = metadata.tags;
    if (tags === undefined || (Array.isArray(tags) && tags.every((tag) => typeof tag === 'string'))) return metadata;
    const strings = Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
    // Tags help ranking only; anything but a list of strings is ignored.
    return strings.length > 0 ? { name: metadata.name, description: metadata.description, tags: strings } : { name: metadata.name, description: metadata.description };
  });
}

/**
 * `description` on one line, exactly as oneLine gives it, but the same string
 * when it already is one line, and a trim (which shares characters) when only
 * the ends need it: a folded `>` description ends in a newline.
 */
function catalogLine(description: string): string {
  if (!/\s\s|[^\S ]|^\s|\s$/.test(description)) return description;
  const trimmed = description.trim();
  return /\s\s|[^\S ]/.test(trimmed) ? oneLine(description) : trimmed;
}

export type CatalogMode = 'full' | 'shortened' | 'names' | 'ranked' | 'none';

export interface CatalogReport {
  /**
   * full: every skill with its whole description. shortened: every skill, the
   * longest descriptions cut. names: every skill, names only. ranked: the
   * skills most relevant to the query, then as many other names as fit.
   * none: the budget cannot hold even the section's frame; `text` is ''.
   */
  mode: CatalogMode;
  /** Characters of `text`; never more than `budget`. */
  length: number;
  budget: number;
  /** Names listed, in the order they appear. */
  included: string[];
  /** Names whose description was cut (shortened and ranked modes). */
  shortened: string[];
  /** In ranked mode, the names listed because they matched the query, best first. */
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
  /** Default `use_skill`. */
  toolName?: string;
  /** The search tool named once the list is incomplete. Default `find_skills`. */
  findToolName?: string;
}

function budgetOf(value: number | undefined): number {
  if (value === undefined || Number.isNaN(value)) return DEFAULT_CATALOG_BUDGET;
  return Math.max(0, Math.floor(value));
}

interface Frame {
  head: string[];
  tail: string[];
}

function frameFor(mode: CatalogMode, toolName: string, findToolName: string, total: number, hasMatches = false): Frame {
  const head = [CATALOG_OPEN];
  if (mode === 'full' || mode === 'shortened') {
    head.push('Skills are folders of instructions for specific tasks. Each line below is a skill name and when to use it.');
  } else if (mode === 'names') {
    head.push(
      `Skills are folders of instructions for specific tasks. There are ${total}; each line below is a skill name. Call \`${findToolName}\` with a few words about the task to see which skills fit and what they do.`,
    );
  } else if (hasMatches) {
    head.push(
      `Skills are folders of instructions for specific tasks. There are ${total}; first those most relevant to this request, with what they do, then other skill names.`,
    );
  } else {
    head.push(`Skills are folders of instructions for specific tasks. There are ${total}; the first ones are listed below by name.`);
  }
  const use = `When a task matches a skill, call the \`${toolName}\` tool with its \`skill_name\` before you start, then follow the instructions it returns. Call it once per skill; do not guess what a skill says.`;
  return { head, tail: [use, CATALOG_CLOSE] };
}

/** Characters of the frame's lines when joined with the entry lines by '\n'. */
function frameLength(frame: Frame): number {
  return [...frame.head, ...frame.tail].reduce((sum, line) => sum + line.length + 1, 0) - 1;
}

/**
 * `text` cut to at most `max` characters (ellipsis included), at the last
 * word boundary when there is one in the second half, else mid-word.
 */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= ELLIPSIS.length) return ELLIPSIS.slice(0, Math.max(0, max));
  const room = max - ELLIPSIS.length;
  const space = text.lastIndexOf(' ', room);
  const cut = space >= room / 2 ? space : room;
  return `${text.slice(0, cut).replace(/[\s,;:.\-–—]+$/u, '')}${ELLIPSIS}`;
}

const line = (name: string, description: string): string => `- ${name}: ${description}`;
const nameLine = (name: string): string => `- ${name}`;

/** Total characters of entry lines (each plus its '\n') when descriptions are capped at `cap`. */
function linesLength(names: readonly string[], descriptions: readonly string[], cap: number): number {
  let total = 0;
  for (const [i, name] of names.entries()) total += line(name, shorten(descriptions[i] ?? '', cap)).length + 1;
  return total;
}

function result(text: string, budget: number, fields: Omit<CatalogReport, 'length' | 'budget'>): CatalogResult {
  return { text, report: { ...fields, length: text.length, budget } };
}

/**
 * The catalog section within `budget` characters. Tries, in order: every
 * description whole; the longest descriptions cut (one common cap, as high as
 * fits, never under MIN_DESCRIPTION_CHARS); names only; the skills ranked
 * for `query` plus as many other names as fit, ending with a line that says
 * how many are not listed and that `find_skills` searches them all.
 */
export function buildCatalog(entries: readonly CatalogEntry[], options: CatalogOptions = {}): CatalogResult {
  const budget = budgetOf(options.budget);
  const toolName = options.toolName ?? 'use_skill';
  const findToolName = options.findToolName ?? 'find_skills';
  const total = entries.length;
  const names = entries.map((entry) => entry.name);
  const fits = (frame: Frame, body: number): boolean => frameLength(frame) + body <= budget;

  const wide = frameFor('full', toolName, findToolName, total);
  // One-line forms for this build only; nothing keeps them (see catalogEntries).
  const descriptions = entries.map((entry) => catalogLine(entry.description));
  const longest = descriptions.reduce((max, description) => Math.max(max, description.length), 0);
  if (fits(wide, linesLength(names, descriptions, longest))) {
    const text = [...wide.head, ...names.map((name, i) => line(name, descriptions[i] ?? '')), ...wide.tail].join('\n');
    return result(text, budget, { mode: 'full', included: names, shortened: [], ranked: [], omitted: 0 });
  }

  if (longest > MIN_DESCRIPTION_CHARS && fits(wide, linesLength(names, descriptions, MIN_DESCRIPTION_CHARS))) {
    // The highest common cap that fits: cuts the longest descriptions first and only as far as needed.
    let low = MIN_DESCRIPTION_CHARS;
    let high = longest - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(wide, linesLength(names, descriptions, mid))) low = mid;
      else high = mid - 1;
    }
    const shortened: string[] = [];
    const lines = names.map((name, i) => {
      const whole = descriptions[i] ?? '';
      const description = shorten(whole, low);
      if (description !== whole) shortened.push(name);
      return line(name, description);
    });
    const text = [...wide.head, ...lines, ...wide.tail].join('\n');
    return result(text, budget, { mode: 'shortened', included: names, shortened, ranked: [], omitted: 0 });
  }

  const bare = frameFor('names', toolName, findToolName, total);
  const namesLength = names.reduce((sum, name) => sum + nameLine(name).length + 1, 0);
  if (fits(bare, namesLength)) {
    const text = [...bare.head, ...names.map(nameLine), ...bare.tail].join('\n');
    return result(text, budget, { mode: 'names', included: names, shortened: [], ranked: [], omitted: 0 });
  }

  return renderRanked(rankedContext(entries, { budget, toolName, findToolName }), options.query?.trim() ?? '', options.ranker);
}

interface RankedContext {
  entries: readonly CatalogEntry[];
  byName: (name: string) => CatalogEntry | undefined;
  budget: number;
  toolName: string;
  findToolName: string;
}

function rankedContext(entries: readonly CatalogEntry[], settings: Omit<RankedContext, 'entries' | 'byName'>): RankedContext {
  // First wins, like the index; a sorted lookup rather than a Map, which costs ~40 bytes a skill for as long as the index lives.
  return { entries, byName: nameLookup(entries, (entry) => entry.name), ...settings };
}

function renderRanked(context: RankedContext, query: string, ranker: Ranker | undefined): CatalogResult {
  const { entries, byName, budget, toolName, findToolName } = context;
  const total = entries.length;
  const matches = query === '' ? [] : (ranker ?? createRanker(entries)).rank(query, RANKED_WITH_DESCRIPTION).filter((r) => byName(r.name) !== undefined);
  const frame = frameFor('ranked', toolName, findToolName, total, matches.length > 0);

  // The trailer's digits can only shrink as more skills are listed, so reserving the widest is safe.
  const trailer = (listed: number): string =>
    `${total - listed} more skills are not listed here. Call \`${findToolName}\` with a few words about the task to search all ${total}.`;
  let used = frameLength(frame) + 1 + trailer(0).length;
  if (used > budget) return compact(entries, budget, findToolName);

  const lines: string[] = [];
  const included: string[] = [];
  const shortened: string[] = [];
  const ranked: string[] = [];
  const listed = new Set<string>();
  for (const match of matches) {
    const entry = byName(match.name);
    if (!entry || listed.has(entry.name)) continue;
    const whole = catalogLine(entry.description);
    const description = shorten(whole, MIN_DESCRIPTION_CHARS);
    const text = line(entry.name, description);
    if (used + text.length + 1 > budget) break;
    used += text.length + 1;
    lines.push(text);
    included.push(entry.name);
    ranked.push(entry.name);
    listed.add(entry.name);
    if (description !== whole) shortened.push(entry.name);
  }
  // Then other names in catalog order, so this part changes little between requests.
  for (const entry of entries) {
    if (listed.has(entry.name)) continue;
    const text = nameLine(entry.name);
    if (used + text.length + 1 > budget) break;
    used += text.length + 1;
    lines.push(text);
    included.push(entry.name);
    listed.add(entry.name);
  }
  const omitted = total - included.length;
  const body = omitted > 0 ? [...lines, trailer(included.length)] : lines;
  const text = [...frame.head, ...body, ...frame.tail].join('\n');
  return result(text, budget, { mode: 'ranked', included, shortened, ranked, omitted });
}

/** The smallest section that still points at the search tool; '' when even that does not fit. */
function compact(entries: readonly CatalogEntry[], budget: number, findToolName: string): CatalogResult {
  const text = [CATALOG_OPEN, `${entries.length} skills are available. Call \`${findToolName}\` to search them.`, CATALOG_CLOSE].join('\n');
  const fields = { included: [], shortened: [], ranked: [], omitted: entries.length };
  if (text.length <= budget) return result(text, budget, { mode: 'ranked', ...fields });
  return result('', budget, { mode: 'none', ...fields });
}

export interface Catalog {
  /** The section for a request; the same object for every request unless the mode is ranked. */
  render(query?: string): CatalogResult;
  /** The mode when no query is given: whether requests will be ranked (and find_skills is needed). */
  readonly mode: CatalogMode;
}

/**
 * buildCatalog prepared once per index: the query-independent section is
 * rendered once and reused, and ranked mode builds its ranker once and keeps
 * the last query's result (a rerun on the same conversation ranks nothing).
 */
export interface CreateCatalogOptions extends Omit<CatalogOptions, 'query' | 'ranker'> {
  /** A ranker over the same entries, or a function giving one: called only if requests are ranked. */
  ranker?: Ranker | (() => Ranker);
}

export function createCatalog(entries: readonly CatalogEntry[], options: CreateCatalogOptions = {}): Catalog {
  const { ranker: given, ...rest } = options;
  const fixed = buildCatalog(entries, { ...rest, query: '' });
  if (fixed.report.mode !== 'ranked') return { render: () => fixed, mode: fixed.report.mode };
  const context = rankedContext(entries, {
    budget: budgetOf(options.budget),
    toolName: options.toolName ?? 'use_skill',
    findToolName: options.findToolName ?? 'find_skills',
  });
  let ranker = typeof given === 'function' ? undefined : given;
  let last: { query: string; result: CatalogResult } | undefined;
  return {
    mode: 'ranked',
    render(query = '') {
      const trimmed = query.trim();
      if (trimmed === '') return fixed;
      if (last && last.query === trimmed) return last.result;
      ranker ??= typeof given === 'function' ? given() : createRanker(entries);
      const rendered = renderRanked(context, trimmed, ranker);
      last = { query: trimmed, result: rendered };
      return rendered;
    },
  };
}

/**
 * Put `section` into the first system message (or a new one at the top),
 * replacing a section this package added earlier so reruns never duplicate it.
 * Returns a new message list; the input is not changed.
 */
export function withCatalog<M extends HostMessage>(messages: readonly M[], section: string): Array<M | HostMessage> {
  const index = messages.findIndex((m) => m.role === 'system');
  if (index === -1) return [{ role: 'system', content: section }, ...messages];
  const system = messages[index] as M;
  const content = typeof system.content === 'string' ? system.content : '';
  const start = content.indexOf(CATALOG_OPEN);
  const end = content.indexOf(CATALOG_CLOSE, start);
  let updated: string;
  if (start !== -1 && end !== -1) {
    updated = content.slice(0, start) + section + content.slice(end + CATALOG_CLOSE.length);
  } else {
    updated = content.length > 0 ? `${content}\n\n${section}` : section;
  }
  const copy = [...messages] as Array<M | HostMessage>;
  copy[index] = { ...system, content: updated };
  return copy;
}
