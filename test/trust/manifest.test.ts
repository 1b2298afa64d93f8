/**
 * The manifest's layout and its hostile-input limits: a manifest sign writes
 * reads back as written; every refusal is MANIFEST_INVALID with a message
 * naming what is wrong (size before parsing, layout, JSON, envelope fields,
 * paths with .., absolute, s3:// or backslash, duplicates, order, hash
 * lengths); and any one byte changed in a signed manifest is caught, by the
 * parser or by the signature.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES } from '../../src/trust/format.js';
import { manifestPathProblem, parseManifest, pathProblemByRule, serializeBody, serializeManifest } from '../../src/trust/manifest.js';
import { signBody } from '../../src/trust/sign.js';
import { verifyManifest } from '../../src/trust/verify.js';
import { hex, keyPair, observed, signedManifest } from '../helpers/trust.js';

const SKILLS = [
  observed('pdf', { 'SKILL.md': '---\nname: pdf\n---\nPDF.\n', 'scripts/fill.py': 'print(1)\n' }),
  observed('docs/review', { 'SKILL.md': '---\nname: review\n---\nReview.\n' }),
];

const H = hex('x');
const DIGEST = `sha256-${'A'.repeat(43)}`;
const SKILL = { path: 'pdf', digest: DIGEST, frontmatter: H, files: [['SKILL.md', 1, H]] };
const BODY = {
  format: 'sisu-skills-manifest/1',
  version: 1,
  created: '2026-01-01T00:00:00.000Z',
  expires: '2026-02-01T00:00:00.000Z',
  skills: [SKILL],
};

/** A manifest whose body is `body` as JSON (one line), signed, so only the parser's checks can refuse it. */
function withBody(body: unknown): string {
  const text = JSON.stringify(body);
  return serializeManifest(text, [signBody(text, keyPair().signing)]);
}

function problemOf(text: string | Uint8Array): string {
  const read = parseManifest(text);
  expect(read.ok).toBe(false);
  if (read.ok) return '';
  expect(read.code).toBe('MANIFEST_INVALID');
  return read.message;
}

describe('manifest layout', () => {
  it('reads back what sign writes: body bytes, signatures, skills sorted with their files', () => {
    const text = signedManifest(SKILLS, { version: 4 });
    const read = parseManifest(text);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.manifest.body.version).toBe(4);
    expect(read.manifest.body.skills.map((skill) => skill.path)).toEqual(['docs/review', 'pdf']);
    expect(read.manifest.body.skills[1]?.files.map(([path]) => path)).toEqual(['SKILL.md', 'scripts/fill.py']);
    expect(text.split('\n')[0]).toMatch(/^\{"signatures":\[\{"keyid":"[0-9a-f]{64}","sig":"[^"]+"\}\],"signed":$/);
    // One skill a line, so a diff of two versions reads skill by skill; the whole file is one JSON document.
    expect(text.split('\n')).toHaveLength(7);
    expect(JSON.parse(text)).toMatchObject({ signed: { version: 4 } });
    expect(serializeManifest(read.manifest.bodyText, read.manifest.signatures)).toBe(text);
    expect(serializeBody(read.manifest.body)).toBe(read.manifest.bodyText);
    // Bytes read as they are on disk, and without the final line break, read the same; bytes keep the body's own.
    expect(parseManifest(text.slice(0, -1))).toEqual(read);
    for (const bytes of [Buffer.from(text), Buffer.from(text.slice(0, -1))]) {
      const fromBytes = parseManifest(bytes);
      if (!fromBytes.ok) throw new Error(fromBytes.message);
      const { bodyBytes, ...rest } = fromBytes.manifest;
      expect({ ok: true, manifest: rest }).toEqual(read);
      expect(Buffer.from(bodyBytes ?? []).equals(Buffer.from(read.manifest.bodyText))).toBe(true);
    }
  });

  it("keeps the body's bytes exactly as read, past ASCII and after a byte order mark", () => {
    const text = signedManifest([observed('é/ü', { 'SKILL.md': '---\nname: u\n---\n', '😀.md': 'x' })]);
    for (const bytes of [Buffer.from(text), Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from(text)])]) {
      const read = parseManifest(bytes);
      if (!read.ok) throw new Error(read.message);
      expect(Buffer.from(read.manifest.bodyBytes ?? []).equals(Buffer.from(read.manifest.bodyText))).toBe(true);
      expect(read.manifest.body.skills.map((skill) => skill.path)).toEqual(['é/ü']);
    }
  });

  it('refuses a manifest over the size limit before parsing it (100 MB)', () => {
    const big = Buffer.alloc(100 * 1024 * 1024, 0x20);
    expect(problemOf(big)).toMatch(/is 104857600 bytes, over the 33554432-byte limit for a manifest; it was not read/);
    expect(problemOf(' '.repeat(MAX_MANIFEST_BYTES + 1))).toMatch(/over the 33554432-byte limit/);
  });

  it.each([
    ['not JSON at all', '{oops', /is not a signed skills manifest/],
    ['one line of JSON', JSON.stringify({ signatures: [], signed: BODY }), /is not a signed skills manifest/],
    ['another first line', `{"signed":\n${JSON.stringify(BODY)}\n}\n`, /is not a signed skills manifest/],
    ['text after the body', `${withBody(BODY)}\n{}`, /is not a signed skills manifest/],
    ['bad JSON in the signatures', `{"signatures":[,"signed":\n${JSON.stringify(BODY)}\n}\n`, /has a signatures line that is not JSON/],
    [
      'bad JSON in the body',
      serializeManifest('{"format":', [{ keyid: H, sig: `${'A'.repeat(86)}==` }]),
      /has a signed part that is not JSON/,
    ],
    ['no signatures', serializeManifest(JSON.stringify(BODY), []), /signatures: Array must contain at least 1/],
    [
      'a short key id',
      serializeManifest(JSON.stringify(BODY), [{ keyid: 'abc', sig: `${'A'.repeat(86)}==` }]),
      /signatures\.0\.keyid: a key id is 64/,
    ],
    [
      'a short signature',
      serializeManifest(JSON.stringify(BODY), [{ keyid: H, sig: 'AAAA' }]),
      /signatures\.0\.sig: an Ed25519 signature is 64 bytes/,
    ],
    [
      'a signature spelled with unused bits set',
      serializeManifest(JSON.stringify(BODY), [{ keyid: H, sig: `${'A'.repeat(85)}B==` }]),
      /canonical base64/,
    ],
    [
      '17 signatures',
      serializeManifest(
        JSON.stringify(BODY),
        Array.from({ length: 17 }, () => ({ keyid: H, sig: `${'A'.repeat(86)}==` })),
      ),
      /Array must contain at most 16/,
    ],
  ])('refuses %s', (_, text, message) => {
    expect(problemOf(text)).toMatch(message);
  });

  it('refuses bytes that are not UTF-8', () => {
    const text = Buffer.from(withBody(BODY));
    const bad = Buffer.concat([text.subarray(0, text.indexOf('pdf')), Buffer.of(0xff), text.subarray(text.indexOf('pdf') + 1)]);
    expect(problemOf(bad)).toMatch(/is not UTF-8 text/);
  });
});

