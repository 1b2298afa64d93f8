import { describe, expect, it } from 'vitest';
import { splitFrontmatter } from '../../src/frontmatter/split.js';

describe('splitFrontmatter', () => {
  it('splits fences, frontmatter text and body', () => {
    const result = splitFrontmatter('---\nname: a\n---\n# Title\nbody\n');
    expect(result).toEqual({
      hasFrontmatter: true,
      closed: true,
      yaml: 'name: a\n',
      yamlLine: 2,
      body: '# Title\nbody\n',
      bodyLine: 4,
    });
  });

  it('treats text without an opening fence as all body', () => {
    const result = splitFrontmatter('# Title\n---\nname: a\n---\n');
    expect(result.hasFrontmatter).toBe(false);
    expect(result.body).toBe('# Title\n---\nname: a\n---\n');
    expect(result.bodyLine).toBe(1);
    expect(result.yaml).toBe('');
  });

  it('requires the fence on the first line, allowing trailing blanks only', () => {
    expect(splitFrontmatter('\n---\nname: a\n---\n').hasFrontmatter).toBe(false);
    expect(splitFrontmatter('--- x\nname: a\n---\n').hasFrontmatter).toBe(false);
    expect(splitFrontmatter('----\nname: a\n---\n').hasFrontmatter).toBe(false);
    expect(splitFrontmatter('--- \t\nname: a\n---  \nbody').yaml).toBe('name: a\n');
  });

  it('strips a UTF-8 BOM', () => {
    const result = splitFrontmatter('\uFEFF---\nname: a\n---\nbody');
    expect(result.yaml).toBe('name: a\n');
    expect(result.body).toBe('body');
    expect(splitFrontmatter('\uFEFFhello').body).toBe('hello');
  });

  it('normalises CRLF, CR and mixed line endings in the frontmatter and keeps the body verbatim', () => {
    const crlf = splitFrontmatter('---\r\nname: a\r\nx: 1\r\n---\r\nbody\r\nmore');
    expect(crlf.yaml).toBe('name: a\nx: 1\n');
    expect(crlf.body).toBe('body\r\nmore');
    expect(crlf.bodyLine).toBe(5);
    const cr = splitFrontmatter('---\rname: a\rx: 1\r---\rbody');
    expect(cr.yaml).toBe('name: a\nx: 1\n');
    expect(cr.body).toBe('body');
    const mixed = splitFrontmatter('---\nname: a\r\nx: 1\ry: 2\n---\nbody');
    expect(mixed.yaml).toBe('name: a\nx: 1\ny: 2\n');
    expect(mixed.bodyLine).toBe(6);
  });

  it('closes on "..." as well as "---"', () => {
    const result = splitFrontmatter('---\nname: a\n...  \nbody');
    expect(result.closed).toBe(true);
    expect(result.body).toBe('body');
    expect(splitFrontmatter('---\nname: a\n.... \nb: 1\n---\n').yaml).toBe('name: a\n.... \nb: 1\n');
  });

  it('reports an opening fence that is never closed', () => {
    const result = splitFrontmatter('---\nname: a\ndescription: b\n');
    expect(result.hasFrontmatter).toBe(true);
    expect(result.closed).toBe(false);
    expect(splitFrontmatter('---').closed).toBe(false);
    expect(splitFrontmatter('---\n').closed).toBe(false);
  });

  it('handles empty frontmatter and a closing fence at the end of the text', () => {
    expect(splitFrontmatter('---\n---')).toMatchObject({ closed: true, yaml: '', body: '', bodyLine: 3 });
    expect(splitFrontmatter('---\nname: a\n---')).toMatchObject({ closed: true, yaml: 'name: a\n', body: '' });
  });
});
