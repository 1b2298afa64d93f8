/**
 * Replace a file all at once: the text goes to a temporary file in the same
 * folder, is flushed to disk, and is renamed over the target. A reader (a
 * middleware starting while `sisu-skills index` runs) sees the old file or the
 * new one, never half of one; on any failure the target is left as it was and
 * the temporary file is removed. Throws the first failure.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorCode } from '../base/fs.js';

/** The calls made, so tests can make one of them fail. */
export interface AtomicWriteFs {
  mkdir: typeof mkdir;
  open: typeof open;
  rename: typeof rename;
  unlink: typeof unlink;
}

const nodeFs: AtomicWriteFs = { mkdir, open, rename, unlink };

/**
 * Where the text goes first: beside the target (a rename within one file system
 * is atomic; across two it fails) and hidden. The target's name, cut short so a
 * long one still leaves room, says whose it is if a crash leaves it behind.
 */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path).slice(0, 100)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

export async function writeFileAtomically(path: string, text: string | Uint8Array, fs: AtomicWriteFs = nodeFs): Promise<void> {
  // `-o build/skills.index` in a fresh checkout: the folder may not exist yet.
  try {
    await fs.mkdir(dirname(path), { recursive: true });
  } catch (error) {
    // mkdir -p says EEXIST when a file stands where a folder should be: that is ENOTDIR to whoever reads the reason.
    if (errorCode(error) !== 'EEXIST') throw error;
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dirname(path)}'`), { code: 'ENOTDIR', cause: error });
  }
  const temporary = temporaryPathFor(path);
  // `wx`: never write through a file someone else put there.
  const handle = await fs.open(temporary, 'wx');
  try {
    try {
      await (typeof text === 'string' ? handle.writeFile(text, 'utf8') : handle.writeFile(text));
      // Flushed before the rename, so a crash right after cannot leave an empty file under the target's name.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, path);
  } catch (error) {
    await fs.unlink(temporary).catch(() => undefined);
    throw error;
  }
}
