/**
 * A bucket skill removed while a conversation has it active behaves exactly
 * as a local skill removed under `watch`: the same scenario runs against a
 * folder watched on disk, a bucket listed every `refresh` and an index
 * published to a bucket (republished after the removal), on S3 and on
 * Azure Blob, and what the
 * conversation sees after the removal (catalog, active skills, what is in
 * view, `use_skill` and `read_skill_resource` answers, warnings) is the same.
 */
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSkills, skillsMiddleware, type SkillsOptions } from '../src/index.js';
import { ENGINES, publishIndexTo, type EngineContainer, type TestEngine } from './helpers/storage/engines.js';
import { until as untilEvery } from './helpers/until.js';
import { callTool, compose, conversation, createContext, type StackContext } from './helpers/stack.js';

const FILES: Record<string, string> = {
  'keep/SKILL.md': '---\nname: keep\ndescription: The skill that stays.\n---\nKeep going.\n',
  'gone/SKILL.md': '---\nname: gone\ndescription: The skill removed mid-conversation.\n---\nFollow the gone steps.\n',
  'gone/references/notes.md': 'Notes of the gone skill.\n',
};

interface Source {
  /** Where the skills are, as the outcome names it: replaced by `<root>`. */
  root: string;
  options: SkillsOptions;
  remove(): Promise<void>;
}

let temp: string;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'skills-removed-'));
});
afterAll(() => rm(temp, { recursive: true, force: true }));

async function localSource(): Promise<Source> {
  const root = join(temp, 'skills');
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return {
    root,
    options: { directories: [root], watch: { debounceMs: 30 }, cacheTtl: Infinity, rankInstructions: false },
    remove: () => rm(join(root, 'gone'), { recursive: true }),
  };
}

/** The skills in a bucket, listed; or (`published`) read from an index published beside them, republished after the removal. */
async function bucketSource(engine: TestEngine, bucket: EngineContainer, prefix: string, published = false): Promise<Source> {
  await Promise.all(Object.entries(FILES).map(([path, text]) => bucket.put(`${prefix}/${path}`, text)));
  const directories = [`${engine.scheme}${bucket.name}/${prefix}/`];
  const index = `${engine.scheme}${bucket.name}/${prefix}.index.json`;
  const publish = () => publishIndexTo(engine, bucket, `${prefix}.index.json`, directories);
  if (published) await publish();
  return {
    root: `${engine.scheme}${bucket.name}/${prefix}`,
    options: { directories, ...engine.options(bucket.endpoint), refresh: 100, rankInstructions: false, ...(published ? { index } : {}) },
    remove: async () => {
      await Promise.all(
        Object.keys(FILES)
          .filter((path) => path.startsWith('gone/'))
          .map((path) => bucket.remove(`${prefix}/${path}`)),
      );
      if (published) await publish();
    },
  };
}

/** The scenario: `gone` is activated and its notes read; it is removed; the conversation goes on. What it saw after. */
async function removedWhileActive(source: Source): Promise<unknown> {
  const middleware = skillsMiddleware(source.options);
  // A bucket skill runs from its local copy, `<copy root>/<name>-<version>`: the outcome names it `<root>/<name>`, as on disk.
  const copies = source.root.includes('://') ? middleware.localRoots().at(-1) : undefined;
  const local = (text: string) =>
    copies === undefined
      ? text
      : text
          .split(copies)
          .join('<copies>')
          .replace(/<copies>\/([a-z0-9-]+)-[0-9a-f]{12}/g, `${source.root}/$1`);
  const turn = async (ctx: StackContext) => {
    await compose([middleware])(ctx);
    return ctx;
  };
  const names = async () => getSkills(await turn(createContext({ messages: conversation('Hello.') })))?.skills.map((s) => s.metadata.name);
  try {
    const talk = await turn(createContext({ messages: conversation('Tidy up, please.') }));
    const answer = await callTool(talk, 'use_skill', { skill_name: 'gone' });
    // Stored as the host stores a tool result.
    talk.messages.push(
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'use_skill', arguments: { skill_name: 'gone' } }] },
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(answer) },
    );
    expect(getSkills(talk)?.activated).toEqual(['gone']);
    expect(await callTool(talk, 'read_skill_resource', { skill_name: 'gone', path: 'references/notes.md' })).toContain('Notes of');
    await source.remove();
    // Not a timing claim (s3-refresh's fleet test times propagation): room for a loaded CI machine.
    await untilEvery(async () => JSON.stringify(await names()) === '["keep"]', 15_000, 25);
    talk.messages.push({ role: 'assistant', content: 'Tidied.' }, { role: 'user', content: 'Now do it again.' });
    await turn(talk);
    // Its local copy went with it.
    if (copies !== undefined) expect(readdirSync(copies).filter((name) => name.startsWith('gone-'))).toEqual([]);
    const state = getSkills(talk);
    const outcome = {
      catalog: state?.skills.map((s) => s.metadata.name),
      activated: state?.activated,
      inView: state?.inView('gone'),
      system: talk.messages[0]?.content.includes('Follow the gone steps.'),
      useSkill: await callTool(talk, 'use_skill', { skill_name: 'gone' }),
      readResource: await callTool(talk, 'read_skill_resource', { skill_name: 'gone', path: 'references/notes.md' }),
      warnings: talk.log.find('[skills] warning').map((e) => (e.args[1] as { code: string }).code),
      messages: talk.messages.map((m) => `${m.role}: ${m.content}`),
    };
    return JSON.parse(local(JSON.stringify(outcome)).split(source.root).join('<root>')) as unknown;
  } finally {
    await middleware.close();
  }
}

describe.each(ENGINES)('a skill removed while active, on $name', (engine: TestEngine) => {
  it('a bucket skill removed mid-conversation behaves exactly as a local skill removed under watch', { timeout: 60_000 }, async () => {
    const bucket = await engine.makeContainer('removed');
    const local = await removedWhileActive(await localSource());
    expect(await removedWhileActive(await bucketSource(engine, bucket, 'listed'))).toEqual(local);
    expect(await removedWhileActive(await bucketSource(engine, bucket, 'published', true))).toEqual(local);
    // What that is: gone from the catalog and no longer active, no warning, the tools say it is not found
    // (never stale text), and the answer it gave earlier stays in the conversation as it was.
    expect(local).toMatchObject({
      catalog: ['keep'],
      activated: [],
      system: false,
      warnings: [],
      useSkill: expect.stringMatching(/^Skill "gone" not found\. Closest available skills: keep\./),
      readResource: expect.stringMatching(/^Skill "gone" not found\./),
      messages: expect.arrayContaining([expect.stringContaining('Follow the gone steps.')]),
    });
  });
});
