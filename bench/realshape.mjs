// Real-shaped skill libraries for the benchmark, built from ../shared/corpus:
// the real SKILL.md files (only the `name:` line rewritten, so every copy is
// unique and matches its folder), each skill's resource tree from
// manifest.jsonl at real paths and sizes, written as sparse files (no disk is
// spent on their contents), replicated to the size asked for. Skills keep the
// folders they sit in inside their repository (`plugins/x/skills/<name>`) under
// a category folder per repository and copy; one repository in four is
// installed flat at the top, as hand-assembled libraries are.
import { Buffer } from 'node:buffer';
import { existsSync } from 'node:fs';
import { mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pool } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
export const CORPUS_DIR = resolve(here, '..', '..', 'shared', 'corpus');

/** The corpus, or undefined when ../shared is absent (a fresh clone). */
export async function loadCorpus(dir = CORPUS_DIR) {
  const manifest = join(dir, 'manifest.jsonl');
  if (!existsSync(manifest)) return undefined;
  const lines = (await readFile(manifest, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  const entries = lines.map((line) => JSON.parse(line));
  const repos = [...new Set(entries.map((e) => e.repo))].sort();
  return Promise.all(
    entries.map(async (e) => {
      const segments = e.path.split('/').slice(0, -1);
      return {
        text: await readFile(join(dir, e.file), 'utf8'),
        repo: e.repo,
        repoIndex: repos.indexOf(e.repo),
        // Folders between the repository's root and the skill's own folder. A leading dot is
        // dropped (`.claude/skills` -> `claude/skills`): discovery skips dot-folders, and a
        // library installed for a host does not sit in one.
        parents: segments.slice(0, -1).map((segment) => segment.replace(/^\.+/, '') || 'dot'),
        folder: segments.at(-1) ?? e.repo.split('/').at(-1),
        // Only paths that stay inside the skill folder.
        siblings: e.siblings.filter((s) => !s.path.startsWith('/') && !s.path.split('/').includes('..') && s.path !== 'SKILL.md'),
      };
    }),
  );
}

const slug = (text) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '') || 'skill';

/**
 * `text` with its frontmatter's `name:` set to `name` (continuation lines of
 * the old value dropped), or a `name:` line added at the top of a
 * frontmatter that had none. A file without frontmatter is left as it is:
 * it loads nowhere, as in the real library.
 */
export function withName(text, name) {
  const match = /^(\uFEFF?---[ \t]*\r?\n)([\s\S]*?)(\r?\n---[ \t]*(?:\r?\n|$))/.exec(text);
  if (!match) return text;
  const [whole, open, frontmatter, close] = match;
  const lines = frontmatter.split('\n');
  const at = lines.findIndex((line) => /^name[ \t]*:/.test(line));
  const eol = frontmatter.includes('\r\n') ? '\r' : '';
  if (at === -1) {
    lines.unshift(`name: ${name}${eol}`);
  } else {
    let end = at + 1;
    while (end < lines.length && /^[ \t]+\S/.test(lines[end])) end++;
    lines.splice(at, end - at, `name: ${name}${lines[at].endsWith('\r') ? '\r' : ''}`);
  }
  return open + lines.join('\n') + close + text.slice(whole.length);
}

/**
 * Write `count` skills under `root`. Returns what the bench reports against,
 * and `parents`: every folder that directly holds skills (the official
 * middleware looks one level deep only, so it is given all of them).
 */
export async function writeRealWorkload(root, count, corpus) {
  const made = new Set();
  const ensure = async (folder) => {
    if (made.has(folder)) return;
    made.add(folder);
    await mkdir(folder, { recursive: true });
  };
  const skills = Array.from({ length: count }, (_, i) => {
    const source = corpus[i % corpus.length];
    const copy = Math.floor(i / corpus.length);
    const name = `${slug(source.folder)}-${i}`;
    const flat = source.repoIndex % 4 === 0;
    const parent = flat ? root : join(root, `${slug(source.repo.replace('/', '--'))}--${copy}`, ...source.parents);
    return { name, parent, dir: join(parent, name), text: withName(source.text, name), siblings: source.siblings };
  });
  let resourceFiles = 0;
  let resourceBytes = 0;
  let skillBytes = 0;
  for (const skill of skills) {
    resourceFiles += skill.siblings.length;
    for (const s of skill.siblings) resourceBytes += s.size;
    skillBytes += Buffer.byteLength(skill.text);
  }
  await pool(skills, 64, async (skill) => {
    await ensure(skill.dir);
    await writeFile(join(skill.dir, 'SKILL.md'), skill.text);
    for (const sibling of skill.siblings) {
      const path = join(skill.dir, ...sibling.path.split('/'));
      await ensure(join(path, '..'));
      // Sparse: the size is real, the blocks are never written.
      await writeFile(path, '');
      if (sibling.size > 0) await truncate(path, sibling.size);
    }
  });
  return {
    root,
    count,
    names: skills.map((s) => s.name),
    parents: [...new Set(skills.map((s) => s.parent))].sort(),
    folders: made.size,
    resourceFiles,
    resourceBytes,
    skillBytes,
  };
}
