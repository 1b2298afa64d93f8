/**
 * `trust` over a process's life and its modes: an older signed manifest put
 * back is refused while the last good library keeps serving; a newer valid
 * manifest is picked up without a restart (a folder rescanned, a watched
 * folder, a bucket's check); report mode serves everything and says the
 * same; random tampering of a signed folder, package or bucket never lets a tampered byte
 * reach the model, with exactly one diagnostic; several places where
 * one place's broken manifest leaves the others serving; a manifest that
 * expires while an index built on it is kept (freeze); and key rotation and
 * `threshold` as an app lives them.
 */
import fc from 'fast-check';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { SkillEvent, SkillUntrustedEvent } from '../../src/index.js';
import { until } from '../helpers/until.js';
import {
  bucketPlace,
  folderPlace,
  LIBRARY,
  packagePlace,
  Session,
  sign,
  TAMPERED,
  trusted,
  trustedSession as session,
  turnTwoDaysOn,
} from '../helpers/tamper.js';
import { keyPair } from '../helpers/trust.js';

const ALL = ['alpha', 'beta', 'gamma'];

describe('rollback and freshness', () => {
  it('refuses an older signed manifest put back, and the last good library keeps serving', async () => {
    const place = await folderPlace();
    await sign(place);
    const first = await place.read(place.manifest);
    await sign(place, 0, '--renew');
    const live = session(place, { cacheTtl: 0 });
    expect((await live.turn()).skills).toEqual(ALL);
    await place.write(place.manifest, first);
    const after = await live.turn();
    expect(after.skills).toEqual(ALL);
    expect(after.answers[0]).toContain('BODY-alpha');
    expect(live.diagnostics).toEqual([expect.stringMatching(/^MANIFEST_ROLLBACK .*skills\.manifest\.json$/)]);
    // Asked again, the same replay is not reported again.
    await live.turn();
    expect(live.diagnostics).toHaveLength(1);
  });

  it('picks up a newer valid manifest with no restart: a rescanned folder, and a watched one', async () => {
    for (const extra of [{ cacheTtl: 0 }, { watch: { debounceMs: 20 } }]) {
      const place = await folderPlace();
      await sign(place);
      const live = session(place, extra);
      expect((await live.turn()).skills).toEqual(ALL);
      await place.write('delta/SKILL.md', '---\nname: delta\ndescription: Delta added later. Use for delta.\n---\nBODY-delta\n');
      await sign(place);
      await until(async () => (await live.turn()).skills.includes('delta'), 5000);
      expect(live.diagnostics.filter((d) => d.includes('delta'))).toEqual([]);
    }
  });

  it("picks up a newer valid manifest at a bucket's check", async () => {
    const place = await bucketPlace();
    await sign(place);
    const live = session(place);
    expect((await live.turn()).skills).toEqual(ALL);
    await place.write('delta/SKILL.md', '---\nname: delta\ndescription: Delta added later. Use for delta.\n---\nBODY-delta\n');
    await sign(place);
    await until(async () => (await live.turn()).skills.includes('delta'), 10_000);
  });
});

