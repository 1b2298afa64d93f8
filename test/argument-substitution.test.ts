/**
 * The placeholder rule on the 1,129 real SKILL.md files of ../shared/corpus
 * (skipped when absent): activated with three arguments, no skill that does
 * not opt in (`arguments` / `argument-hint`) has a byte of its code changed,
 * and the counts `npm run substitution` prints come from the same code.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect, it } from 'vitest';
import { measureSubstitution } from '../scripts/argument-substitution-core.mjs';
import { findSkillFiles } from '../scripts/conformance-core.mjs';
import { codeSegments, substitutePlaceholders, substitutesInCode } from '../src/base/arguments.js';
import { parseFrontmatter } from '../src/frontmatter/parse.js';
import { describeWith } from './helpers/needs-shared.js';
import { CORPUS, hasShared } from './helpers/shared.js';

const ARGS = 'ARG0 ARG1 ARG2';
const code = (text: string) =>
  codeSegments(text)
    .filter((segment) => segment.code)
    .map((segment) => segment.text);

describeWith('corpus', 'placeholders on the real corpus', () => {
  const files = hasShared('corpus')
    ? findSkillFiles(CORPUS).map((path) => ({ path: relative(CORPUS, path), text: readFileSync(path, 'utf8') }))
    : [];

  it('leaves every code block and inline span of a skill without the opt-in as written', () => {
    let checked = 0;
    const wrong: Array<{ file: string; segments: [number, number]; changed: number; replacedInCode: number }> = [];
    for (const file of files) {
      const { metadata, body } = parseFrontmatter(file.text);
      if (substitutesInCode(metadata ?? {})) continue;
      const out = substitutePlaceholders(body, { arguments: ARGS, skillDir: '/skill', metadata: metadata ?? {} });
      // Folder placeholders are meant to be filled in wherever they are; nothing else in code may change.
      const expected = code(body.replace(/\$\{(?:CLAUDE_SKILL_DIR|SKILL_DIR)\}/g, '/skill'));
      const shown = code(out.text);
      // The last block may have been left open by the file: then its fence is closed before the appended arguments.
      const changed = shown.findIndex((segment, i) => {
        const original = expected[i] ?? '';
        return !(segment === original || (i === shown.length - 1 && segment.startsWith(original.trimEnd())));
      });
      // Compared in plain code and reported once per file: an expect per segment of 1,129 files took seconds.
      if (shown.length !== expected.length || changed >= 0 || out.replaced.code !== 0) {
        wrong.push({ file: file.path, segments: [shown.length, expected.length], changed, replacedInCode: out.replaced.code });
      }
      checked++;
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it('counts what changes, inside and outside code (the figures in docs/activation.md)', () => {
    const { counts, untouchedFiles } = measureSubstitution(files, ARGS, {
      parseFrontmatter,
      substitute: substitutePlaceholders,
      substitutesInCode,
    });
    expect(counts.files).toBe(files.length);
    // Files whose code holds $1-style placeholders the rule protected: the case it exists for.
    expect(counts.untouchedInCode).toBeGreaterThan(0);
    expect(untouchedFiles).toContain('wshobson__agents/plugins__shell-scripting__skills__bats-testing-patterns/SKILL.md');
    expect(counts.changedOutsideCode).toBeGreaterThan(0);
  });
});
