import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findMentions, MAX_MENTIONS, selectActivations, type RankedSkill } from '../src/run/activation.js';
import { isModelInvocable } from '../src/metadata/invocation.js';

const KNOWN = ['code-review', 'debug', 'deploy-staging', 'explain', 'test-gen'];

describe('findMentions', () => {
  it('finds known and unknown mentions in order, deduplicated', () => {
    expect(findMentions('@debug this, then @code-review it; @nope and @debug again, @nope', KNOWN)).toEqual({
      known: ['debug', 'code-review'],
      unknown: ['nope'],
    });
  });

  it('takes the known names as a list, a set or a test for one, with the same answer', () => {
    const text = '@debug this, then @code-review it; @nope and @debug again';
    const expected = { known: ['debug', 'code-review'], unknown: ['nope'] };
    expect(findMentions(text, new Set(KNOWN))).toEqual(expected);
    const asked: string[] = [];
    const isKnown = (name: string): boolean => {
      asked.push(name);
      return KNOWN.includes(name);
    };
    expect(findMentions(text, isKnown)).toEqual(expected);
    expect(asked).toEqual(['debug', 'code-review', 'nope']);
  });

  it('accepts a mention at the start, after punctuation and before punctuation', () => {
    const text = '@explain (@test-gen) "@debug", @deploy-staging. @code-review!';
    expect(findMentions(text, KNOWN).known).toEqual(['explain', 'test-gen', 'debug', 'deploy-staging', 'code-review']);
  });

  it('ignores emails and other @ that are not mentions', () => {
    const text = [
      'mail a@debug.com or first.last@explain.io or x+y@debug', // emails
      'npm i @test-gen/core', // a package scope
      'use @pytest.fixture and @Override', // decorators
      'not @code_review nor @Debug', // other word characters
      'see notes/@debug', // a slash before @ is a boundary: this one counts
    ].join('\n');
    expect(findMentions(text, KNOWN)).toEqual({ known: ['debug'], unknown: [] });
  });

  it('drops a trailing hyphen and ignores a bare @', () => {
    expect(findMentions('ask @debug- now, or @ alone, or @-', KNOWN)).toEqual({ known: ['debug'], unknown: [] });
  });

  it('ignores mentions inside fenced code blocks but not inline code', () => {
    const text = [
      '```ts',
      '@debug',
      'class A {}',
      '```',
      'run `@explain`',
      '~~~~',
      '@test-gen',
      '~~~',
      'still code',
      '~~~~',
      '@code-review',
    ].join('\n');
    expect(findMentions(text, KNOWN).known).toEqual(['explain', 'code-review']);
  });

  it('treats an unclosed fence as code to the end', () => {
    expect(findMentions('@debug\n```\n@explain', KNOWN).known).toEqual(['debug']);
  });

  it('returns nothing for text without mentions', () => {
    expect(findMentions('', KNOWN)).toEqual({ known: [], unknown: [] });
    expect(findMentions('plain text', [])).toEqual({ known: [], unknown: [] });
  });

  // Issue 15: 5,000 unknown mentions cost 5,000 lookups and suggestion searches (24 s at 2,000 skills).
  it(`examines at most ${MAX_MENTIONS} distinct names per message and counts the rest`, () => {
    const names: string[] = [];
    const isKnown = (name: string): boolean => {
      names.push(name);
      return name === 'debug';
    };
    const text = Array.from({ length: 5000 }, (_, i) => `@unknown-${i}`).join(' ');
    const found = findMentions(`${text} @debug`, isKnown);
    expect(names).toHaveLength(MAX_MENTIONS);
    expect(found.unknown).toEqual(Array.from({ length: MAX_MENTIONS }, (_, i) => `unknown-${i}`));
    // Mentions are taken in order: a known one after the cap is ignored too, and counted.
    expect(found.known).toEqual([]);
    expect(found.ignored).toBe(5000 - MAX_MENTIONS + 1);
    // Repeats of an examined name are neither looked up again nor counted as ignored.
    const repeats = findMentions(Array.from({ length: 1000 }, () => '@debug').join(' '), KNOWN);
    expect(repeats).toEqual({ known: ['debug'], unknown: [] });
  });

  // Issue 15: one message of "@" and 100,000 letters blocked for 91 s.
  it('takes names of at most 64 characters: a longer @word is no mention and costs no lookup', () => {
    const looked: string[] = [];
    const isKnown = (name: string): boolean => {
      looked.push(name);
      return false;
    };
    expect(findMentions(`hi @${'a'.repeat(100_000)} there`, isKnown)).toEqual({ known: [], unknown: [] });
    expect(findMentions(`@${'b'.repeat(65)}`, isKnown)).toEqual({ known: [], unknown: [] });
    expect(looked).toEqual([]);
    expect(findMentions(`@${'c'.repeat(64)}.`, isKnown).unknown).toEqual(['c'.repeat(64)]);
    // Many long runs: each is rejected after a bounded amount of backtracking.
    const many = Array.from({ length: 2000 }, () => `@${'d'.repeat(500)}`).join(' ');
    expect(findMentions(many, isKnown)).toEqual({ known: [], unknown: [] });
  });
});

