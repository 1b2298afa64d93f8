/**
 * Hostile manifests met by the middleware (issue 41), on a local folder and
 * a bucket: one of 100 MB, bytes that are not JSON or not UTF-8, and
 * manifests SIGNED by the trusted key whose entries try to widen access
 * (`..`, absolute and `s3://` paths, duplicates, hashes of the wrong
 * length). Each is one MANIFEST_INVALID diagnostic naming the manifest,
 * nothing of that place is served (no tampered byte, no skill of it in the
 * system prompt, ctx.skills or any answer), the other place goes on, and
 * nothing throws. Key files that cannot serve are refused at construction.
 */
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { skillsMiddleware } from '../../src/index.js';
import { MAX_MANIFEST_BYTES } from '../../src/trust/format.js';
import { serializeManifest } from '../../src/trust/manifest.js';
import { signBody } from '../../src/trust/sign.js';
import { bucketPlace, folderPlace, LIBRARY, Session, sign, TAMPERED, trusted, type Place } from '../helpers/tamper.js';
import { hex, keyPair } from '../helpers/trust.js';

const DELTA = '---\nname: delta\ndescription: Delta keeps the lights on. Use for delta work.\n---\nBODY-delta\n';

/** A signed place holding one skill, delta: the place that must go on serving. */
async function goodPlace(): Promise<Place> {
  const place = await folderPlace();
  for (const folder of ['alpha', 'beta', 'group']) await place.remove(folder);
  await place.write('delta/SKILL.md', DELTA);
  await sign(place);
  return place;
}

const entry = (path: string, files: Array<[string, number, string]>) => ({
  path,
  digest: `sha256-${'A'.repeat(43)}`,
  frontmatter: hex(LIBRARY['alpha/SKILL.md'] ?? ''),
  files,
});
const SKILL_MD: [string, number, string] = ['SKILL.md', 10, hex(LIBRARY['alpha/SKILL.md'] ?? '')];

/** A manifest whose signed body is `skills` (one JSON line), signed by the TRUSTED key: only the reader's checks stand. */
function signedBody(skills: unknown[]): string {
  const body = JSON.stringify({
    format: 'sisu-skills-manifest/1',
    version: 1,
    created: new Date(Date.now() - 60_000).toISOString(),
    expires: new Date(Date.now() + 86_400_000).toISOString(),
    skills,
  });
  return serializeManifest(body, [signBody(body, keyPair(0).signing)]);
}

type Hostile = [name: string, write: (place: Place) => Promise<void>, message: RegExp];

const HOSTILE: Hostile[] = [
  [
    'malformed JSON (a signed manifest cut in half)',
    async (place) => {
      await sign(place);
      const text = await place.read(place.manifest);
      await place.write(place.manifest, text.slice(0, Math.floor(text.length / 2)));
    },
    /is not a signed skills manifest/,
  ],
  [
    'JSON of another shape',
    (place) => place.write(place.manifest, '{"skills":{"alpha":{"trusted":true}}}\n'),
    /is not a signed skills manifest/,
  ],
  [
    'a signed entry with ..',
    (place) => place.write(place.manifest, signedBody([entry('../outside', [SKILL_MD])])),
    /it never leaves the place/,
  ],
  [
    'a signed file entry with ..',
    (place) => place.write(place.manifest, signedBody([entry('alpha', [['../../etc/passwd', 1, hex('x')], SKILL_MD])])),
    /it never leaves the place/,
  ],
  [
    'a signed absolute path',
    (place) => place.write(place.manifest, signedBody([entry('/etc', [SKILL_MD])])),
    /no leading, trailing or doubled \//,
  ],
  [
    'a signed s3:// path',
    (place) => place.write(place.manifest, signedBody([entry('s3://other-bucket/evil', [SKILL_MD])])),
    /never a URL \(s3:\/\/\.\.\.\)/,
  ],
  [
    'a signed duplicate skill entry',
    (place) => place.write(place.manifest, signedBody([entry('alpha', [SKILL_MD]), entry('alpha', [SKILL_MD])])),
    /duplicate skill entry "alpha"/,
  ],
  [
    'a signed duplicate file entry',
    (place) => place.write(place.manifest, signedBody([entry('alpha', [SKILL_MD, SKILL_MD])])),
    /duplicate file entry "SKILL\.md"/,
  ],
  [
    'a signed hash of the wrong length',
    (place) => place.write(place.manifest, signedBody([entry('alpha', [['SKILL.md', 10, hex('x').slice(0, 63)]])])),
    /a SHA-256 is 64 lowercase hex characters/,
  ],
];

