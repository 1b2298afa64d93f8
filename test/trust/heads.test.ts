/**
 * A scan under `trust` judges each SKILL.md's head by the hash of the bytes
 * it read (discover/trusted.ts headBytesSha256, readSkillHead's `onHead`), not
 * by finding the head again in the text and encoding it again: the same
 * verdicts either way. Bytes that are not UTF-8 are judged by the text the
 * model would see (as before: refused), and a file without a closing fence
 * (its whole text its head; no skill, but judged all the same) from the text.
 * Heads hashed by the end of the walk are judged in one pass (judgeHeads), and
 * readCandidate takes that verdict in place of judging the text.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDiagnostic } from '../../src/base/diagnostics.js';
import { nodeFileSystem } from '../../src/base/fs.js';
import { readCandidate } from '../../src/discover/candidates.js';
import { readSkillHead } from '../../src/discover/head.js';
import { headBytesSha256, headSha256 } from '../../src/discover/trusted.js';
import { folderPlace, LIBRARY, sign, trustedSession } from '../helpers/tamper.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe("a head's hash from the bytes read", () => {
  it('is the hash of the very bytes the head text is decoded from, or none when they are not UTF-8', async () => {
    const place = await folderPlace();
    const file = join(place.signArg, 'alpha', 'SKILL.md');
    const seen: Uint8Array[] = [];
    const text = await readSkillHead(nodeFileSystem, file, {}, (head) => seen.push(Buffer.from(head)));
    expect(seen).toHaveLength(1);
    expect(Buffer.from(seen[0] ?? []).toString('utf8')).toBe(text);
    expect(headBytesSha256(seen[0] ?? new Uint8Array())).toBe(headSha256(text));
    expect(headBytesSha256(Buffer.from('---\nname: é\n---\n'))).toBe(sha256(Buffer.from('---\nname: é\n---\n')));
    expect(headBytesSha256(Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0x0a]))).toBeUndefined();
    // No closing fence: the whole file is the head, and no bytes are given (the text is judged).
    await writeFile(file, '---\nname: alpha\n');
    const none: Uint8Array[] = [];
    expect(await readSkillHead(nodeFileSystem, file, {}, (head) => none.push(head))).toBe('---\nname: alpha\n');
    expect(none).toEqual([]);
  });

  it('serves the signed library, and refuses a signed head that is not UTF-8 (the text the model would see is not the signed bytes)', async () => {
    const place = await folderPlace();
    const gamma = join(place.signArg, 'group', 'gamma', 'SKILL.md');
    const signedGamma = Buffer.from((LIBRARY['group/gamma/SKILL.md'] ?? '').replace('Gamma plans', 'Gamma \u00ff plans'), 'utf8');
    // 0xff alone, where UTF-8 needs two bytes: signed as it is on disk.
    const notUtf8 = Buffer.from(signedGamma.toString('latin1').replace('\u00c3\u00bf', '\u00ff'), 'latin1');
    await writeFile(gamma, notUtf8);
    await sign(place);
    const live = trustedSession(place);
    const turn = await live.turn('hello', []);
    expect(turn.skills).toEqual(['alpha', 'beta']);
    expect(turn.system).not.toContain('Gamma');
    expect(live.diagnostics).toEqual([expect.stringMatching(/^UNTRUSTED_SKILL .*gamma[/\\]SKILL\.md$/)]);
  });
});

describe('a verdict given from the head, before the rest of the file is read', () => {
  const location = { root: '/lib', directory: '/lib/a', realDirectory: '/lib/a', file: '/lib/a/SKILL.md', fileType: 'file' as const };
  const context = { strict: false, frontmatterOnly: true, origin: undefined };
  const diagnostic = createDiagnostic('UNTRUSTED_SKILL', location.file, 'its frontmatter is not the signed one');

  it('is used in place of judging the text: a dropped skill is not parsed, a vouched one is', async () => {
    const text = '---\nname: a\ndescription: A.\n---\n';
    const judge = () => {
      throw new Error('judged again');
    };
    const dropped = await readCandidate(Promise.resolve(text), location, { ...context, judge, judged: { drop: true, diagnostic } });
    expect(dropped.metadata).toBeUndefined();
    expect(dropped.diagnostics).toEqual([diagnostic]);
    const kept = await readCandidate(Promise.resolve(text), location, { ...context, judge, judged: { drop: false } });
    expect(kept.metadata?.name).toBe('a');
  });

  it('keeps its diagnostic when the file then cannot be read', async () => {
    const failed = Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
    const read = await readCandidate(Promise.reject(failed), location, { ...context, judged: { drop: true, diagnostic } });
    expect(read.diagnostics.map((d) => d.code)).toEqual(['UNTRUSTED_SKILL', 'SKILL_UNREADABLE']);
  });
});