describe('manifest fields', () => {
  const skill = (change: Record<string, unknown>) => withBody({ ...BODY, skills: [{ ...SKILL, ...change }] });
  const file = (entry: unknown) => skill({ files: [['SKILL.md', 1, H], entry] });
  it.each([
    ['another format', withBody({ ...BODY, format: 'sisu-skills-manifest/2' }), /signed\.format: Invalid literal value/],
    ['a version of 0', withBody({ ...BODY, version: 0 }), /signed\.version: Number must be greater than or equal to 1/],
    ['a fractional version', withBody({ ...BODY, version: 1.5 }), /signed\.version: Expected integer/],
    ['a date without a zone', withBody({ ...BODY, expires: '2026-02-01T00:00:00' }), /signed\.expires: an ISO 8601 UTC time/],
    ['an impossible date', withBody({ ...BODY, expires: '2026-02-31T99:00:00Z' }), /signed\.expires: a real date/],
    [
      'expiry before creation',
      withBody({ ...BODY, expires: '2025-01-01T00:00:00Z' }),
      /expires \(2025-01-01T00:00:00Z\) before it was created/,
    ],
    ['an unknown field', withBody({ ...BODY, extra: 1 }), /Unrecognized key\(s\) in object: 'extra'/],
    ['a skill that is not an object', withBody({ ...BODY, skills: ['pdf'] }), /signed\.skills\.0: a skill entry is an object/],
    ['an unknown skill field', skill({ owner: 'me' }), /unknown field "owner"/],
    ['a skill path with ..', skill({ path: '../etc' }), /\.path: a path has no \. or \.\. parts/],
    ['an absolute skill path', skill({ path: '/etc/skills' }), /no leading, trailing or doubled \//],
    ['an s3:// skill path', skill({ path: 's3://bucket/pdf' }), /never a URL \(s3:\/\/\.\.\.\) or a drive/],
    ['a drive', skill({ path: 'C:/skills' }), /never a URL/],
    ['a backslash', skill({ path: 'a\\b' }), /never \\/],
    ['a control character', skill({ path: 'a\nb' }), /no control characters/],
    ['an empty path', skill({ path: '' }), /a path must be a non-empty string/],
    ['a path too long', skill({ path: 'a'.repeat(1025) }), /at most 1024 characters/],
    ['a short frontmatter hash', skill({ frontmatter: 'abc' }), /\.frontmatter: a SHA-256 is 64 lowercase hex/],
    ['an uppercase hash', skill({ frontmatter: H.toUpperCase() }), /\.frontmatter: a SHA-256 is 64 lowercase hex/],
    ['a hex digest', skill({ digest: `sha256:${H}` }), /\.digest: an RFC #358 digest/],
    ['no files', skill({ files: [] }), /\.files: a skill lists its files/],
    ['no SKILL.md', skill({ files: [['a.md', 1, H]] }), /\.files: a skill lists its SKILL\.md/],
    ['a file as an object', file({ path: 'a.md', size: 1, sha256: H }), /\.files\.1: a file entry is \[path, size, sha256\]/],
    ['a file path with ..', file(['../../x', 1, H]), /\.files\.1: a path has no \. or \.\. parts/],
    ['an s3:// file path', file(['s3://b/k', 1, H]), /\.files\.1: .*never a URL/],
    ['an absolute file path', file(['/etc/passwd', 1, H]), /\.files\.1: .*no leading/],
    ['a file path of .', file(['.', 1, H]), /\.files\.1: a path has no \. or \.\. parts/],
    ['a negative size', file(['b.md', -1, H]), /\.files\.1: a size is a whole number of bytes/],
    ['a 63-character hash', file(['b.md', 1, H.slice(1)]), /\.files\.1: a SHA-256 is 64 lowercase hex/],
    ['a 65-character hash', file(['b.md', 1, `${H}0`]), /\.files\.1: a SHA-256 is 64 lowercase hex/],
    ['a duplicate file', file(['SKILL.md', 2, H]), /\.files\.1: duplicate file entry "SKILL\.md"/],
    [
      'files out of order',
      skill({
        files: [
          ['b.md', 1, H],
          ['SKILL.md', 1, H],
        ],
      }),
      /file entries must be sorted by path: "SKILL\.md" comes after "b\.md"/,
    ],
    ['a duplicate skill', withBody({ ...BODY, skills: [SKILL, SKILL] }), /signed\.skills\.1\.path: duplicate skill entry "pdf"/],
    ['skills out of order', withBody({ ...BODY, skills: [SKILL, { ...SKILL, path: 'a' }] }), /skill entries must be sorted by path/],
  ])('refuses %s', (_, text, message) => {
    expect(problemOf(text)).toMatch(message);
  });

  it('accepts a place that is itself a skill (path "."), and says every refusal with how to fix it', () => {
    expect(parseManifest(skill({ path: '.' })).ok).toBe(true);
    expect(problemOf(skill({ path: '..' }))).toMatch(/Sign the place again with `sisu-skills sign`\.$/);
    expect(manifestPathProblem('scripts/run.py', 'file')).toBeUndefined();
    expect(manifestPathProblem('.', 'file')).toBeDefined();
  });
});

describe('paths, at random', () => {
  it('the one-regex fast path accepts exactly what the rules one by one accept', () => {
    const part = fc.constantFrom(
      'a',
      'b.md',
      '.',
      '..',
      '...',
      '.x',
      '',
      ':',
      'c:',
      's3:',
      '\\',
      '\u0000',
      '\u001f',
      '\u007f',
      'é',
      '\u{1F600}',
      ' ',
    );
    const path = fc
      .array(part, { minLength: 1, maxLength: 5 })
      .chain((parts) =>
        fc
          .array(fc.constantFrom('/', '//', ''), { minLength: parts.length - 1, maxLength: parts.length - 1 })
          .map((seps) => parts.reduce<string>((joined, p, i) => joined + (i > 0 ? (seps[i - 1] ?? '/') : '') + p, '')),
      );
    fc.assert(
      fc.property(path, fc.constantFrom('skill' as const, 'file' as const), (candidate, kind) => {
        expect(manifestPathProblem(candidate, kind)).toBe(pathProblemByRule(candidate, kind));
      }),
      { numRuns: 3000 },
    );
    expect(manifestPathProblem('a'.repeat(1025), 'file')).toMatch(/at most 1024 characters/);
    expect(manifestPathProblem('.', 'skill')).toBeUndefined();
    expect(manifestPathProblem('.', 'file')).toMatch(/no \. or \.\. parts/);
  });
});

describe('tampering, at random', () => {
  it('any one byte changed in a signed manifest is refused: by the parser, or as signed by no trusted key', () => {
    const text = Buffer.from(signedManifest(SKILLS));
    const policy = { keys: [keyPair().trusted], threshold: 1, now: Date.UTC(2026, 0, 2) };
    expect(verifyManifest(text, policy).ok).toBe(true);
    fc.assert(
      fc.property(fc.nat({ max: text.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, delta) => {
        const changed = Buffer.from(text);
        changed[at] = ((changed[at] ?? 0) + delta) % 256;
        const read = verifyManifest(changed, policy);
        // Every byte is layout, a key id, the signature (one spelling only) or the signed body.
        expect(read.ok).toBe(false);
        if (!read.ok) expect(read.code).toBe('MANIFEST_INVALID');
      }),
      { numRuns: 1000 },
    );
  });
});
