import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCatalog, catalogEntries, createCatalog, MIN_DESCRIPTION_CHARS, type CatalogEntry } from '../src/catalog/catalog.js';
import { CATALOG_CLOSE, CATALOG_OPEN, withCatalog } from '../src/catalog/system-prompt.js';
import { shorten } from '../src/catalog/catalog-text.js';
import { createRanker } from '../src/catalog/rank/score.js';
import { oneLine } from '../src/base/text.js';
import type { Skill } from '../src/base/model.js';

const skill = (name: string, description: string, tags?: unknown): Skill => ({
  metadata: { name, description, ...(tags === undefined ? {} : { tags: tags as string[] }) },
  instructions: '',
  path: `/s/${name}/SKILL.md`,
  directory: `/s/${name}`,
  resources: [],
});

const words = (n: number, word = 'word'): string => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ');

/** A library of `count` skills with ~`length`-character descriptions. */
function library(count: number, length = 200): CatalogEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `skill-${String(i).padStart(4, '0')}`,
    description: `Does task ${i}. ${words(Math.ceil(length / 8), 'filler')}`.slice(0, length),
  }));
}

describe('catalog entries', () => {
  it('are the metadata itself when tags are absent or all strings, a copy with string tags only otherwise', () => {
    const plain = skill('p', 'One.\n  Two', ['x', 'y']);
    const [same, mixed, bare] = catalogEntries([plain, skill('a', 'A.', ['x', 3, 'y']), skill('b', 'B.', 'not-a-list')]);
    expect(same).toBe(plain.metadata);
    expect(same?.description).toBe('One.\n  Two');
    expect(mixed).toEqual({ name: 'a', description: 'A.', tags: ['x', 'y'] });
    expect(bare).toEqual({ name: 'b', description: 'B.' });
  });

  it('are listed with every description exactly as oneLine would put it, whatever whitespace it has', () => {
    const descriptions = [
      'Folded and long enough.\n',
      '  both ends  ',
      '\tTab first.',
      'Inner\nbreak.\n',
      'Two  spaces.\n',
      'Plain one.',
      'Nbsp\u00a0inside. ',
      ' \u2028 ',
    ];
    const { text } = buildCatalog(catalogEntries(descriptions.map((description, i) => skill(`s${i}`, description))));
    for (const [i, description] of descriptions.entries()) {
      const flat = oneLine(description);
      // A description that is only whitespace leaves the name alone on its line.
      expect(text).toContain(flat === '' ? `\n- s${i}\n` : `\n- s${i}: ${flat}\n`);
    }
  });
});

