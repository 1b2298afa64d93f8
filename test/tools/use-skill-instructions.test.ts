/**
 * maxInstructionChars: a long SKILL.md body is cut at a line boundary and the
 * answer says how to read the rest, which read_skill_resource can then serve.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverSkills } from '../../src/discover/with-storage.js';
import { createReadResourceTool } from '../../src/tools/read-resource.js';
import { createUseSkillTool, renderActivation } from '../../src/tools/use-skill.js';
import type { Skill } from '../../src/base/model.js';

const lines = (count: number) => Array.from({ length: count }, (_, i) => `step ${i + 1}: ${'x'.repeat(40)}`).join('\n');

function skill(instructions: string, extra: Partial<Skill> = {}): Skill {
  return {
    metadata: { name: 'long', description: 'Long.' },
    instructions,
    path: '/s/long/SKILL.md',
    directory: '/s/long',
    resources: [],
    ...extra,
  };
}

describe('renderActivation with maxInstructionChars', () => {
  it('keeps a body within the limit whole', () => {
    const body = lines(10);
    expect(renderActivation(skill(body), { maxInstructionChars: body.length })).toContain(`${body}\n\n`);
    expect(renderActivation(skill(body), { maxInstructionChars: body.length })).not.toContain('Instructions cut');
  });

  it('cuts a longer body at the last line boundary within the limit, and says how to read the rest', () => {
    const body = lines(100);
    const text = renderActivation(skill(body, { instructionsLine: 5 }), { maxInstructionChars: 1000, readTool: 'read_skill_resource' });
    const kept = text.slice(text.indexOf('step 1:'), text.indexOf('\n\n[Instructions cut'));
    expect(kept.length).toBeLessThanOrEqual(1000);
    expect(kept.endsWith('x')).toBe(true);
    const keptLines = kept.split('\n').length;
    expect(text).toContain(`[Instructions cut here: ${keptLines} of 100 lines shown`);
    // Line 5 of SKILL.md is the body's first line, so the next unread line is 5 + keptLines.
    expect(text).toContain(`call read_skill_resource with {"skill_name":"long","path":"SKILL.md","offset":${5 + keptLines}}`);
    expect(text.trimEnd().endsWith('</skill>')).toBe(true);
  });

  it('cuts inside a single line longer than the limit; without a read tool it names the file', () => {
    const text = renderActivation(skill('y'.repeat(5000)), { maxInstructionChars: 100 });
    expect(text).toContain(`${'y'.repeat(100)}\n\n[Instructions cut here: 1 of 1 lines shown (100 of 5,000 characters`);
    expect(text).toContain('The rest is in /s/long/SKILL.md.]');
    const withTool = renderActivation(skill('y'.repeat(5000)), { maxInstructionChars: 100, readTool: 'read_skill_resource' });
    expect(withTool).toContain('call read_skill_resource with {"skill_name": "long", "path": "SKILL.md"} and read on past the text above');
  });
});

describe('a cut activation, read on through read_skill_resource', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('the offset it names is the first line it left out', async () => {
    root = await mkdtemp(join(tmpdir(), 'skills-cut-'));
    await mkdir(join(root, 'long'));
    await writeFile(join(root, 'long', 'SKILL.md'), `---\nname: long\ndescription: >-\n  A long one.\n---\n\n# Long\n${lines(200)}\n`);
    const { skills } = await discoverSkills({ directories: [root] });
    const use = createUseSkillTool(skills, { maxInstructionChars: 2000, readTool: 'read_skill_resource' });
    const answer = String(await use.handler({ skill_name: 'long' }, {}));
    const next = /call read_skill_resource with (\{.*?\})\.\]/.exec(answer)?.[1];
    expect(next).toBeDefined();
    const lastShown = /step (\d+): x+\n\n\[Instructions cut/.exec(answer)?.[1];
    const read = createReadResourceTool(skills);
    const rest = String(await read.handler(JSON.parse(next ?? '{}') as never, {}));
    expect(rest).toContain(`step ${Number(lastShown) + 1}: `);
    expect(rest).not.toContain(`step ${Number(lastShown)}: `);
  });
});
