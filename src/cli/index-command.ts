/**
 * `sisu-skills index <dir...> -o <file>`: the prebuilt index a middleware
 * with `index: <file>` starts from (see index/prebuilt/), built with the
 * same folders, packages, filters and strict it will be given.
 *
 * Exit codes, as for list and validate: 0 when the file was written, which
 * it is even when skills have errors (they are printed, and recorded in the
 * index so the middleware logs them as a scan would; `validate` is the gate
 * for them); 1 when a folder or package named cannot be read or found
 * (nothing is written: the index would silently miss its skills, as `list`
 * refuses to) or the file cannot be written. In both cases an existing index
 * is left as it was. Wrong usage is 2 (run.ts).
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Diagnostic } from '../base/diagnostics.js';
import { isObjectUrl } from '../base/object-url.js';
import { errorReason } from '../base/fs.js';
import { RANKER_BUILDER } from '../catalog/saved-ranker.js';
import { prebuiltBuilder } from '../index/prebuilt/build.js';
import { serializePrebuiltIndex } from '../index/prebuilt/write.js';
import type { PrebuiltIndexDocument } from '../index/prebuilt/format.js';
import { shellArgs, type IndexArgs } from './args.js';
import { count, displayPath, EXIT, formatForCli, type CliIO } from './io.js';
import { CLI_STORAGE_WAIT_MS, classifyDiagnostics } from './load.js';
import { publishIndex, publishTarget } from '../index/published-index.js';
import { writeFileAtomically } from './write-atomic.js';
import { isModelInvocable } from '../metadata/invocation.js';
import { vectorsForIndex } from '../meaning/prebuilt-vectors.js';
import type { SkillEntry } from '../base/model.js';
import { importEmbeddings } from './embeddings-module.js';
import { createPublicKey } from 'node:crypto';
import { pathEncoder } from '../index/prebuilt/codec-paths.js';
import { SECTIONS } from '../index/prebuilt/format.js';
import { carriedManifests } from '../index/trusted-index.js';
import type { SigningKey } from '../trust/keys.js';
import { manifestsSection, sealIndex } from '../trust/seal.js';
import { createTrustState, type TrustState } from '../trust/state.js';
import { signingKeyFile } from './key-files.js';
import { progressReporter, type ReportProgress } from './progress.js';

export async function indexCommand(
  args: IndexArgs,
  io: CliIO,
  write: (path: string, bytes: Uint8Array) => Promise<void> = writeFileAtomically,
  publish: (url: string, bytes: Uint8Array) => Promise<void> = publishIndex,
): Promise<number> {
  const published = publishTarget(args.output);
  const output = published ?? resolve(io.cwd, args.output);
  const shown = displayPath(output, io.cwd);
  const { directories, packages, include, exclude, strict } = args;
  const embeddings = args.embeddings === undefined ? undefined : await importEmbeddings('index', args.embeddings, io);
  if (embeddings === null) return EXIT.problems;
  const options = { directories, packages, include, exclude, strict, cwd: io.cwd, storageWait: CLI_STORAGE_WAIT_MS };
  // --key: the places are judged as `trust` judges them (by these keys' public halves), and the index is sealed.
  const sealing = args.keys.length > 0 ? await sealingKeys(args.keys, io) : undefined;
  // Phases and counts on stderr, on a terminal only (progress.ts): stdout keeps the lines editors and CI read.
  const progress = progressReporter(io, 'index');
  const document = await prebuiltBuilder(RANKER_BUILDER).build(options, output, undefined, {
    instructions: args.instructions,
    ...(sealing ? { trust: sealing.trust } : {}),
    ...(progress ? { progress } : {}),
  });
  const found = classifyDiagnostics(withAbsolutePaths(document, output));
  if (found.unreadable.length > 0) {
    for (const d of found.unreadable) io.err(formatForCli(d, io.cwd));
    io.err(
      `Nothing written to ${shown}: an index without these skills would hide them from the ` +
        `middleware. Fix the folders or packages named above, then run the command again.`,
    );
    return EXIT.problems;
  }
  // The same lines as validate, so editors and CI read them the same way.
  for (const d of found.diagnostics) io.out(formatForCli(d, io.cwd));
  if (embeddings && !(await addVectors(document, embeddings, io, shown))) return EXIT.problems;
  const seal = sealing && sealer(document, output, sealing);
  const put = published === undefined ? write : publish;
  const written = await writeIndex(document, output, seal ? (where, bytes) => put(where, seal(bytes)) : put, {
    io,
    shown,
    published,
    progress,
  });
  if (!written) return EXIT.problems;
  io.out(
    `Wrote ${shown}: ${count(document.skills.length, 'skill')}, ${count(found.errors, 'error')}, ${count(found.warnings, 'warning')}.`,
  );
  if (document.skills.length === 0)
    io.err(`No skills found in ${[...directories, ...packages.map((name) => `package ${name}`)].join(', ')}: the index lists none.`);
  if (found.errors > 0) {
    io.err(
      `${count(found.errors, 'error')} left skills out of the index, as a scan would; fix them ` +
        `(\`sisu-skills validate ${shellArgs(args)}\` lists them too) and build the index again.`,
    );
  }
  return EXIT.ok;
}

/** The keys `--key` names, and the trust state the build judges places with (their public halves, one signature enough). */
async function sealingKeys(files: readonly string[], io: CliIO): Promise<{ keys: SigningKey[]; trust: TrustState }> {
  const keys: SigningKey[] = [];
  for (const file of files) keys.push(await signingKeyFile(file, io, 'index'));
  const pems = keys.map((key) => createPublicKey(key.key).export({ type: 'spki', format: 'pem' }).toString());
  return { keys, trust: createTrustState({ keys: pems, threshold: 1, mode: 'enforce' }, () => undefined) };
}

