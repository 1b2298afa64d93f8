/**
 * The shape of the labelled requests of test/relevance/instructions-set (README.md
 * there): ids unique, each target among its accepted skills, no request naming its
 * target, every accepted name a skill of the shared corpus, about 40% held back.
 * Measures no ranker. The corpus check skips when the corpus is not beside the project.
 */
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import { loadEntries } from './corpus.mjs';
import { loadRequests } from './instructions-set/set.mjs';
import { describeWith } from '../helpers/needs-shared.js';

// Skills named after the product the user works in: a user names the product ("our
// Notion tasks database"), so the request may hold the name.
const PRODUCT_NAMES = new Set(['notion', 'browserstack']);

const requests = loadRequests();

describe('the instructions-written request set', () => {
  it('holds at least 150 requests with unique ids, about 40% held back', () => {
    expect(requests.length).toBeGreaterThanOrEqual(150);
    expect(new Set(requests.map((r) => r.id)).size).toBe(requests.length);
    const held = requests.filter((r) => r.heldBack).length / requests.length;
    expect(held).toBeGreaterThan(0.3);
    expect(held).toBeLessThan(0.5);
  });

  it('gives each request one distinct target, among its accepted skills, each accepted once', () => {
    expect(requests.filter((r) => !r.accept.includes(r.target)).map((r) => r.id)).toEqual([]);
    expect(requests.filter((r) => new Set(r.accept).size !== r.accept.length).map((r) => r.id)).toEqual([]);
    expect(new Set(requests.map((r) => r.target)).size).toBe(requests.length);
  });

  it('never names the target skill in the request', () => {
    const naming = requests.filter((r) => {
      const text = r.request.toLowerCase();
      const name = r.target.toLowerCase();
      return !PRODUCT_NAMES.has(name) && (text.includes(name) || text.includes(name.replaceAll('-', ' ')));
    });
    expect(naming.map((r) => `${r.id}: ${r.target}`)).toEqual([]);
  });
});

describeWith('corpus', 'the instructions-written request set against the shared corpus', () => {
  it('accepts only skills the corpus holds', () => {
    const names = new Set(loadEntries(parseFrontmatter).map((e) => e.name));
    expect(requests.flatMap((r) => r.accept.filter((name) => !names.has(name)).map((name) => `${r.id}: ${name}`))).toEqual([]);
  });
});
