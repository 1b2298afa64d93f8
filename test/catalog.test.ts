import { describe, expect, it } from 'vitest';
import { CATALOG_CLOSE, CATALOG_OPEN, catalogEntries, renderCatalog, withCatalog } from '../src/catalog.js';
import type { Skill } from '../src/types.js';

const skill = (name: string, description: string): Skill => ({
  metadata: { name, description },
  instructions: '',
  path: `/s/${name}/SKILL.md`,
  directory: `/s/${name}`,
  resources: [],
});

describe('catalog', () => {
  it('lists each skill on one line with whitespace collapsed', () => {
    const text = renderCatalog(catalogEntries([skill('code-review', 'Reviews diffs.\nUse when  asked\tto review.'), skill('debug', 'Finds bugs.')]));
    expect(text.startsWith(CATALOG_OPEN)).toBe(true);
    expect(text.endsWith(CATALOG_CLOSE)).toBe(true);
    expect(text).toContain('- code-review: Reviews diffs. Use when asked to review.\n- debug: Finds bugs.');
    expect(text).toContain('call the `use_skill` tool with its `skill_name`');
  });

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