describe('expiry while nothing changes (freeze)', () => {
  it('an index kept forever (cacheTtl: Infinity) stops serving a place when its manifest expires, with one diagnostic', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    onTestFinished(() => void vi.useRealTimers());
    const place = await folderPlace();
    await sign(place, 0, '--expires', '2d');
    const live = session(place, { cacheTtl: Infinity });
    const expired = await turnTwoDaysOn(live);
    expect(expired.skills).toEqual([]);
    expect(expired.system).not.toContain('alpha');
    expect(expired.answers.join('\n')).not.toMatch(/BODY-|ALPHA-|BETA-/);
    // Refused once: no rebuild on every request after, and no second diagnostic.
    const discoveries = () => live.log.filter((entry) => (entry as { args: unknown[] }).args[0] === '[skills] discovered').length;
    const before = discoveries();
    expect((await live.turn()).skills).toEqual([]);
    expect(discoveries()).toBe(before);
    expect(live.diagnostics).toEqual([expect.stringMatching(/^MANIFEST_EXPIRED .*skills\.manifest\.json$/)]);
  });

  it('a renewed manifest is served again with no restart', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    onTestFinished(() => void vi.useRealTimers());
    const place = await folderPlace();
    await sign(place, 0, '--expires', '1d');
    const live = session(place, { cacheTtl: 0 });
    expect((await live.turn()).skills).toEqual(ALL);
    vi.setSystemTime(Date.now() + 2 * 86_400_000);
    expect((await live.turn()).skills).toEqual([]);
    await sign(place, 0, '--expires', '30d');
    expect((await live.turn()).skills).toEqual(ALL);
    expect(live.diagnostics).toHaveLength(1);
  });
});

describe('key rotation and threshold, as an app lives them', () => {
  it('rotation: old and new keys trusted at once; a version signed by the new key alone serves; then the old key is dropped', async () => {
    const place = await folderPlace();
    await sign(place, 0);
    const both = { trust: { keys: [keyPair(0).publicPem, keyPair(1).publicPem] }, cacheTtl: 0 };
    const during = session(place, both);
    expect((await during.turn()).skills).toEqual(ALL);
    // Step 3: the CI signs with the new key (a new version, the new key's signature alone).
    await sign(place, 1, '--renew');
    expect((await during.turn()).skills).toEqual(ALL);
    expect(during.diagnostics).toEqual([]);
    // Step 5: the app trusts the new key only.
    const after = session(place, { trust: { keys: [keyPair(1).publicPem] } });
    expect((await after.turn()).skills).toEqual(ALL);
    // An app still on the old key alone refuses the place, and says which key signed it.
    const stale = session(place);
    expect((await stale.turn()).skills).toEqual([]);
    expect(stale.diagnostics).toEqual([expect.stringMatching(/^MANIFEST_INVALID /)]);
    expect(JSON.stringify(stale.log)).toMatch(
      new RegExp(
        `is signed by no trusted key, fewer than the 1 required \\(signed by key ${keyPair(1).id.slice(0, 12)}, which is not trusted\\)`,
      ),
    );
  });

  it('threshold 2: one signature serves nothing; a second key adding its signature to the same version serves, with no restart', async () => {
    const place = await folderPlace();
    await sign(place, 0);
    const live = session(place, { trust: { keys: [keyPair(0).publicPem, keyPair(1).publicPem], threshold: 2 }, cacheTtl: 0 });
    expect((await live.turn()).skills).toEqual([]);
    expect(live.diagnostics).toEqual([expect.stringMatching(/^MANIFEST_INVALID .*skills\.manifest\.json$/)]);
    expect(JSON.stringify(live.log)).toMatch(/is signed by 1 trusted key \([0-9a-f]{12}\), fewer than the 2 required/);
    await sign(place, 1);
    expect((await place.read(place.manifest)).match(/"keyid"/g)).toHaveLength(2);
    expect((await live.turn()).skills).toEqual(ALL);
    // The same key twice is one signer: a third key unknown to the app adds nothing.
    const place2 = await folderPlace();
    await sign(place2, 0);
    await sign(place2, 2);
    const short = session(place2, { trust: { keys: [keyPair(0).publicPem, keyPair(1).publicPem], threshold: 2 } });
    expect((await short.turn()).skills).toEqual([]);
  });
});

