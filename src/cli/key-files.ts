/**
 * The key files `sign` and `verify` are given: read, checked (Ed25519, and
 * the right half of the pair), or refused as wrong usage (exit 2) with what
 * to give instead. A private key other users can read gets a warning.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { errorReason } from '../base/fs.js';
import { SkillsUsageError } from '../config/errors.js';
import { readPrivateKey, readPublicKey, type KeyRead, type SigningKey, type TrustedKey } from '../trust/keys.js';
import { displayPath, type CliIO } from './io.js';

async function keyText(command: 'sign' | 'verify' | 'index', path: string, shown: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new SkillsUsageError(`${command}: cannot read the key file ${shown} (${errorReason(error)}).`);
  }
}

function keyOf<T>(command: 'sign' | 'verify' | 'index', read: KeyRead<T>, shown: string): T {
  if (read.ok) return read.key;
  throw new SkillsUsageError(`${command}: --key ${shown} ${read.problem}. ${read.hint}`);
}

/** The private key `sign` (or `index --key`) signs with. */
export async function signingKeyFile(file: string, io: CliIO, command: 'sign' | 'index' = 'sign'): Promise<SigningKey> {
  const path = resolve(io.cwd, file);
  const shown = displayPath(path, io.cwd);
  const key = keyOf(command, readPrivateKey(await keyText(command, path, shown)), shown);
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0)
    io.err(`${command}: warning: ${shown} can be read by other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${shown}.`);
  return key;
}

/** The public keys `verify` trusts, one per file given. */
export async function trustedKeyFiles(files: readonly string[], io: CliIO): Promise<TrustedKey[]> {
  const keys: TrustedKey[] = [];
  for (const file of files) {
    const path = resolve(io.cwd, file);
    const shown = displayPath(path, io.cwd);
    keys.push(keyOf('verify', readPublicKey(await keyText('verify', path, shown)), shown));
  }
  return keys;
}
