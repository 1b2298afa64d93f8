/**
 * The catalog under a budget (issue 11): whatever the budget, the skills
 * listed are the most relevant first, every line says only what is there,
 * the section never exceeds the budget, and a search tool that is not
 * registered is never named.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildCatalog,
  createCatalog,
  MIN_DESCRIPTION_CHARS,
  RANKED_LISTED,
  RANKED_WITH_DESCRIPTION,
  type CatalogEntry,
  type CatalogOptions,
  type CatalogResult,
} from '../src/catalog/catalog.js';
import { CATALOG_CLOSE, CATALOG_OPEN } from '../src/catalog/system-prompt.js';
import { catalogText, shorten } from '../src/catalog/catalog-text.js';
import { createRanker, type Ranker } from '../src/catalog/rank/score.js';

const TOPICS = [
  'audio',
  'video',
  'pdf',
  'kubernetes',
  'docker',
  'git',
  'invoice',
  'email',
  'sql',
  'image',
  'deploy',
  'review',
  'migrate',
  'test',
];
const VERBS = ['analyze', 'build', 'convert', 'debug', 'fill', 'generate', 'lint', 'merge', 'plan', 'scan'];

/** `count` skills named `<verb>-<topic>-<n>` in alphabetical order, the way a large published library looks. */
function library(count: number): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (let i = 0; i < count; i++) {
    const verb = VERBS[Math.floor((i * VERBS.length) / count)] ?? 'scan';
    const topic = TOPICS[i % TOPICS.length] ?? 'git';
    entries.push({
      name: `${verb}-${topic}-${String(i).padStart(4, '0')}`,
      description: `${verb} ${topic} files for a project, step by step, with checks at each step.`,
    });
  }
  return entries;
}

/** The 3,000-skill library of the issue, with the one skill the request is about far down the alphabet. */
const LARGE = [
  ...library(3000),
  {
    name: 'kubernetes-migrate',
    description: 'Migrate Kubernetes manifests to a new API version. Use when asked to migrate a cluster or upgrade Kubernetes.',
  },
];
const QUERY = 'kubernetes migrate';

interface Parsed {
  head: string;
  entries: string[];
  trailer: string | undefined;
}

/** The section read line by line, the way a model reads it; fails the test on any line it cannot account for. */
function parse(text: string): Parsed {
  const lines = text.split('\n');
  expect(lines[0]).toBe(CATALOG_OPEN);
  expect(lines.at(-1)).toBe(CATALOG_CLOSE);
  const inner = lines.slice(1, -1);
  const entries = inner.filter((l) => l.startsWith('- ')).map((l) => l.slice(2).split(': ')[0] ?? '');
  const trailer = inner.find((l) => /^\d+ more skills? (is|are) not listed here\./.test(l));
  const use = inner.filter((l) => l.startsWith('When a task matches a skill, call the `use_skill` tool'));
  // Every line is the header, an entry, the trailer or the use line: nothing else, nothing twice.
  expect(1 + entries.length + (trailer ? 1 : 0) + use.length).toBe(inner.length);
  return { head: inner[0] ?? '', entries, trailer };
}