describe('several places', () => {
  it("one place's untrusted manifest leaves its skills out; the other places serve", async () => {
    const good = await folderPlace();
    const bad = await folderPlace();
    await sign(good);
    await bad.renameFolder('alpha', 'epsilon');
    await bad.write('epsilon/SKILL.md', '---\nname: epsilon\ndescription: Epsilon. Use for epsilon.\n---\nBODY-epsilon\n');
    await sign(bad, 1);
    const both = new Session(
      {
        ...trusted(good),
        directories: [...(good.options.directories ?? []), ...(bad.options.directories ?? [])],
      },
      good.marker,
    );
    onTestFinished(() => both.close());
    const turn = await both.turn();
    expect(turn.skills).toEqual(ALL);
    expect(both.diagnostics).toEqual([expect.stringMatching(/^MANIFEST_INVALID /)]);
  });
});

describe('report mode', () => {
  it('serves everything and gives the same diagnostics', async () => {
    const place = await folderPlace();
    await sign(place);
    await place.write('alpha/SKILL.md', (await place.read('alpha/SKILL.md')).replace('Alpha fills forms.', `${TAMPERED} forms.`));
    await place.write('beta/references/notes.md', `${TAMPERED}\n`);
    const enforce = session(place);
    await enforce.turn();
    const report = session(place, { trust: { keys: [keyPair(0).publicPem], mode: 'report' } });
    const turn = await report.turn();
    expect(turn.skills).toEqual(ALL);
    expect(turn.answers.join('\n')).toContain(TAMPERED);
    expect(report.diagnostics.sort()).toEqual(enforce.diagnostics.sort());
    expect(report.diagnostics).toHaveLength(2);
  });
});

