/**
 * Things discovery used to lose or get wrong without a word: filters that
 * cannot match, a `skill.md` in the wrong case, names a reader cannot tell
 * apart, and a SKILL.md caught mid-write at activation.
 */
import { describe, expect, it } from 'vitest';
import { discover, loadSkillContent } from '../../src/discover/discover.js';
import { discoverSkills } from '../../src/discover/with-storage.js';
import { SkillsError, SkillUnavailableError } from '../../src/config/errors.js';
import { resolveOptions } from '../../src/config/resolve.js';
import { resourceLimits } from '../../src/discover/resources.js';
import { faultyFs, skillMd } from './helpers.js';

describe('include / exclude patterns that cannot work', () => {
  it('warns once per pattern that uses unsupported syntax or matches nothing, naming it and what is supported', async () => {
    const { fs } = faultyFs({ '/r/pdf-tools/SKILL.md': skillMd('pdf-tools'), '/r/docx/SKILL.md': skillMd('docx') });
    const result = await discoverSkills({
      directories: ['/r'],
      fs,
      include: ['pdf-*', '[pd]*', 'nothing-*', 'nothing-*', 'docx'],
      exclude: ['**/docx', '{a,b}', '!pdf-tools'],
    });
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['docx', 'pdf-tools']);
    const warnings = result.warnings.filter((w) => w.code === 'FILTER_PATTERN');
    expect(warnings.map((w) => w.message.slice(0, w.message.indexOf('. Patterns match')))).toEqual([
      'include pattern "[pd]*" uses "[...]" (a character class), which is not supported and matches no skill that was found',
      'include pattern "nothing-*" matches no skill that was found',
      'exclude pattern "**/docx" uses a path separator (patterns match names, not paths; ' +
        '"**/" is not needed), which is not supported and matches no skill that was found',
      'exclude pattern "{a,b}" uses "{a,b}" (alternatives), which is not supported and matches no skill that was found',
      'exclude pattern "!pdf-tools" uses a leading "!" (negation; use `exclude` instead), which is not supported and matches no skill that was found',
    ]);
    for (const warning of warnings) {
      expect(warning).toMatchObject({ severity: 'warning', file: '<options>', line: 0, column: 0 });
      expect(warning.message).toContain('"*" matches any run of characters, "?" one character');
    }
    expect(result.warnings).toHaveLength(warnings.length);
  });

  it('counts a match on a skill that the other list then removes, and says nothing when every pattern works', async () => {
    const { fs } = faultyFs({ '/r/pdf-tools/SKILL.md': skillMd('pdf-tools'), '/r/docx/SKILL.md': skillMd('docx') });
    const quiet = await discoverSkills({ directories: ['/r'], fs, include: ['*-tools', 'doc?'], exclude: ['docx'] });
    expect(quiet.skills.map((s) => s.metadata.name)).toEqual(['pdf-tools']);
    expect(quiet.warnings).toEqual([]);
  });
});

describe('a SKILL.md in the wrong case', () => {
  it('gets a hint to rename it, except inside a skill where it is a resource', async () => {
    const { fs } = faultyFs({
      '/r/typo/skill.md': skillMd('typo'),
      '/r/Mixed/Skill.MD': skillMd('mixed'),
      '/r/ok/SKILL.md': skillMd('ok'),
      '/r/ok/references/skill.md': 'notes about skills',
      '/r/both/SKILL.md': skillMd('both'),
      '/r/both/skill.md': 'a second copy',
    });
    const result = await discoverSkills({ directories: ['/r'], fs });
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['both', 'ok']);
    expect(result.warnings.map((w) => [w.code, w.file])).toEqual([
      ['SKILL_FILE_CASE', '/r/Mixed/Skill.MD'],
      ['SKILL_FILE_CASE', '/r/typo/skill.md'],
    ]);
    expect(result.warnings[0]?.message).toBe(
      'not loaded as a skill: the file must be named SKILL.md, in exactly those capitals. Rename it to SKILL.md.',
    );
  });
});

