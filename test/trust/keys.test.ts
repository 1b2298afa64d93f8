/**
 * Keys: a generated pair reads back (private to sign, public to trust) with
 * the same id, the id is the SHA-256 of the SPKI bytes, and every key that
 * cannot serve where it is given is refused with a problem and a hint: a
 * private key where a public one belongs, a public key given to sign, an
 * RSA or EC key, an encrypted key, text that is no key.
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningKeys, keyIdOf, readPrivateKey, readPublicKey } from '../../src/trust/keys.js';

describe('keys', () => {
  it('makes an Ed25519 pair whose halves read back with one id: the hex SHA-256 of the SPKI DER', () => {
    const made = generateSigningKeys();
    expect(made.privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(made.publicPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const der = createPublicKey(made.publicPem).export({ type: 'spki', format: 'der' });
    expect(made.id).toBe(createHash('sha256').update(der).digest('hex'));
    const signing = readPrivateKey(made.privatePem);
    const trusted = readPublicKey(made.publicPem);
    expect(signing.ok && signing.key.id).toBe(made.id);
    expect(trusted.ok && trusted.key.id).toBe(made.id);
    expect(keyIdOf(createPublicKey(made.privatePem))).toBe(made.id);
    expect(generateSigningKeys().id).not.toBe(made.id);
  });

  it('refuses a private key where a public key belongs, saying to rotate it', () => {
    const read = readPublicKey(generateSigningKeys().privatePem);
    expect(read).toMatchObject({ ok: false, problem: 'is a private key, where a public key belongs' });
    expect(!read.ok && read.hint).toMatch(/treat this one as exposed, make a new pair/);
  });

  it('refuses a public key given to sign', () => {
    expect(readPrivateKey(generateSigningKeys().publicPem)).toMatchObject({
      ok: false,
      problem: 'is a public key; signing needs the private key',
    });
  });

  it.each([
    ['rsa', generateKeyPairSync('rsa', { modulusLength: 1024 }), 'an RSA key'],
    ['ec', generateKeyPairSync('ec', { namedCurve: 'P-256' }), 'an EC key'],
    ['ed448', generateKeyPairSync('ed448'), 'an ED448 key'],
  ])('refuses an %s key on both sides', (_, pair, kind) => {
    const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(readPublicKey(publicPem)).toMatchObject({ ok: false, problem: `is ${kind}; manifests are signed with Ed25519 keys only` });
    expect(readPrivateKey(privatePem)).toMatchObject({ ok: false, problem: `is ${kind}; manifests are signed with Ed25519 keys only` });
  });

  it('refuses text that is no key, and an encrypted private key', () => {
    expect(readPublicKey('hello')).toMatchObject({ ok: false, problem: expect.stringMatching(/^is not a PEM public key \(/) as string });
    expect(readPrivateKey('hello')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^is not an unencrypted PEM private key/) as string,
    });
    const { privateKey } = generateKeyPairSync('ed25519');
    const encrypted = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }).toString();
    expect(readPrivateKey(encrypted)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^is not an unencrypted PEM private key/) as string,
    });
  });
});