describe('onEvent', () => {
  it('each finding is one `untrusted` event, the same in both modes but for its outcome (refused, or served in report mode)', async () => {
    const place = await folderPlace();
    await sign(place);
    await place.write('alpha/SKILL.md', (await place.read('alpha/SKILL.md')).replace('Alpha fills forms.', `${TAMPERED} forms.`));
    await place.write('beta/references/notes.md', `${TAMPERED}\n`);
    await place.write('group/gamma/SKILL.md', (await place.read('group/gamma/SKILL.md')).replace('BODY-gamma', `BODY-gamma ${TAMPERED}`));
    const seen: Record<'enforce' | 'report', SkillUntrustedEvent[]> = { enforce: [], report: [] };
    for (const mode of ['enforce', 'report'] as const) {
      const live = session(place, {
        trust: { keys: [keyPair(0).publicPem], mode },
        onEvent: (event, ctx) => {
          expect(ctx.messages.length).toBeGreaterThan(0);
          if (event.type === 'untrusted') seen[mode].push(event);
        },
      });
      await live.turn();
      await live.turn();
    }
    const plain = (events: SkillUntrustedEvent[]) =>
      events
        .map(({ outcome: _, ...event }) => ({ ...event, path: event.path?.split(place.marker).join('<place>') }))
        .sort((a, b) => a.skill.localeCompare(b.skill));
    expect(plain(seen.report)).toEqual(plain(seen.enforce));
    expect(plain(seen.enforce)).toEqual([
      expect.objectContaining({ type: 'untrusted', skill: 'alpha', reason: 'UNTRUSTED_SKILL', path: '<place>/alpha/SKILL.md', size: 0 }),
      expect.objectContaining({ skill: 'beta', reason: 'UNTRUSTED_SKILL', path: '<place>/beta/references/notes.md' }),
      expect.objectContaining({ skill: 'group/gamma', reason: 'UNTRUSTED_SKILL', path: '<place>/group/gamma/SKILL.md' }),
    ]);
    expect(seen.enforce.map((event) => event.outcome)).toEqual(['refused', 'refused', 'refused']);
    expect(seen.report.map((event) => event.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(seen.enforce.find((event) => event.skill === 'beta')?.message).toMatch(
      /^skill folder "beta": "references\/notes\.md" changed after signing \(expected sha256 [0-9a-f]{12}…, got [0-9a-f]{12}…/,
    );
  });

  it("a place's manifest that cannot be trusted is one event with skill ''", async () => {
    const place = await folderPlace();
    await sign(place, 1);
    const events: SkillEvent[] = [];
    const live = session(place, { onEvent: (event) => void events.push(event) });
    await live.turn('hello', []);
    expect(events).toEqual([
      {
        type: 'untrusted',
        skill: '',
        reason: 'MANIFEST_INVALID',
        path: expect.stringMatching(/skills\.manifest\.json$/) as string,
        message: expect.stringMatching(/^is signed by no trusted key/) as string,
        outcome: 'refused',
        size: 0,
      },
    ]);
  });
});

describe.each([
  ['folder', folderPlace, 25],
  ['package', packagePlace, 10],
  ['bucket', bucketPlace, 6],
] as const)('random tampering (property): %s', (_, makePlace, numRuns) => {
  const files = Object.keys(LIBRARY);
  const edit = fc.record({
    file: fc.constantFrom(...files),
    how: fc.constantFrom('append', 'prepend', 'replace', 'remove', 'add-beside'),
    at: fc.nat(),
  });

  it('no tampered byte reaches the model, and each edited file gives exactly one diagnostic', async () => {
    await fc.assert(
      fc.asyncProperty(edit, async ({ file, how, at }) => {
        const place = await makePlace();
        await sign(place);
        const text = LIBRARY[file] ?? '';
        const cut = at % (text.length + 1);
        if (how === 'append') await place.write(file, `${text}${TAMPERED}\n`);
        if (how === 'prepend') await place.write(file, `${TAMPERED}${text}`);
        if (how === 'replace') await place.write(file, `${text.slice(0, cut)}${TAMPERED}${text.slice(cut)}`);
        if (how === 'remove') await place.remove(file);
        if (how === 'add-beside') await place.write(`${file.slice(0, file.lastIndexOf('/'))}/zz-${TAMPERED}.md`, `${TAMPERED}\n`);
        const live = session(place);
        const turns = [await live.turn(), await live.turn()];
        for (const turn of turns) {
          expect(turn.system).not.toContain(TAMPERED);
          for (const answer of turn.answers) expect(answer).not.toContain(TAMPERED);
        }
        // A SKILL.md removed is a skill gone, not a tampered one: nothing to report.
        const expected = how === 'remove' && file.endsWith('SKILL.md') ? 0 : 1;
        expect(live.diagnostics).toHaveLength(expected);
      }),
      { numRuns },
    );
  });
});

describe('preload and discoverSkills', () => {
  it('with preload, each SKILL.md is checked whole at the scan: a body edited leaves the skill out from the first request', async () => {
    const place = await folderPlace();
    await sign(place);
    await place.write('alpha/SKILL.md', (await place.read('alpha/SKILL.md')).replace('BODY-alpha', `BODY-alpha ${TAMPERED}`));
    await place.write('beta/references/extra.md', `${TAMPERED}\n`);
    const live = session(place, { preload: true });
    const turn = await live.turn();
    expect(turn.skills).toEqual(['beta', 'gamma']);
    expect(turn.answers.join('\n')).not.toContain(TAMPERED);
    expect(live.diagnostics.sort()).toEqual([
      expect.stringMatching(/^UNTRUSTED_SKILL .*alpha[/\\]SKILL\.md$/),
      expect.stringMatching(/^UNTRUSTED_SKILL .*beta[/\\]references[/\\]extra\.md$/),
    ]);
  });

  it('discoverSkills with trust leaves out what is not signed, and reports it', async () => {
    const { discoverSkills } = await import('../../src/index.js');
    const place = await folderPlace();
    await sign(place);
    await place.write('gamma-2/SKILL.md', '---\nname: gamma-2\ndescription: Unsigned. Use never.\n---\n');
    const found = await discoverSkills({ ...trusted(place) });
    expect(found.skills.map((skill) => skill.metadata.name).sort()).toEqual(ALL);
    expect(found.errors.map((d) => d.code)).toEqual(['UNTRUSTED_SKILL']);
  });
});