/**
 * Put the manifests of the places the build accepted in the document's
 * `manifests` section (paths encoded as the index's), and give what seals
 * the index's bytes with them (trust/seal.ts).
 */
function sealer(
  document: PrebuiltIndexDocument,
  output: string,
  sealing: { keys: SigningKey[]; trust: TrustState },
): (bytes: Uint8Array) => Uint8Array {
  const encode = pathEncoder(output);
  const places = sealing.trust.gate.acceptedPlaces().map((place) => ({ ...place, place: encode(place.place) }));
  document.sections = new Map([[SECTIONS.manifests, manifestsSection(places)]]);
  return (bytes) => sealIndex(bytes, places, sealing.keys, carriedManifests(bytes));
}

/** Write the index's bytes with `put` (a file replaced at once, or one PutObject); false, with the line saying why, when it fails. */
async function writeIndex(
  document: PrebuiltIndexDocument,
  output: string,
  put: (where: string, bytes: Uint8Array) => Promise<void>,
  { io, shown, published, progress }: { io: CliIO; shown: string; published: string | undefined; progress: ReportProgress | undefined },
): Promise<boolean> {
  progress?.(`writing ${shown}`, 0);
  try {
    await put(output, serializePrebuiltIndex(document));
    return true;
  } catch (error) {
    const fix = published ? 'Check the bucket, its credentials and s3:PutObject.' : 'Pass a file in a folder you can write to with -o.';
    io.err(`sisu-skills: index: cannot write ${shown} (${errorReason(error)}); it was left as it was. ${fix}`);
    return false;
  }
}

/** The document's problems and folders with absolute paths again (it stores them relative to the index file). */
function withAbsolutePaths(
  document: PrebuiltIndexDocument,
  output: string,
): { errors: Diagnostic[]; warnings: Diagnostic[]; scannedDirectories: string[] } {
  // A published index holds its paths as they are.
  if (isObjectUrl(output)) return document;
  const base = dirname(output);
  const decode = (path: string): string => (isAbsolute(path) || !/^\.\.?(\/|$)/.test(path) ? path : resolve(base, path));
  const absolute = (d: Diagnostic): Diagnostic => ({ ...d, file: decode(d.file) });
  return {
    errors: document.errors.map(absolute),
    warnings: document.warnings.map(absolute),
    scannedDirectories: document.scannedDirectories.map(decode),
  };
}

/**
 * Embed the skills the middleware ranks into `document`; false (nothing
 * written) when none could be: an index without its vectors would make every
 * start-up embed the whole library again.
 */
async function addVectors(
  document: PrebuiltIndexDocument,
  embeddings: NonNullable<Awaited<ReturnType<typeof importEmbeddings>>>,
  io: CliIO,
  shown: string,
): Promise<boolean> {
  const seen = new Set<string>();
  // The ranked skills (rankedSkills): the first of each name the model may activate. Only metadata is embedded.
  const ranked = document.skills.filter(
    ({ metadata }) => isModelInvocable(metadata) && !seen.has(metadata.name) && seen.add(metadata.name),
  );
  const { block, outcome } = await vectorsForIndex(
    ranked.map(({ metadata }) => ({ metadata }) as SkillEntry),
    embeddings,
  );
  if (ranked.length > 0 && !block) {
    io.err(
      `Nothing written to ${shown}: no skill could be embedded (${outcome.error ?? 'no vectors'}). Check the --embeddings module's provider.`,
    );
    return false;
  }
  if (outcome.failed > 0)
    io.err(`${count(outcome.failed, 'skill')} could not be embedded (${outcome.error}); the middleware embeds them at start-up.`);
  if (block) {
    document.vectors = block;
    io.out(
      `Embedded ${count(outcome.embedded, 'skill')} with model ${block.model} ` +
        `(${block.dimensions} dimensions, ${block.encoding}, ${count(outcome.calls, 'call')}).`,
    );
  }
  return true;
}