describe('findMentions (properties)', () => {
  // Skill names: at most 64 characters.
  const name = fc.stringMatching(/^[a-z0-9]+(-[a-z0-9]+)*$/).filter((n) => n.length <= 64);

  it('never throws, and every name it returns was written as @name', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('@', 'a', 'b', '-', '.', ' ', '\n', '`', '/', '_', 'Z', '1') }), (text) => {
        const { known, unknown } = findMentions(text, ['a', 'b-a']);
        for (const found of [...known, ...unknown]) {
          expect(found).toMatch(/^[a-z0-9-]*[a-z0-9]$/);
          expect(text).toContain(`@${found}`);
        }
        expect(new Set([...known, ...unknown]).size).toBe(known.length + unknown.length);
      }),
    );
  });

  it('an email address is never a mention', () => {
    fc.assert(
      fc.property(name, name, fc.constantFrom('com', 'io', 'dev'), (local, domain, tld) => {
        expect(findMentions(`write to ${local}@${domain}.${tld} or ${local}.x@${domain}`, [domain])).toEqual({ known: [], unknown: [] });
      }),
    );
  });

  it('a name written as @name after a space is found', () => {
    fc.assert(
      fc.property(name, (skillName) => {
        expect(findMentions(`please @${skillName}, thanks`, [skillName]).known).toEqual([skillName]);
      }),
    );
  });
});

describe('isModelInvocable', () => {
  it('is false for disable-model-invocation true or "true"', () => {
    expect(isModelInvocable({ name: 'a', 'disable-model-invocation': true })).toBe(false);
    expect(isModelInvocable({ name: 'a', 'disable-model-invocation': 'true' })).toBe(false);
    expect(isModelInvocable({ name: 'a', 'disable-model-invocation': ' TRUE ' })).toBe(false);
  });

  it('is true otherwise', () => {
    expect(isModelInvocable({ name: 'a' })).toBe(true);
    for (const value of [false, 'false', 'yes', 1, null, 'truee']) {
      expect(isModelInvocable({ 'disable-model-invocation': value })).toBe(true);
    }
  });
});

function ranker(results: RankedSkill[]): { rank: (query: string) => RankedSkill[]; queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    rank: (query) => {
      queries.push(query);
      return results;
    },
  };
}

describe('selectActivations', () => {
  it('orders mentions, then always, then auto, each skill once under its first route', () => {
    const { rank, queries } = ranker([
      { name: 'debug', score: 0.9 },
      { name: 'explain', score: 0.8 },
    ]);
    const selected = selectActivations({
      mentions: ['test-gen', 'debug'],
      always: ['code-review', 'test-gen'],
      auto: { query: 'why does it crash', threshold: 0.5, maxSkills: 3, rank },
      alreadyActive: [],
    });
    expect(selected).toEqual([
      { name: 'test-gen', route: 'mention' },
      { name: 'debug', route: 'mention' },
      { name: 'code-review', route: 'always' },
      { name: 'explain', route: 'auto', score: 0.8 },
    ]);
    expect(queries).toEqual(['why does it crash']);
  });

  it('skips skills that are already active, whatever the route', () => {
    const { rank } = ranker([{ name: 'explain', score: 1 }]);
    const selected = selectActivations({
      mentions: ['debug'],
      always: ['code-review'],
      auto: { query: 'q', threshold: 0, maxSkills: 1, rank },
      alreadyActive: new Set(['debug', 'code-review', 'explain']),
    });
    expect(selected).toEqual([]);
  });

  it('auto picks at most maxSkills at or above the threshold, best first, already active ones counting', () => {
    const results = [
      { name: 'explain', score: 0.4 },
      { name: 'debug', score: 0.7 },
      { name: 'test-gen', score: 0.5 },
      { name: 'debug', score: 0.6 },
      { name: 'code-review', score: Number.NaN },
      { name: 'deploy-staging', score: 0.7 },
    ];
    const pick = (maxSkills: number, alreadyActive: string[] = []) =>
      selectActivations({ mentions: [], always: [], auto: { query: 'q', threshold: 0.5, maxSkills, rank: () => results }, alreadyActive });
    expect(pick(5)).toEqual([
      { name: 'debug', route: 'auto', score: 0.7 },
      { name: 'deploy-staging', route: 'auto', score: 0.7 },
      { name: 'test-gen', route: 'auto', score: 0.5 },
    ]);
    expect(pick(1)).toEqual([{ name: 'debug', route: 'auto', score: 0.7 }]);
    // The best match is already active: the slot is used, nothing weaker is added.
    expect(pick(1, ['debug'])).toEqual([]);
    expect(pick(0)).toEqual([]);
  });

  it('does not rank an empty query', () => {
    const { rank, queries } = ranker([{ name: 'debug', score: 1 }]);
    expect(
      selectActivations({ mentions: [], always: [], auto: { query: '  ', threshold: 0, maxSkills: 1, rank }, alreadyActive: [] }),
    ).toEqual([]);
    expect(queries).toEqual([]);
  });
});