/** What every section must satisfy, whatever the input. */
function checkSection(
  entries: readonly CatalogEntry[],
  options: CatalogOptions,
  { text, report }: CatalogResult,
  ranker: Ranker = createRanker(entries),
): void {
  const budget = options.budget ?? 8000;
  expect(text.length).toBeLessThanOrEqual(budget);
  expect(report.length).toBe(text.length);
  expect(report.omitted).toBe(entries.length - report.included.length);
  if (options.findToolName === null) expect(text).not.toContain('find_skills');
  if (text === '') {
    expect(report.mode).toBe('none');
    return;
  }
  const { head, entries: listed, trailer } = parse(text);
  expect(listed).toEqual(report.included);
  if (report.mode !== 'ranked') {
    expect(listed).toHaveLength(entries.length);
    expect(head).toMatch(/Each line below|each line below/);
    if (report.mode === 'names' && options.findToolName !== null) expect(head).toContain('`find_skills`');
    return;
  }
  // Ranked: the header says how many lines follow and whether the first ones matched.
  const count = /; (\d+) (?:is|are) listed below/.exec(head);
  if (listed.length === 0) {
    expect(count).toBeNull();
    expect(head).not.toMatch(/listed below|relevant/);
  } else {
    expect(Number(count?.[1])).toBe(listed.length);
  }
  expect(head.includes('most relevant to this request')).toBe(report.ranked.length > 0);
  const firstOnes = /first the (\d+|one) most relevant/.exec(head);
  if (firstOnes) expect(firstOnes[1] === 'one' ? 1 : Number(firstOnes[1])).toBe(report.ranked.length);
  expect(report.included.slice(0, report.ranked.length)).toEqual(report.ranked);
  // The trailer counts exactly the skills left out, and is there whenever something listed hides others.
  if (trailer) expect(Number(/^\d+/.exec(trailer)?.[0])).toBe(report.omitted);
  if (listed.length > 0) expect(trailer !== undefined).toBe(report.omitted > 0);
  // Relevance: the matches come first, best first, and nothing else comes before all of them are listed.
  const query = options.query?.trim() ?? '';
  const matches = query === '' ? [] : [...new Set(ranker.rank(query, RANKED_LISTED).map((r) => r.name))];
  expect(matches.slice(0, report.ranked.length)).toEqual(report.ranked);
  // Only the best RANKED_WITH_DESCRIPTION matches keep a description; later ones are names.
  const lines = text.split('\n').filter((l) => l.startsWith('- '));
  for (const line of lines.slice(RANKED_WITH_DESCRIPTION, report.ranked.length)) expect(line).toMatch(/^- [^ ]+$/);
  if (report.included.length > report.ranked.length) expect(report.ranked).toEqual(matches);
}