describe('buildCatalog', () => {
  it('lists each skill on one line with whitespace collapsed when everything fits', () => {
    const { text, report } = buildCatalog(
      catalogEntries([skill('code-review', 'Reviews diffs.\nUse when  asked\tto review.'), skill('debug', 'Finds bugs.')]),
    );
    expect(text.startsWith(CATALOG_OPEN)).toBe(true);
    expect(text.endsWith(CATALOG_CLOSE)).toBe(true);
    expect(text).toContain('- code-review: Reviews diffs. Use when asked to review.\n- debug: Finds bugs.');
    expect(text).toContain('call the `use_skill` tool with its `skill_name`');
    expect(text).not.toContain('find_skills');
    expect(report).toEqual({
      mode: 'full',
      length: text.length,
      budget: 8000,
      included: ['code-review', 'debug'],
      shortened: [],
      ranked: [],
      omitted: 0,
    });
  });

  it('over budget, cuts the longest descriptions first, at a word boundary, and no further than needed', () => {
    const entries: CatalogEntry[] = [
      { name: 'short', description: 'Short and whole.' },
      { name: 'long', description: words(200) },
      { name: 'medium', description: words(20) },
    ];
    const full = buildCatalog(entries, { budget: Infinity }).report.length;
    const { text, report } = buildCatalog(entries, { budget: full - 500 });
    expect(report.mode).toBe('shortened');
    expect(report.shortened).toEqual(['long']);
    expect(report.length).toBeLessThanOrEqual(full - 500);
    expect(report.length).toBeGreaterThan(full - 520);
    expect(text).toContain('- short: Short and whole.');
    expect(text).toContain(`- medium: ${words(20)}`);
    expect(text).toMatch(/^- long: word0 word1 .* word\d+…$/m);
  });

  it('never cuts a description below the floor: lists names only instead', () => {
    const entries = library(40, 400);
    const { text, report } = buildCatalog(entries, { budget: 2000 });
    expect(report.mode).toBe('names');
    expect(report.included).toHaveLength(40);
    expect(text).toContain('- skill-0007\n');
    expect(text).not.toContain('filler');
    expect(text).toContain('There are 40');
    expect(text).toContain('`find_skills`');
    const shortened = buildCatalog(entries, { budget: 40 * (MIN_DESCRIPTION_CHARS + 20) + 600 });
    expect(shortened.report.mode).toBe('shortened');
    const lengths = shortened.text
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.length - l.indexOf(': ') - 2);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(MIN_DESCRIPTION_CHARS - 10);
  });

  it('past names only, lists the skills relevant to the query, then other names, then how many more', () => {
    const entries = [
      ...library(1000, 120),
      { name: 'pdf-forms', description: 'Fill in and flatten PDF forms.\nUse when a user sends  a PDF form to complete.\n' },
      { name: 'invoice-chaser', description: 'Write reminders for unpaid invoices.' },
    ];
    const { text, report } = buildCatalog(entries, { budget: 3000, query: 'please fill this PDF form', findToolName: 'find_skills' });
    expect(report.mode).toBe('ranked');
    expect(report.ranked[0]).toBe('pdf-forms');
    expect(report.included[0]).toBe('pdf-forms');
    expect(report.length).toBeLessThanOrEqual(3000);
    expect(report.omitted).toBe(entries.length - report.included.length);
    expect(report.omitted).toBeGreaterThan(0);
    const lines = text.split('\n');
    expect(lines[2]).toBe('- pdf-forms: Fill in and flatten PDF forms. Use when a user sends a PDF form to complete.');
    expect(lines[3]).toBe('- skill-0000');
    expect(text).toContain(
      `${report.omitted} more skills are not listed here. Call \`find_skills\` with a few words about the task to search all 1002.`,
    );
  });

  it('ranked mode without a query lists the first names in catalog order', () => {
    const { text, report } = buildCatalog(library(2000, 100), { budget: 1500 });
    expect(report.mode).toBe('ranked');
    expect(report.ranked).toEqual([]);
    expect(report.included.slice(0, 3)).toEqual(['skill-0000', 'skill-0001', 'skill-0002']);
    expect(text).toContain(`There are 2000; ${report.included.length} are listed below by name.`);
  });

  it('shrinks to a pointer at find_skills, or to nothing, for tiny budgets', () => {
    const small = buildCatalog(library(2000), { budget: 150 });
    expect(small.report.mode).toBe('ranked');
    expect(small.text).toBe(`${CATALOG_OPEN}\n2000 skills are not listed here. Call \`find_skills\` to search them.\n${CATALOG_CLOSE}`);
    expect(buildCatalog(library(5), { budget: 20 })).toMatchObject({ text: '', report: { mode: 'none', omitted: 5, length: 0 } });
  });

  it('is the same text for the same input, whatever the order of calls', () => {
    const entries = library(500, 150);
    const ranker = createRanker(entries);
    const a = buildCatalog(entries, { budget: 4000, query: 'task 42', ranker });
    buildCatalog(entries, { budget: 4000, query: 'something else', ranker });
    const b = buildCatalog(entries, { budget: 4000, query: 'task 42' });
    expect(b).toEqual(a);
  });

  it('never exceeds the budget (property)', () => {
    const entry = fc.record({
      name: fc.string({ minLength: 1, maxLength: 40 }),
      description: fc.string({ maxLength: 1200 }),
      tags: fc.option(fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 120 }),
        fc.integer({ min: 0, max: 20000 }),
        fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
        (raw, budget, query) => {
          const entries = raw.map(({ tags, ...rest }) => (tags === undefined ? rest : { ...rest, tags }));
          const { text, report } = buildCatalog(entries, { budget, ...(query === undefined ? {} : { query }) });
          expect(text.length).toBeLessThanOrEqual(budget);
          expect(report.length).toBe(text.length);
          expect(report.omitted).toBe(entries.length - report.included.length);
          if (report.mode !== 'ranked' && report.mode !== 'none') expect(report.included).toHaveLength(entries.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('shorten', () => {
  it('cuts at a word boundary with an ellipsis, mid-word only when a word is very long', () => {
    expect(shorten('alpha beta gamma', 100)).toBe('alpha beta gamma');
    expect(shorten('alpha beta gamma delta', 15)).toBe('alpha beta…');
    expect(shorten('alpha, beta gamma', 9)).toBe('alpha…');
    expect(shorten('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(shorten('abc', 1)).toBe('…');
    expect(shorten('abc', 0)).toBe('');
  });
});

describe('createCatalog', () => {
  it('renders a fixed section once when it does not depend on the query', () => {
    const catalog = createCatalog(library(3));
    expect(catalog.render().report.mode).toBe('full');
    expect(catalog.render('anything')).toBe(catalog.render());
  });

  it('in ranked mode reuses the last query and agrees with buildCatalog', () => {
    const entries = library(3000, 100);
    const catalog = createCatalog(entries, { budget: 3000 });
    expect(catalog.render().report.mode).toBe('ranked');
    const first = catalog.render('task 7');
    expect(catalog.render('  task 7 ')).toBe(first);
    expect(first).toEqual(buildCatalog(entries, { budget: 3000, query: 'task 7' }));
    expect(catalog.render('')).toEqual(buildCatalog(entries, { budget: 3000 }));
  });

  it('asks for a shared ranker only when a request is ranked', () => {
    let asked = 0;
    const getRanker = () => {
      asked++;
      return createRanker(library(3000, 100));
    };
    expect(createCatalog(library(3), { ranker: getRanker }).render('task 1').report.mode).toBe('full');
    const ranked = createCatalog(library(3000, 100), { budget: 3000, ranker: getRanker });
    ranked.render('');
    expect(asked).toBe(0);
    expect(ranked.render('task 1').report.ranked[0]).toBe('skill-0001');
    ranked.render('task 2');
    expect(asked).toBe(1);
  });
});

describe('a ranked catalog finds the ranked skills', () => {
  const entries = library(400, 100).map((entry, i) => ({
    ...entry,
    description: `${entry.description} ${i % 7 === 0 ? 'pdf forms' : 'reports'}`,
  }));

  it('by the positions a ranker over its entries gives, as it would by looking their names up', () => {
    const ranker = createRanker(entries);
    // Without rankDocs (a ranker a caller made, or one fusing meaning in), names are looked up.
    const byNames = { size: ranker.size, rank: (query: string, limit?: number) => ranker.rank(query, limit) };
    for (const query of ['pdf forms', 'task 7 reports', 'filler3 pdf', 'nothing matches this']) {
      const withPositions = createCatalog(entries, { budget: 2000, ranker }).render(query);
      expect(withPositions.report.mode).toBe('ranked');
      expect(withPositions).toEqual(createCatalog(entries, { budget: 2000, ranker: byNames }).render(query));
    }
  });

  it('lists each name once, as its first entry, when names repeat', () => {
    const twice = [
      ...entries.slice(0, 50),
      ...entries.slice(0, 50).map((entry) => ({ ...entry, description: `Other. ${entry.description}` })),
    ];
    const { text, report } = buildCatalog(twice, { budget: 1500, query: 'pdf forms' });
    expect(report.mode).toBe('ranked');
    expect(new Set(report.included).size).toBe(report.included.length);
    expect(report.ranked[0]).toBe('skill-0000');
    expect(text).toContain('- skill-0000: Does task 0.');
    expect(text).not.toContain('Other.');
  });
});

describe('withCatalog', () => {
  it('appends to the first system message and leaves the input untouched', () => {
    const messages = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'second' },
    ];
    const updated = withCatalog(messages, `${CATALOG_OPEN}\nX\n${CATALOG_CLOSE}`);
    expect(updated[0]?.content).toBe(`You are helpful.\n\n${CATALOG_OPEN}\nX\n${CATALOG_CLOSE}`);
    expect(updated[2]?.content).toBe('second');
    expect(messages[0]?.content).toBe('You are helpful.');
  });

  it('adds a system message at the top when there is none', () => {
    const updated = withCatalog([{ role: 'user', content: 'hi' }], 'SECTION');
    expect(updated).toEqual([
      { role: 'system', content: 'SECTION' },
      { role: 'user', content: 'hi' },
    ]);
    expect(withCatalog([{ role: 'system', content: '' }], 'S')[0]?.content).toBe('S');
  });

  it('replaces its own earlier section instead of adding another', () => {
    const first = withCatalog([{ role: 'system', content: 'Base.' }], `${CATALOG_OPEN}\nold\n${CATALOG_CLOSE}`);
    const second = withCatalog(first, `${CATALOG_OPEN}\nnew\n${CATALOG_CLOSE}`);
    expect(second[0]?.content).toBe(`Base.\n\n${CATALOG_OPEN}\nnew\n${CATALOG_CLOSE}`);
    expect(second[0]?.content.split(CATALOG_OPEN)).toHaveLength(2);
  });
});