describe('names a reader cannot tell apart', () => {
  it('warns on each later skill whose name folds to an earlier one, naming both; both load', async () => {
    const { fs } = faultyFs({
      '/r/pdf/SKILL.md': skillMd('pdf'),
      // Cyrillic "р", fullwidth letters, and a combining accent.
      '/r/рdf/SKILL.md': skillMd('рdf'),
      '/r/ｐｄｆ/SKILL.md': skillMd('ｐｄｆ'),
      '/r/pd\u0301f/SKILL.md': skillMd('pd\u0301f'),
      '/r/pdfs/SKILL.md': skillMd('pdfs'),
    });
    const result = await discoverSkills({ directories: ['/r'], fs });
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['pdf', 'pdfs', 'pd\u0301f', 'рdf', 'ｐｄｆ']);
    const lookAlikes = result.warnings.filter((w) => w.code === 'NAME_LOOKALIKE');
    expect(lookAlikes.map((w) => w.file)).toEqual(['/r/pd\u0301f/SKILL.md', '/r/рdf/SKILL.md', '/r/ｐｄｆ/SKILL.md']);
    expect(lookAlikes[1]?.message).toMatch(
      /^skill name "рdf" looks the same as "pdf" \(\/r\/pdf\/SKILL\.md\) once case, accents, fullwidth forms/,
    );
    expect(lookAlikes[1]?.message).toContain('rename one of them');
  });
});

describe('a SKILL.md caught mid-write at activation', () => {
  const FILE = '/r/writer/SKILL.md';

  async function lazyEntry(): Promise<{
    fs: ReturnType<typeof faultyFs>['fs'];
    volume: ReturnType<typeof faultyFs>['volume'];
    entry: Parameters<typeof loadSkillContent>[0];
    options: ReturnType<typeof resolveOptions>;
  }> {
    const { fs, volume } = faultyFs({ [FILE]: skillMd('writer'), '/r/writer/notes.md': 'n' });
    const options = resolveOptions({ directories: ['/r'], fs });
    const found = await discover(options, { frontmatterOnly: true });
    const entry = found.skills[0];
    if (!entry) throw new Error('fixture skill not found');
    return { fs, volume, entry, options };
  }

  it('rejects with a retryable SkillUnavailableError instead of returning empty instructions', async () => {
    const { volume, entry, options } = await lazyEntry();
    // 25 bytes of a rewrite in progress: the frontmatter is not closed yet.
    volume.writeFileSync(FILE, '---\nname: writer\ndescrip');
    const failure = await loadSkillContent(entry, options.fs, resourceLimits(options)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SkillUnavailableError);
    expect(failure).toBeInstanceOf(SkillsError);
    expect(failure).toMatchObject({
      code: 'SKILLS_UNAVAILABLE',
      reason: 'changed',
      skill: 'writer',
      path: FILE,
      detail: 'unclosed frontmatter at line 1',
    });
    expect((failure as Error).message).toBe(
      'SKILL.md of writer changed and cannot be read right now (unclosed frontmatter at line 1); try again in a moment',
    );
    // Once the write is done, the next activation reads it.
    volume.writeFileSync(FILE, skillMd('writer'));
    const loaded = await loadSkillContent(entry, options.fs, resourceLimits(options));
    expect(loaded.skill.instructions).toBe('# writer\n\nSteps for writer.\n');
    expect(loaded.skill.instructionsLine).toBe(5);
    expect(loaded.skill.resources.map((r) => r.path)).toEqual(['notes.md']);
  });

  it('names a YAML error briefly, and keeps the "cannot be read any more" message for a file that is gone', async () => {
    const { volume, entry, options } = await lazyEntry();
    volume.writeFileSync(FILE, '---\nname: writer\ndescription: "half\n---\n');
    await expect(loadSkillContent(entry, options.fs, resourceLimits(options))).rejects.toThrow(
      'SKILL.md of writer changed and cannot be read right now (unclosed double quote at line 3); try again in a moment',
    );
    volume.unlinkSync(FILE);
    await expect(loadSkillContent(entry, options.fs, resourceLimits(options))).rejects.toMatchObject({
      code: 'SKILLS_UNAVAILABLE',
      reason: 'unreadable',
      message: `${FILE} cannot be read any more (it does not exist)`,
    });
  });
});
