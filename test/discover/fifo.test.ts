/**
 * A SKILL.md that is a named pipe (or a link to one) must never be opened in
 * a way that waits for a writer: discovery would hang, and four such opens
 * would hold every libuv thread. Real FIFOs, made with mkfifo.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSkillHead } from '../../src/discover/head.js';
import { discover } from '../../src/discover/discover.js';
import { errorReason, nodeFileSystem, NOT_A_FILE, type SkillsFileSystem } from '../../src/base/fs.js';
import { resolveOptions } from '../../src/config/resolve.js';
import { cleanup, makeTempTree, skillMd } from './helpers.js';

const canMakeFifos = process.platform !== 'win32';
const fifos: string[] = [];
const roots: string[] = [];

function mkfifo(path: string): string {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
  return path;
}

afterEach(async () => {
  // If a read did block on a FIFO (the bug), open it for writing and close it: the blocked
  // open then returns, so the libuv thread it held is free again for the next test.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting (ENXIO): nothing is blocked on it.
    }
  }
  for (const root of roots.splice(0)) await cleanup(root);
});

/** A folder holding skills `good` and `other`, and `count` FIFO skills: half plain FIFOs, half links to one. */
async function libraryWithFifos(count: number): Promise<{ root: string; fifoFiles: string[] }> {
  const root = await makeTempTree({ 'skills/good/SKILL.md': skillMd('good'), 'skills/other/SKILL.md': skillMd('other') });
  roots.push(root);
  await mkdir(join(root, 'pipes'));
  const fifoFiles: string[] = [];
  for (let i = 0; i < count; i++) {
    const folder = join(root, 'skills', `piped-${i}`);
    await mkdir(folder);
    const file = join(folder, 'SKILL.md');
    if (i % 2 === 0) mkfifo(file);
    else await symlink(mkfifo(join(root, 'pipes', `pipe-${i}`)), file);
    fifoFiles.push(file);
  }
  return { root, fifoFiles };
}

describe.skipIf(!canMakeFifos)('a FIFO named SKILL.md', () => {
  it.each([false, true])('is reported unreadable while the other skills load (lazy: %s)', async (lazy) => {
    const { root, fifoFiles } = await libraryWithFifos(2);
    const result = await discover(resolveOptions({ directories: [join(root, 'skills')] }), { frontmatterOnly: lazy });
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['good', 'other']);
    expect(result.errors.map((e) => [e.code, relative(root, e.file)])).toEqual(
      fifoFiles.map((file) => ['SKILL_UNREADABLE', relative(root, file)]),
    );
    for (const error of result.errors) {
      expect(error.message).toBe(
        'cannot read SKILL.md: it is not a regular file (a pipe, socket or device). Make SKILL.md a regular file; the skill was not loaded.',
      );
    }
  });

  it('holds no libuv thread: with four FIFO skills being read, an unrelated fs call completes', async () => {
    const { root } = await libraryWithFifos(8);
    const plain = join(root, 'skills/good/SKILL.md');
    // Resolves once discovery has asked to read four of the linked FIFOs (links are opened; plain FIFOs never are).
    let startedFifoReads = 0;
    let fourStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (fourStarted = resolve));
    const watched: SkillsFileSystem = {
      ...nodeFileSystem,
      readFile(path, encoding) {
        const reading = nodeFileSystem.readFile(path, encoding);
        if (path.includes('piped-') && ++startedFifoReads === 4) fourStarted();
        return reading;
      },
    };
    const discovering = discover(resolveOptions({ directories: [join(root, 'skills')], fs: watched }));
    await started;
    // Node runs fs calls on 4 threads by default: a blocking open of each FIFO would hold them all.
    await expect(stat(plain)).resolves.toMatchObject({ size: (await readFile(plain)).length });
    const result = await discovering;
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['good', 'other']);
    expect(result.errors.map((e) => e.code)).toEqual(Array(8).fill('SKILL_UNREADABLE'));
  });

  it('nodeFileSystem reads refuse pipes, keep EISDIR for folders, and read regular files as fs does', async () => {
    const root = await makeTempTree();
    roots.push(root);
    const fifo = mkfifo(join(root, 'pipe'));
    await expect(nodeFileSystem.readFile(fifo, 'utf8')).rejects.toMatchObject({ code: NOT_A_FILE });
    await expect(readSkillHead(nodeFileSystem, fifo, { checkType: true })).rejects.toMatchObject({ code: NOT_A_FILE });
    // Without the check (the listing said "file"), a FIFO swapped in still cannot block: reading at a position fails.
    await expect(readSkillHead(nodeFileSystem, fifo)).rejects.toMatchObject({ code: 'ESPIPE' });
    expect(errorReason(Object.assign(new Error(), { code: 'ESPIPE' }))).toBe('it is not a regular file (a pipe)');
    await expect(nodeFileSystem.readFile(root, 'utf8')).rejects.toMatchObject({ code: 'EISDIR' });
    const text = `\ufeff---\nname: é😀\n---\n${'body line\n'.repeat(5000)}`;
    const file = join(root, 'SKILL.md');
    await writeFile(file, text);
    expect(await nodeFileSystem.readFile(file, 'utf8')).toBe(await readFile(file, 'utf8'));
    await writeFile(file, '');
    expect(await nodeFileSystem.readFile(file, 'utf8')).toBe('');
    await expect(nodeFileSystem.readFile(join(root, 'missing'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
