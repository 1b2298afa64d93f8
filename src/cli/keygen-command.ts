/**
 * `sisu-skills keygen <prefix>`: an Ed25519 pair for signing libraries,
 * `<prefix>.key` (PKCS#8 PEM, created with mode 600 so no other user can
 * read it, even for a moment) and `<prefix>.pub` (SPKI PEM). Never
 * overwrites either: a key someone relies on must not be replaced by a typo.
 */
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { errorReason } from '../base/fs.js';
import { generateSigningKeys } from '../trust/keys.js';
import type { KeygenArgs } from './args.js';
import { displayPath, EXIT, type CliIO } from './io.js';

/** Writes `text` to a new file `path` (never through an existing one) with `mode`. */
async function writeNew(path: string, text: string, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function keygenCommand(args: KeygenArgs, io: CliIO): Promise<number> {
  const base = resolve(io.cwd, args.prefix);
  const privatePath = `${base}.key`;
  const publicPath = `${base}.pub`;
  for (const path of [privatePath, publicPath]) {
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    ) {
      io.err(
        `sisu-skills: keygen: ${displayPath(path, io.cwd)} already exists; nothing was written. Choose another prefix, or move the old pair away first.`,
      );
      return EXIT.problems;
    }
  }
  const keys = generateSigningKeys();
  try {
    await mkdir(dirname(base), { recursive: true });
    await writeNew(privatePath, keys.privatePem, 0o600);
    try {
      await writeNew(publicPath, keys.publicPem, 0o644);
    } catch (error) {
      // Half a pair is no use: the private key goes too.
      await unlink(privatePath).catch(() => undefined);
      throw error;
    }
  } catch (error) {
    io.err(
      `sisu-skills: keygen: cannot write ${displayPath(base, io.cwd)}.key/.pub (${errorReason(error)}). Give a prefix in a folder you can write to.`,
    );
    return EXIT.problems;
  }
  io.out(`Wrote ${displayPath(privatePath, io.cwd)} (private key, mode 600: keep it secret, e.g. in your CI secret store).`);
  io.out(
    `Wrote ${displayPath(publicPath, io.cwd)} (public key: put it in your app's trust.keys, and give it to sisu-skills verify --key).`,
  );
  io.out(`Key id: ${keys.id}`);
  return EXIT.ok;
}