describe('catalog under a tight budget', () => {
  it.each([600, 700, 1000, 3000])('at %i characters lists the skill the request is about first, under a header that says so', (budget) => {
    const options = { budget, query: QUERY };
    const result = buildCatalog(LARGE, options);
    checkSection(LARGE, options, result);
    expect(result.report.mode).toBe('ranked');
    expect(result.report.ranked[0]).toBe('kubernetes-migrate');
    expect(result.text.split('\n')[2]).toMatch(/^- kubernetes-migrate/);
  });

  it('at 500 characters promises no list it cannot give: it says how many skills there are and how to search them', () => {
    const result = buildCatalog(LARGE, { budget: 500, query: QUERY });
    checkSection(LARGE, { budget: 500, query: QUERY }, result);
    expect(result.report.included).toEqual([]);
    expect(result.text).toContain('There are 3001, not listed here for lack of room. Call `find_skills` with a few words about the task');
    expect(result.text).not.toContain('listed below');
  });

  it('without find_skills never names it, and says how many skills are not listed', () => {
    const options = { budget: 600, query: QUERY, findToolName: null };
    const ranked = buildCatalog(LARGE, options);
    checkSection(LARGE, options, ranked);
    expect(ranked.text).toContain(`${ranked.report.omitted} more skills are not listed here.\n`);
    const names = buildCatalog(library(40), { budget: 1400, findToolName: null });
    expect(names.report.mode).toBe('names');
    expect(names.text).toContain('There are 40; each line below is a skill name.\n');
    for (const [budget, says] of [
      [120, '\n3001 skills are not listed here.\n'],
      [300, '\n3001 skills are not listed here.\n'],
      [500, '\n2998 more skills are not listed here.\n'],
    ] as const) {
      const tiny = buildCatalog(LARGE, { budget, findToolName: null });
      checkSection(LARGE, { budget, findToolName: null }, tiny);
      expect(tiny.text).toContain(says);
    }
  });

  it('createCatalog says whether the section hides anything a search would show, for every query alike', () => {
    const summary = (catalog: ReturnType<typeof createCatalog>) => ({
      mode: catalog.render().report.mode,
      needsSearch: catalog.needsSearch,
    });
    expect(createCatalog(library(3)).needsSearch).toBe(false);
    expect(summary(createCatalog(library(40), { budget: 1400 }))).toEqual({ mode: 'names', needsSearch: true });
    expect(summary(createCatalog(LARGE, { budget: 600 }))).toEqual({ mode: 'ranked', needsSearch: true });
    expect(summary(createCatalog(LARGE, { budget: 10 }))).toEqual({ mode: 'none', needsSearch: true });
    expect(summary(createCatalog([], { budget: 10 }))).toEqual({ mode: 'none', needsSearch: false });
    expect(createCatalog(LARGE, { budget: 10 }).render(QUERY).text).toBe('');
  });

  it('uniqueNames (an index says its names are distinct) renders what the catalog finds out for itself', () => {
    const ranker = createRanker(LARGE);
    for (const budget of [600, 3000]) {
      const checked = createCatalog(LARGE, { budget, ranker });
      const told = createCatalog(LARGE, { budget, ranker, uniqueNames: true });
      for (const query of ['', QUERY, 'hello']) expect(told.render(query)).toEqual(checked.render(query));
    }
  });

  it('holds for every budget from 100 to 20,000 characters, with and without a query and find_skills (property)', () => {
    const words = [...TOPICS, ...VERBS, 'files', 'project', 'with', 'the'];
    const word = fc.constantFrom(...words);
    // Libraries of any size up to 600, from a seed: fast-check's own arrays stay small and would rarely leave full mode.
    const libraryArb = fc
      .record({ count: fc.integer({ min: 1, max: 600 }), seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }) })
      .map(({ count, seed }) => {
        let state = seed;
        const next = (n: number): number => {
          state = (state * 48271) % 2147483647;
          return state % n;
        };
        const pick = (): string => words[next(words.length)] ?? 'the';
        return Array.from({ length: count }, (_, i): CatalogEntry => ({
          name: `${pick()}-${pick()}-${i}`,
          description: Array.from({ length: next(40) }, pick).join(' '),
        }));
      });
    const text = (max: number) => fc.array(word, { maxLength: max }).map((chosen) => chosen.join(' '));
    fc.assert(
      fc.property(
        libraryArb,
        fc.noBias(fc.integer({ min: 100, max: 20_000 })),
        fc.option(text(4), { nil: undefined }),
        fc.boolean(),
        (entries, budget, query, find) => {
          const ranker = createRanker(entries);
          const options: CatalogOptions = { budget, ...(query === undefined ? {} : { query }), ...(find ? {} : { findToolName: null }) };
          const result = buildCatalog(entries, { ...options, ranker });
          checkSection(entries, options, result, ranker);
          // The per-index form renders the same section.
          const { query: _query, ...rest } = options;
          expect(createCatalog(entries, { ...rest, ranker }).render(query)).toEqual(result);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('which mode a budget gives', () => {
  it('lists descriptions (whole or cut) only when the names alone fit under the full section head', () => {
    // A line with a description is never shorter than the name alone: descriptions can fit only where
    // the names fit as `- name` lines under the same head (what the catalog checks first, cheaply).
    const entry = fc.record({
      name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      description: fc.oneof(fc.constant(''), fc.string({ maxLength: 300 }), fc.constant('Fills PDF forms. '.repeat(12))),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { selector: (e) => e.name, minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 6000 }),
        (entries, budget) => {
          const mode = buildCatalog(entries, { budget }).report.mode;
          const namesOnly = buildCatalog(
            entries.map((e) => ({ name: e.name, description: '' })),
            { budget },
          ).report.mode;
          if (mode === 'full' || mode === 'shortened') expect(namesOnly).toBe('full');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('lists every description whole, or cut, whenever that section fits', () => {
    const entry = fc.record({
      name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      description: fc
        .array(fc.constantFrom('Fills', 'PDF', 'forms', 'and', 'merges', 'documents.', 'Use', 'when', 'asked', '<b>'), { maxLength: 40 })
        .map((w) => w.join(' ')),
    });
    const unlimited = { budget: Number.MAX_SAFE_INTEGER };
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.name, minLength: 1, maxLength: 30 }), fc.nat(200), (entries, slack) => {
        // The sections as they would be with room to spare, measured by building them.
        const whole = buildCatalog(entries, unlimited).report.length;
        const cut = buildCatalog(
          entries.map((e) => ({ name: e.name, description: shorten(catalogText(e.description), MIN_DESCRIPTION_CHARS) })),
          unlimited,
        ).report.length;
        expect(buildCatalog(entries, { budget: whole + slack }).report.mode).toBe('full');
        expect(['full', 'shortened']).toContain(buildCatalog(entries, { budget: cut + slack }).report.mode);
      }),
      { numRuns: 2000 },
    );
  });
});