/** Two requests on the good place and `place`: what they show, the trust diagnostics given, and those diagnostics' messages. */
async function served(good: Place, place: Place) {
  const both = new Session(
    { ...trusted(place), directories: [...(good.options.directories ?? []), ...(place.options.directories ?? [])] },
    place.marker,
  );
  onTestFinished(() => both.close());
  const turns = [await both.turn('alpha forms, beta reviews, delta work'), await both.turn('alpha forms')];
  const messages = both.log.flatMap((entry) => {
    const data = (entry as { args: unknown[] }).args[1] as { code?: string; message?: string } | undefined;
    return data?.code?.startsWith('MANIFEST_') ? [data.message ?? ''] : [];
  });
  return { turns, diagnostics: both.diagnostics, messages };
}

/** Only delta, from the good place, anywhere; one MANIFEST_INVALID naming the hostile manifest, saying `message`. */
function expectOnlyDelta({ turns, diagnostics, messages }: Awaited<ReturnType<typeof served>>, message: RegExp): void {
  for (const turn of turns) {
    expect(turn.skills).toEqual(['delta']);
    expect(turn.system).toContain('delta');
    expect(turn.system).not.toMatch(/alpha|beta|gamma/);
    for (const answer of turn.answers) expect(answer).not.toMatch(/BODY-(alpha|beta|gamma)|ALPHA-|BETA-|TAMPERED/);
  }
  expect(diagnostics).toEqual([expect.stringMatching(/^MANIFEST_INVALID .*skills\.manifest\.json$/)]);
  expect(messages).toEqual([expect.stringMatching(message)]);
}

describe('hostile manifests in a folder', () => {
  it.each(HOSTILE)('%s: one MANIFEST_INVALID, nothing of the place served, the other place goes on', async (_, write, message) => {
    const good = await goodPlace();
    const place = await folderPlace();
    await place.write('alpha/scripts/added.sh', `echo ${TAMPERED}\n`);
    await write(place);
    expectOnlyDelta(await served(good, place), message);
  });

  it('a manifest of 100 MB: refused from its size, unread', async () => {
    const good = await goodPlace();
    const place = await folderPlace();
    await sign(place);
    const file = await open(join(place.marker, 'skills.manifest.json'), 'w');
    await file.truncate(100 * 1024 * 1024);
    await file.close();
    expectOnlyDelta(await served(good, place), /^is 104857600 bytes, over the 33554432-byte limit for a manifest; it was not read/);
  });

  it('bytes that are not UTF-8, inside a signed path: refused as not UTF-8, before any signature is checked', async () => {
    const good = await goodPlace();
    const place = await folderPlace();
    await sign(place);
    const text = Buffer.from(await place.read(place.manifest));
    const at = text.indexOf('"path":"alpha"') + '"path":"al'.length;
    await writeFile(join(place.marker, 'skills.manifest.json'), Buffer.concat([text.subarray(0, at), Buffer.of(0xff), text.subarray(at)]));
    expectOnlyDelta(await served(good, place), /^is not UTF-8 text\. Sign the place again/);
  });
});

describe('hostile manifests in a bucket', () => {
  it.each(HOSTILE.filter(([name]) => /malformed|with \.\.|s3:\/\//.test(name)))(
    '%s: one MANIFEST_INVALID, nothing of the bucket served, the folder goes on',
    async (_, write, message) => {
      const good = await goodPlace();
      const place = await bucketPlace();
      await write(place);
      expectOnlyDelta(await served(good, place), message);
    },
  );

  it('a manifest over the size limit: refused from the size the listing gives, unread', async () => {
    const good = await goodPlace();
    const place = await bucketPlace();
    await sign(place);
    await place.write(place.manifest, ' '.repeat(MAX_MANIFEST_BYTES + 1));
    expectOnlyDelta(await served(good, place), /^is 33554433 bytes, over the 33554432-byte limit for a manifest; it was not read/);
  });
});

describe('key files that cannot serve', () => {
  it('a private PEM where a public one belongs, and a key that is not Ed25519, are refused when the middleware is made', () => {
    expect(() => skillsMiddleware({ directories: ['/skills'], trust: { keys: [keyPair(0).privatePem] } })).toThrow(
      /`trust\.keys\[0\]` is a private key, where a public key belongs/,
    );
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => skillsMiddleware({ directories: ['/skills'], trust: { keys: [ec] } })).toThrow(
      /`trust\.keys\[0\]` is an EC key; manifests are signed with Ed25519 keys only/,
    );
  });
});
