/**
 * The `trust` option: the public keys whose signatures a place's
 * `skills.manifest.json` needs (docs/signing.md), how many of them, and
 * whether to refuse what is not verified or only report it. Checked once at
 * construction: a key that is no Ed25519 public key (a private key above
 * all) throws with how to fix it.
 */
import { readPublicKey } from '../trust/keys.js';
import { TRUST_DEFAULTS } from './defaults.js';
import { describeValue, failOption } from './errors.js';

export type TrustMode = 'enforce' | 'report';

export interface TrustOptions {
  /** Public keys (SPKI PEM text, as `sisu-skills keygen` writes `<prefix>.pub`) whose signatures count. Several during a key rotation. */
  keys: readonly string[];
  /**
   * Distinct trusted keys that must have signed a place's manifest.
   * @default 1
   */
  threshold?: number;
  /**
   * `enforce`: nothing unverified is served (a skill left out, a file refused, a place's skills all left out when its
   * manifest cannot be trusted). `report`: everything is served, and the same diagnostics and events say what would be refused.
   * @default 'enforce'
   */
  mode?: TrustMode;
}

export interface ResolvedTrust {
  /** The keys' PEM text, each checked to be an Ed25519 public key. */
  keys: readonly string[];
  threshold: number;
  mode: TrustMode;
}

const EXAMPLE = "trust: { keys: [readFileSync('keys/team.pub', 'utf8')] }";

/** `trust`, checked; undefined when not given (nothing is verified). */
export function checkTrust(value: unknown): ResolvedTrust | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    failOption('trust', `must be an object such as { keys, threshold, mode }, got ${describeValue(value)}.`, `Example: ${EXAMPLE}.`);
  const { keys, threshold, mode, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) failOption(`trust.${unknown}`, 'is not a trust setting.', 'The settings are keys, threshold and mode.');
  const checkedKeys = checkKeys(keys);
  return {
    keys: checkedKeys,
    threshold: checkThreshold(threshold, checkedKeys.length),
    mode: checkMode(mode),
  };
}

function checkKeys(keys: unknown): string[] {
  if (!Array.isArray(keys) || keys.length === 0)
    failOption('trust.keys', `must list at least one public key (PEM text), got ${describeValue(keys)}.`, `Example: ${EXAMPLE}.`);
  return keys.map((key: unknown, i) => {
    if (typeof key !== 'string') failOption(`trust.keys[${i}]`, `must be PEM text, got ${describeValue(key)}.`, `Example: ${EXAMPLE}.`);
    const read = readPublicKey(key);
    if (!read.ok) failOption(`trust.keys[${i}]`, `${read.problem}.`, read.hint);
    return key;
  });
}

function checkThreshold(threshold: unknown, keys: number): number {
  if (threshold === undefined) return Math.min(TRUST_DEFAULTS.threshold, keys);
  if (typeof threshold !== 'number' || !Number.isInteger(threshold) || threshold < 1 || threshold > keys)
    failOption(
      'trust.threshold',
      `must be a whole number from 1 to the number of keys (${keys}), got ${describeValue(threshold)}.`,
      'It counts distinct trusted keys that must have signed a manifest.',
    );
  return threshold;
}

function checkMode(mode: unknown): 'enforce' | 'report' {
  if (mode === undefined) return TRUST_DEFAULTS.mode;
  if (mode !== 'enforce' && mode !== 'report')
    failOption(
      'trust.mode',
      `must be 'enforce' or 'report', got ${describeValue(mode)}.`,
      "'report' serves everything and says what 'enforce' would refuse.",
    );
  return mode;
}
