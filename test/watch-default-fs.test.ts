/**
 * The default fs (nodeFileSystem) watches folders through the callback form
 * of node:fs `watch` (lighter than the async iterable: see
 * SkillsFileSystem.watchFolder), and a watch's 'error' reaches onError
 * instead of ending the process.
 */
import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { nodeFileSystem } from '../src/base/fs.js';
import { skillsMiddleware } from '../src/index.js';

let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'mw-skills-watch-default-'));
  for (const name of ['alpha', 'beta']) {
    await mkdir(join(temp, name));
    await writeFile(join(temp, name, 'SKILL.md'), `---\nname: ${name}\ndescription: A skill.\n---\n`);
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('nodeFileSystem.watchFolder', () => {
  it('is what the middleware watches with when no fs is given: one call per folder, never the async iterable', async () => {
    const watchFolder = vi.spyOn(nodeFileSystem as Required<typeof nodeFileSystem>, 'watchFolder');
    const watch = vi.spyOn(nodeFileSystem as Required<typeof nodeFileSystem>, 'watch');
    const middleware = skillsMiddleware({ directories: [temp], watch: true });
    try {
      await vi.waitFor(() => expect(watchFolder).toHaveBeenCalledTimes(3), { timeout: 10_000 });
      expect(watchFolder.mock.calls.map(([path]) => path).sort()).toEqual([temp, join(temp, 'alpha'), join(temp, 'beta')]);
      expect(watch).not.toHaveBeenCalled();
    } finally {
      await middleware.close();
    }
  });

  it("hands a watch's 'error' to onError, so it is never thrown from the event loop", () => {
    const errors: unknown[] = [];
    const handle = nodeFileSystem.watchFolder?.(
      temp,
      () => {},
      (error) => errors.push(error),
    );
    try {
      if (!(handle instanceof EventEmitter)) throw new Error('expected an FSWatcher');
      const failure = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      // With no 'error' listener, emit() throws it: in node, from the event loop, ending the process.
      expect(() => handle.emit('error', failure)).not.toThrow();
      expect(errors).toEqual([failure]);
    } finally {
      handle?.close();
    }
  });

  it('throws at once for a folder that cannot be watched, as the watcher expects', () => {
    expect(() =>
      nodeFileSystem.watchFolder?.(
        join(temp, 'missing'),
        () => {},
        () => {},
      ),
    ).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
