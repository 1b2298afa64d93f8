/**
 * The arguments of the signing commands (keygen, sign, verify): argv values
 * to typed arguments, or a SkillsUsageError (exit code 2) that says what to
 * give. args.ts parses the command line and hands their values here.
 */
import { SkillsUsageError } from '../config/errors.js';
import { SIGN_DEFAULTS } from '../config/defaults.js';
import { numberOf } from './arg-values.js';

/** Option values as node:util's parseArgs gives them. */
type Values = Readonly<Record<string, unknown>>;

/** `sisu-skills keygen <prefix>`. */
export interface KeygenArgs {
  /** Relative to the working directory; `.key` and `.pub` are added. */
  prefix: string;
}

/** `sisu-skills sign <place...> --key <file>`. */
export interface SignArgs {
  /** Folders, package folders or s3:// and az:// places, as given. */
  places: string[];
  /** The private key file; relative to the working directory. */
  key: string;
  /** How long a new manifest stays valid, in ms, and as given. */
  expiresInMs: number;
  expires: string;
  version?: number;
  renew: boolean;
  json: boolean;
}

/** `sisu-skills verify <place...> --key <file>...`. */
export interface VerifyArgs {
  places: string[];
  /** Public key files; relative to the working directory. */
  keys: string[];
  threshold: number;
  json: boolean;
}

export function keygenArgs(positionals: readonly string[]): KeygenArgs & { kind: 'keygen' } {
  const [prefix, ...extra] = positionals;
  if (prefix === undefined || prefix.trim() === '' || extra.length > 0)
    throw new SkillsUsageError('keygen: give one prefix, e.g. sisu-skills keygen keys/team (writes keys/team.key and keys/team.pub).');
  return { kind: 'keygen', prefix };
}

/** The places of sign and verify: at least one. */
function placesOf(command: 'sign' | 'verify', positionals: string[]): string[] {
  if (positionals.length === 0)
    throw new SkillsUsageError(
      `${command}: give at least one place: a skills folder, a package folder, s3://bucket/prefix/ or az://container/prefix/.`,
    );
  return positionals;
}

/** Every --key value given. */
export function keyFiles(value: unknown): string[] {
  return (Array.isArray(value) ? value : []).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

export function signArgs(positionals: string[], values: Values): SignArgs & { kind: 'sign' } {
  const places = placesOf('sign', positionals);
  const keys = keyFiles(values.key);
  if (keys.length !== 1)
    throw new SkillsUsageError(
      keys.length === 0
        ? 'sign: give the private key with --key <file> (make one with sisu-skills keygen <prefix>).'
        : `sign: --key given ${keys.length} times; one key signs per run (run sign again with the next key to add its signature).`,
    );
  const expires = typeof values.expires === 'string' ? values.expires : SIGN_DEFAULTS.expires;
  const version = numberOf('sign', 'version', values.version, { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true });
  return {
    kind: 'sign',
    places,
    key: keys[0] ?? '',
    expires,
    expiresInMs: durationOf(expires),
    ...(version === undefined ? {} : { version }),
    renew: values.renew === true,
    json: values.json === true,
  };
}

const DAY_MS = 86_400_000;
const DURATION_UNITS: Record<string, number> = { d: DAY_MS, h: 3_600_000, s: 1000 };

/** `30d`, `12h` or `90s`, in ms, from 1 s to SIGN_DEFAULTS.maxExpiresDays. */
function durationOf(text: string): number {
  const match = /^(\d+)([dhs])$/.exec(text.trim());
  const ms = match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0) : 0;
  if (ms < 1000 || ms > SIGN_DEFAULTS.maxExpiresDays * DAY_MS)
    throw new SkillsUsageError(
      `sign: --expires takes a whole number of days, hours or seconds such as 30d, 12h or 90s, from 1s to ${SIGN_DEFAULTS.maxExpiresDays}d; ` +
        `got ${JSON.stringify(text)}.`,
    );
  return ms;
}

export function verifyArgs(positionals: string[], values: Values): VerifyArgs & { kind: 'verify' } {
  const places = placesOf('verify', positionals);
  const keys = keyFiles(values.key);
  if (keys.length === 0) throw new SkillsUsageError('verify: give the public key to trust with --key <file.pub> (repeat it for several).');
  const threshold = numberOf('verify', 'threshold', values.threshold, { min: 1, max: keys.length, integer: true }) ?? 1;
  return { kind: 'verify', places, keys, threshold, json: values.json === true };
}
