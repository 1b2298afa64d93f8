/**
 * The `trust` option, checked at construction: its defaults, and every
 * mistake thrown as a SkillsConfigError naming the setting, with a fix (a
 * private key where a public one belongs above all).
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SkillsConfigError } from '../../src/config/errors.js';
import { resolveOptions } from '../../src/config/resolve.js';
import { keyPair } from '../helpers/trust.js';

const base = { directories: ['/skills'] };

function refusal(trust: unknown): SkillsConfigError {
  try {
    resolveOptions({ ...base, trust } as Parameters<typeof resolveOptions>[0]);
  } catch (error) {
    if (error instanceof SkillsConfigError) return error;
    throw error;
  }
  throw new Error('no error thrown');
}

describe('the trust option', () => {
  it('is undefined when not given, and fills in threshold 1 and mode enforce, frozen', () => {
    expect(resolveOptions(base).trust).toBeUndefined();
    const trust = resolveOptions({ ...base, trust: { keys: [keyPair(0).publicPem, keyPair(1).publicPem] } }).trust;
    expect(trust).toEqual({ keys: [keyPair(0).publicPem, keyPair(1).publicPem], threshold: 1, mode: 'enforce' });
    expect(Object.isFrozen(trust) && Object.isFrozen(trust?.keys)).toBe(true);
    expect(resolveOptions({ ...base, trust: { keys: [keyPair(0).publicPem], threshold: 1, mode: 'report' } }).trust?.mode).toBe('report');
  });

  it.each([
    ['a string', 'keys', 'trust', /must be an object such as \{ keys, threshold, mode \}, got the string "keys"/],
    ['no keys', {}, 'trust.keys', /must list at least one public key \(PEM text\), got undefined/],
    ['an empty list', { keys: [] }, 'trust.keys', /must list at least one public key/],
    ['a number key', { keys: [1] }, 'trust.keys[0]', /must be PEM text, got number 1/],
    [
      'a private key',
      { keys: [keyPair(0).privatePem] },
      'trust.keys[0]',
      /is a private key, where a public key belongs\. Give the public key/,
    ],
    ['text', { keys: ['hello'] }, 'trust.keys[0]', /is not a PEM public key/],
    [
      'a threshold above the keys',
      { keys: [keyPair(0).publicPem], threshold: 2 },
      'trust.threshold',
      /from 1 to the number of keys \(1\), got number 2/,
    ],
    ['a threshold of 0', { keys: [keyPair(0).publicPem], threshold: 0 }, 'trust.threshold', /got number 0/],
    ['another mode', { keys: [keyPair(0).publicPem], mode: 'warn' }, 'trust.mode', /must be 'enforce' or 'report', got the string "warn"/],
    ['an unknown setting', { keys: [keyPair(0).publicPem], key: 'x' }, 'trust.key', /is not a trust setting/],
  ])('refuses %s', (_, trust, option, message) => {
    const error = refusal(trust);
    expect(error.option).toBe(option);
    expect(error.message).toMatch(message);
  });

  it('refuses an RSA key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(refusal({ keys: [rsa] }).message).toMatch(
      /^`trust\.keys\[0\]` is an RSA key; manifests are signed with Ed25519 keys only\. Make an Ed25519 pair/,
    );
  });
});
