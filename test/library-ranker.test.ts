/**
 * Who owns the ranker: each Library (one per index) holds the ranker over its
 * model-visible skills, and every part of a run that ranks asks the library
 * for it: the ranked catalog, find_skills, use_skill's suggestions. Nothing
 * is kept per skill list anywhere else.
 */
import { describe, expect, it, vi } from 'vitest';
import { resolveOptions } from '../src/config/resolve.js';
import { ActivationGate } from '../src/run/gate.js';
import { PluginRoots } from '../src/run/plugin-root.js';
import { SkillsRun } from '../src/run/run.js';
import { Libraries } from '../src/run/library.js';
import { RunToolbox } from '../src/run/run-tools.js';
import { LoadedIndex } from '../src/runtime/loaded-index.js';
import { createSkillIndex } from '../src/index/skill-index.js';
import { nodeFileSystem } from '../src/base/fs.js';
import type { Skill } from '../src/base/model.js';
import { createContext, invoke } from './helpers/stack.js';

function skill(name: string, description: string, extra: Record<string, unknown> = {}): Skill {
  return {
    metadata: { name, description, ...extra },
    instructions: `# ${name}\n\nDo the ${name} steps.`,
    path: `/skills/${name}/SKILL.md`,
    directory: `/skills/${name}`,
    resources: [],
  };
}

const skills = [
  skill('code-review', 'Reviews a pull request for bugs and security problems.'),
  skill('release-notes', 'Writes release notes from merged pull requests.'),
  skill('private-audit', 'Audits the ledger; only the user starts it.', { 'disable-model-invocation': true }),
  ...Array.from({ length: 40 }, (_, i) => skill(`report-${String(i).padStart(2, '0')}`, `Writes weekly report number ${i} for the team.`)),
];

function setup(): { load: (list?: Skill[]) => LoadedIndex; toolbox: RunToolbox } {
  // A budget this small ranks the catalog and registers find_skills.
  const options = resolveOptions({ directories: ['/skills'], catalogBudget: 600, rankInstructions: false });
  const libraries = new Libraries(options);
  // An index over `list`, loaded as the middleware's cache loads one after a scan.
  const load = (list = skills): LoadedIndex =>
    new LoadedIndex({ index: createSkillIndex({ skills: list }), origin: { kind: 'scan' }, durationMs: 0 }, libraries);
  const toolbox = new RunToolbox(
    undefined,
    {},
    new PluginRoots(nodeFileSystem),
    new ActivationGate({ approve: undefined, onEvent: undefined }),
  );
  return { load, toolbox };
}

describe('the ranker a Library owns', () => {
  it('is the one object the ranked catalog, find_skills and use_skill rank with', async () => {
    const { load, toolbox } = setup();
    const loaded = load();
    const library = loaded.library;
    const ranker = library.ranker();
    const rank = vi.spyOn(ranker, 'rank');
    // The ranked catalog asks for positions too (rankDocs), so it lists skills without looking their names up.
    const rankDocs = vi.spyOn(ranker as Required<typeof ranker>, 'rankDocs');

    const rendered = library.catalog.render('review my pull request');
    expect(rendered.report.mode).not.toBe('full');
    expect(rankDocs.mock.calls.length).toBeGreaterThan(0);
    const afterCatalog = rank.mock.calls.length;

    const ctx = createContext();
    const run = new SkillsRun({}, loaded.index);
    run.see(library);
    toolbox.register(ctx, run);
    const found = await invoke(ctx.tools.get('find_skills'), { query: 'review my pull request' });
    expect(found).toMatch(/^- code-review: /m);
    expect(rank.mock.calls.length).toBeGreaterThan(afterCatalog);
    expect(rank.mock.calls.at(-1)?.[0]).toBe('review my pull request');

    const afterSearch = rank.mock.calls.length;
    const notFound = await invoke(ctx.tools.get('use_skill'), { skill_name: 'pull-request-review' });
    expect(notFound).toMatch(/^Skill "pull-request-review" not found\. Closest available skills: .*code-review/);
    expect(rank.mock.calls.length).toBeGreaterThan(afterSearch);
    expect(library.ranker()).toBe(ranker);
  });

  it('is one per index: a rebuilt index gets a new ranker, a visible part its own', () => {
    const { load } = setup();
    const loaded = load();
    const ranker = loaded.library.ranker();
    expect(loaded.library.ranker()).toBe(ranker);
    expect(load().library.ranker()).not.toBe(ranker);
    const part = loaded.visiblePart([0]);
    expect(part.ranker()).not.toBe(ranker);
    expect(
      part
        .ranker()
        .rank('review a pull request')
        .map((r) => r.name),
    ).not.toContain('code-review');
  });

  it('ranks the model-visible skills; read_skill_resource suggests from every skill the run sees', () => {
    const { load } = setup();
    const library = load().library;
    const names = (ranker: ReturnType<typeof library.ranker>): string[] => ranker.rank('audit the ledger').map((r) => r.name);
    expect(names(library.ranker())).not.toContain('private-audit');
    expect(names(library.indexRanker())).toContain('private-audit');
    expect(library.indexRanker()).toBe(library.indexRanker());

    const allVisible = load(skills.filter((s) => s.metadata.name !== 'private-audit')).library;
    expect(allVisible.indexRanker()).toBe(allVisible.ranker());
  });
});
