import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSecretMatcher } from '../src/config/secrets.js';
import { DEFAULT_SECRET_PATTERNS } from '../src/config/defaults.js';

describe('createSecretMatcher', () => {
  const isSecret = createSecretMatcher();

  it('has the documented defaults', () => {
    expect(DEFAULT_SECRET_PATTERNS).toEqual(['.env*', '*.pem', '*.key', 'id_rsa*', 'credentials*', 'secrets*']);
  });

  it.each([
    '.env',
    '.env.local',
    '.ENV.production',
    'server.pem',
    'SERVER.PEM',
    'tls/private.key',
    'id_rsa',
    'id_rsa.pub',
    'ID_RSA',
    'credentials',
    'credentials.json',
    'Credentials.yaml',
    'secrets',
    'secrets.yaml',
    'SECRETS/plain.txt',
    'deep/secrets/x/y.md',
    'a\\secrets\\b.txt',
    // Lookalikes and Windows spellings of the same names.
    '\uff0eenv',
    'server.pem.',
    'credentials ',
  ])('%s is a secret', (path) => {
    expect(isSecret(path)).toBe(true);
  });

  it.each(['README.md', 'env.example', 'keys.md', 'pem-notes.txt', 'my-credentials.md', 'key', 'scripts/deploy.sh', 'environment.md'])(
    '%s is not',
    (path) => {
      expect(isSecret(path)).toBe(false);
    },
  );

  it('extends the defaults with user patterns (never replaces them), case-insensitively, with * and ?', () => {
    const custom = createSecretMatcher(['*.p12', 'token?.txt', 'Vault']);
    expect(custom('certs/client.P12')).toBe(true);
    expect(custom('token1.txt')).toBe(true);
    expect(custom('token12.txt')).toBe(false);
    expect(custom('vault/readme.md')).toBe(true);
    expect(custom('.env')).toBe(true);
    // Regex characters in patterns are literal.
    expect(createSecretMatcher(['a+b(c).txt'])('A+B(C).TXT')).toBe(true);
    expect(createSecretMatcher(['a+b(c).txt'])('aab(c).txt')).toBe(false);
    // Alternation is literal too: one pattern cannot widen the combined expression.
    expect(createSecretMatcher(['a|b'])('a')).toBe(false);
    expect(createSecretMatcher(['a|b'])('A|B')).toBe(true);
  });

  it('each matcher holds its own patterns (the middleware keeps one per options: test/secret-matcher-count.test.ts)', () => {
    const other = createSecretMatcher(['*.jks']);
    expect(other('store.jks')).toBe(true);
    expect(createSecretMatcher(['*.p12'])('store.jks')).toBe(false);
    expect(createSecretMatcher()('store.jks')).toBe(false);
  });

  it('any path with a secret segment is a secret, wherever the segment is', () => {
    const safe = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}\.(md|txt|sh)$/);
    const secret = fc.constantFrom('.env', 'id_rsa', 'x.pem', 'y.key', 'credentials', 'secrets.json');
    fc.assert(
      fc.property(fc.array(safe, { maxLength: 4 }), secret, fc.array(safe, { maxLength: 4 }), (before, middle, after) => {
        expect(isSecret([...before, middle, ...after].join('/'))).toBe(true);
        expect(isSecret([...before, ...after].join('/'))).toBe(false);
      }),
    );
  });
});
