/**
 * The per-file hash and agentskills.io RFC #358's per-skill digest: a known
 * answer computed by another implementation (Python's hashlib), order
 * independence, sensitivity to every byte and path, and paths sorted by
 * their UTF-8 bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, sha256Hex, skillDigest } from '../../src/trust/digest.js';

const FILES = [
  { path: 'SKILL.md', sha256: 'adf9196ae9caefca9f5f7df24725cc46f8ff673ba0733b043c0d5ce5d3f2bff7' },
  { path: 'scripts/run.py', sha256: '0ca9091eb4e31fb1ab24c8c5de92a08e4e5f402919f82ea3ca784f38534f03f3' },
  { path: 'references/été.md', sha256: '26a66b061e8f48f39927c312f25293959729eee95978e2892d49d3512a5cc092' },
];

describe('sha256Hex', () => {
  it('is the hex SHA-256 of the bytes (the same values as Python computed for FILES)', () => {
    expect(sha256Hex('---\nname: demo\ndescription: A demo.\n---\nBody.\n')).toBe(FILES[0]?.sha256);
    expect(sha256Hex(Uint8Array.of(0, 1, 255))).toBe(FILES[2]?.sha256);
  });
});

describe('skillDigest (RFC #358)', () => {
  it("matches Python's hashlib over relpath + 0x00 + raw sha256 + 0x0A, sorted by UTF-8 bytes, base64url unpadded", () => {
    expect(skillDigest(FILES)).toBe('sha256-E5fl7gdV0zvJW9ZcZXnvQS4HNcofBU9LbB9iu8rfoPQ');
  });

  const hexHash = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('hex'));
  const files = fc.uniqueArray(fc.record({ path: fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }), sha256: hexHash }), {
    minLength: 1,
    maxLength: 8,
    selector: (file) => file.path,
  });

  it('does not depend on the order the files are given in', () => {
    fc.assert(
      fc.property(
        files.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }))),
        ([list, shuffled]) => {
          expect(skillDigest(shuffled)).toBe(skillDigest(list));
        },
      ),
    );
  });

  it('changes when any file hash changes, or a file is renamed, added or removed', () => {
    fc.assert(
      fc.property(files, fc.nat(), hexHash, (list, pick, other) => {
        const at = pick % list.length;
        const target = list[at];
        fc.pre(target !== undefined && target.sha256 !== other);
        const changed = list.map((file, i) => (i === at ? { ...file, sha256: other } : file));
        expect(skillDigest(changed)).not.toBe(skillDigest(list));
        const renamed = list.map((file, i) => (i === at ? { ...file, path: `${file.path}~` } : file));
        fc.pre(!list.some((file) => file.path === `${target.path}~`));
        expect(skillDigest(renamed)).not.toBe(skillDigest(list));
        expect(skillDigest(list.filter((_, i) => i !== at))).not.toBe(skillDigest(list));
      }),
    );
  });
});

describe('compareCodePoints', () => {
  it('orders strings as their UTF-8 bytes do, surrogate pairs included (UTF-16 order would not)', () => {
    // U+FFFD is one code unit above the surrogates, yet below U+1F600 in code points and UTF-8 bytes.
    expect(compareCodePoints('\uFFFD', '😀')).toBeLessThan(0);
    expect('\uFFFD' < '😀').toBe(false);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
    );
  });
});
