/**
 * Which skills a model will confuse (issue 21): overlap.ts scores pairs from
 * level-1 text; `sisu-skills overlap` lists them; validate warns with
 * DESCRIPTION_OVERLAP (never an error, never a failed run).
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { closestOverlaps, findOverlaps, OVERLAP_THRESHOLD } from '../src/catalog/overlap.js';
import { cli, useTempFolder, writeSkill } from './helpers/cli.js';

const PDF_A = { name: 'pdf-forms', description: 'Fill in and flatten PDF forms. Use when a user sends a PDF form to complete.' };
const PDF_B = { name: 'pdf-form-filler', description: 'Fill PDF forms and flatten them. Use when the user wants a PDF form completed.' };
const INVOICE = { name: 'invoice-chaser', description: 'Write polite reminders for unpaid invoices.' };
const K8S = { name: 'kubernetes-migrate', description: 'Migrate Kubernetes manifests to a new API version.' };

describe('findOverlaps', () => {
  it('pairs two skills that say the same thing, with the words they share, and leaves unrelated ones out', () => {
    const pairs = findOverlaps([PDF_A, INVOICE, PDF_B, K8S]);
    expect(pairs).toHaveLength(1);
    const [pair] = pairs;
    expect(pair).toMatchObject({ a: 'pdf-forms', b: 'pdf-form-filler' });
    expect(pair?.score).toBeGreaterThan(OVERLAP_THRESHOLD);
    expect(pair?.score).toBeLessThan(1);
    expect(pair?.shared).toEqual(expect.arrayContaining(['pdf', 'forms', 'fill', 'flatten']));
    expect(pair?.shared).not.toContain('use');
  });

  it('scores identical text 1, unrelated text nothing, and lists pairs best first', () => {
    const same = { name: 'pdf-forms-copy', description: PDF_A.description };
    const pairs = findOverlaps([PDF_A, PDF_B, same], { threshold: 0 });
    expect(pairs.map((p) => [p.a, p.b])).toEqual([
      ['pdf-forms', 'pdf-forms-copy'],
      ['pdf-forms', 'pdf-form-filler'],
      ['pdf-form-filler', 'pdf-forms-copy'],
    ]);
    expect(pairs[0]?.score).toBeGreaterThan(0.9);
    expect(findOverlaps([INVOICE, K8S], { threshold: 0 })).toEqual([]);
    expect(findOverlaps([])).toEqual([]);
  });

  it('reads text as the catalog lists it: markup and line breaks change nothing', () => {
    const flat = findOverlaps([PDF_A, PDF_B], { threshold: 0 });
    const messy = findOverlaps([PDF_A, { ...PDF_B, description: PDF_B.description.replace(/ /g, '\n  ') }], { threshold: 0 });
    expect(messy).toEqual(flat);
  });

  it('keeps at most the closest `max` pairs for each skill', () => {
    const family = ['a', 'b', 'c', 'd', 'e'].map((x) => ({ name: `pdf-${x}`, description: `${PDF_A.description} Variant ${x}.` }));
    const closest = closestOverlaps(findOverlaps(family), 3);
    expect(closest.get('pdf-a')).toHaveLength(3);
  });
});

describe('sisu-skills overlap and validate', () => {
  const temp = useTempFolder('mw-skills-overlap-');
  let library: string;
  let family: string;

  beforeAll(async () => {
    library = join(temp.path, 'library');
    for (const skill of [PDF_A, PDF_B, INVOICE, K8S])
      await writeSkill(library, skill.name, `name: ${skill.name}\ndescription: ${skill.description}`);
    await writeSkill(library, 'pdf-hidden', `name: pdf-hidden\ndescription: ${PDF_A.description}\ndisable-model-invocation: true`);
    family = join(temp.path, 'family');
    for (const x of ['a', 'b', 'c', 'd', 'e'])
      await writeSkill(family, `pdf-${x}`, `name: pdf-${x}\ndescription: ${PDF_A.description} Variant ${x}.`);
  });

  it('prints each pair with its score and shared words; skills left out of the catalog are not compared', async () => {
    const { code, stdout, stderr } = await cli(['overlap', library]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/^0\.\d{3} {2}pdf-form-filler {2}pdf-forms {2}shared: .*pdf/)]);
    expect(stderr).toContain(`1 pair at or above ${OVERLAP_THRESHOLD} among 4 skills in the catalog.`);
  });

  it('prints JSON with --json, and more pairs at a lower --threshold', async () => {
    const { code, stdout } = await cli(['overlap', library, '--json', '--threshold', '0']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      threshold: number;
      skills: number;
      pairs: Array<{ a: string; b: string; score: number; shared: string[] }>;
    };
    expect(report.threshold).toBe(0);
    expect(report.skills).toBe(4);
    // In catalog order (by name).
    expect(report.pairs[0]).toMatchObject({ a: 'pdf-form-filler', b: 'pdf-forms' });
    expect(report.pairs.every((p) => p.a !== 'pdf-hidden' && p.b !== 'pdf-hidden')).toBe(true);
  });

  it('rejects a threshold outside 0-1 as wrong usage', async () => {
    const { code, stderr } = await cli(['overlap', library, '--threshold', '2']);
    expect(code).toBe(2);
    expect(stderr).toContain('overlap: --threshold takes a number from 0 to 1, got "2".');
  });

  it('validate warns DESCRIPTION_OVERLAP on each skill of a pair, naming at most 3, and never fails for it, even with --strict', async () => {
    const { code, stdout } = await cli(['validate', '--strict', family]);
    const warnings = stdout.split('\n').filter((l) => l.includes(' warning DESCRIPTION_OVERLAP '));
    expect(warnings).toHaveLength(5);
    for (const line of warnings) {
      const named = /reads like (.*), so a model/.exec(line)?.[1]?.split('; ') ?? [];
      expect(named).toHaveLength(3);
      expect(named[0]).toMatch(/^pdf-[a-e] \(\d\.\d\d: .*pdf/);
    }
    expect(stdout).toContain('OK: 5 skills loaded from 1 directory, 0 errors, 5 warnings.');
    expect(code).toBe(0);
    const json = JSON.parse((await cli(['validate', '--json', family])).stdout) as { ok: boolean; counts: { warnings: number } };
    expect(json).toMatchObject({ ok: true, counts: { warnings: 5 } });
  });
});
