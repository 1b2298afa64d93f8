/**
 * options -> scan -> read, parse, validate -> accept -> list resources ->
 * Skill[] + diagnostics. Never fails on bad skills or folders: those become
 * diagnostics.
 *
 *   scan.ts          which folders are skills (walk.ts, tree-order.ts, link-loops.ts)
 *   candidates.ts    each SKILL.md read as the walk finds it, parsed and validated
 *   select.ts        include / exclude
 *   accept.ts        name clashes, in discovery order
 *   resources.ts     each accepted skill's files (not with frontmatterOnly)
 *   content.ts       what frontmatter-only discovery leaves for activation
 */
import { isError, type Diagnostic } from '../base/diagnostics.js';
import { createLimiter, limitConcurrency, MAX_CONCURRENT_FS_CALLS, memoizeReaddir } from '../base/concurrency.js';
import type { SkillsFileSystem } from '../base/fs.js';
import type { ResolvedOptions } from '../config/options.js';
import type { DiscoveryResult, Skill, SkillEntry, SkillResource } from '../base/model.js';
import type { TrustState } from '../trust/state.js';
import { headBytesSha256, startTrustedScan, type TrustedScan } from './trusted.js';
import { acceptCandidates, type Accepted } from './accept.js';
import { readCandidate, startReads, type CandidateContext, type TrustVerdict } from './candidates.js';
import { readSkillHead } from './head.js';
import { resolvePackageRoots } from './package-roots.js';
import { listResources, resourceLimits, type ResourceLimits } from './resources.js';
import { scanDirectories, type FoundSkill, type SkillLocation } from './scan.js';
import { createSelection, filterWarnings } from './select.js';

export { loadSkillContent } from './content.js';

export interface DiscoverMode {
  /**
   * Read frontmatter only: no instructions, no resource listing (both are read
   * by `loadSkillContent` when the skill is activated). The skills come back
   * as entries (`SkillEntry`: metadata, SKILL.md and folder). The opposite of
   * the `preload` option: `{ frontmatterOnly: !options.preload }`.
   */
  frontmatterOnly?: boolean;
  /** The `trust` option's state: each place's manifest admitted, each skill judged (discover/trusted.ts). */
  trust?: TrustState | undefined;
}

/** The mode that reads each skill whole (the default). */
export type WholeSkills = DiscoverMode & { frontmatterOnly?: false };

/** How one discovery reads its skills: whole (`Skill`), or up to the end of the frontmatter (`SkillEntry`). */
interface Reading<S extends SkillEntry> {
  frontmatterOnly: boolean;
  /** What an accepted candidate loads as; `fs` lists its resources, which `trusted` checks. */
  skillOf(accepted: Accepted, fs: SkillsFileSystem, limits: ResourceLimits, trusted: TrustedScan | undefined): Promise<S>;
}

const WHOLE: Reading<Skill> = { frontmatterOnly: false, skillOf: wholeSkill };
const ENTRIES: Reading<SkillEntry> = { frontmatterOnly: true, skillOf: async (accepted) => entryOf(accepted) };

/**
 * Discover skills with already-resolved options (the middleware's cache calls
 * this). `limits`: how resources are listed, made once per options by whoever
 * discovers repeatedly (the middleware's skill source); else once per call.
 */
export function discover(options: ResolvedOptions, mode?: WholeSkills, limits?: ResourceLimits): Promise<DiscoveryResult<Skill>>;
export function discover(options: ResolvedOptions, mode: DiscoverMode, limits?: ResourceLimits): Promise<DiscoveryResult<SkillEntry>>;
export function discover(
  options: ResolvedOptions,
  mode: DiscoverMode = {},
  limits: ResourceLimits = resourceLimits(options),
): Promise<DiscoveryResult<SkillEntry>> {
  return mode.frontmatterOnly === true ? discoverAs(options, ENTRIES, limits, mode.trust) : discoverAs(options, WHOLE, limits, mode.trust);
}

async function discoverAs<S extends SkillEntry>(
  options: ResolvedOptions,
  how: Reading<S>,
  limits: ResourceLimits,
  trust: TrustState | undefined,
): Promise<DiscoveryResult<S>> {
  const { frontmatterOnly } = how;
  // One limit for every call: single calls, and a head read's open + reads + close as one.
  const run = createLimiter(MAX_CONCURRENT_FS_CALLS);
  // Listings are kept for the resource listing to reuse; frontmatter-only discovery lists no resources,
  // and keeping every folder's entries to the end would only add work for the collector.
  const limited = limitConcurrency(options.fs, run);
  const fs = frontmatterOnly ? limited : memoizeReaddir(limited);
  // Under `trust`, each head's hash taken from the bytes read, by real folder (as reads are kept).
  const heads = trust && frontmatterOnly ? new Map<string, string>() : undefined;
  const onHead = (found: FoundSkill) =>
    heads &&
    ((head: Uint8Array) => {
      const hash = headBytesSha256(head);
      if (hash) heads.set(found.realDirectory, hash);
    });
  // Only a SKILL.md that is a link needs its type checked when opened: for the rest the listing said "file".
  const read = (found: FoundSkill): Promise<string> =>
    frontmatterOnly
      ? run(() => readSkillHead(options.fs, found.file, { checkType: found.fileType === 'link' }, onHead(found)))
      : fs.readFile(found.file, 'utf8');
  const selection = createSelection(options.include, options.exclude);
  // Parsing waits for the walk, with which it would compete for the one JS thread
  // (parsing as files arrived was measured slower at 2,000 skills on 2 CPUs).
  const reads = startReads(read, selection.excludesFolder);
  const packages = await resolvePackageRoots(options);
  const scannedDirectories = [...options.directories, ...packages.roots];
  // The places' manifests are read while the walk goes on; skills are judged once both are done.
  const admitting = trust && startTrustedScan(options.fs, scannedDirectories, packages.placeOf, trust, !frontmatterOnly);
  const scan = await scanDirectories(fs, scannedDirectories, reads.start);
  const trusted = admitting ? await admitting : undefined;
  // The heads hashed by now are judged in one pass, not one between two parses each: 20,000 lookups in the
  // manifest's entries cost some 3x as much with the parser's work in between (cache misses).
  const judged = trusted && heads ? trusted.judgeHeads(scan.skills, heads) : undefined;
  // Every location went through reads.start.
  const candidates = await Promise.all(
    scan.skills.map((location, i) =>
      readCandidate(reads.pending(location.realDirectory), location, {
        strict: options.strict,
        frontmatterOnly,
        origin: packages.of(location),
        ...(trusted ? trustContext(trusted, location, judged?.[i], heads) : {}),
      }),
    ),
  );
  const { accepted, perSkill } = acceptCandidates(candidates, selection);
  const skills = await Promise.all(accepted.map((item) => how.skillOf(item, fs, limits, trusted)));
  const filters = filterWarnings(
    candidates.map((candidate) => candidate.names),
    options,
  );
  const places = trusted?.finish() ?? [];
  const all = uniqueDiagnostics([...places, ...packages.diagnostics, ...scan.diagnostics, ...filters, ...perSkill.flat()]);
  return { skills, scannedDirectories, errors: all.filter(isError), warnings: all.filter((diagnostic) => !isError(diagnostic)) };
}

/** What `trust` tells readCandidate of `location`: its verdict, when its head was judged, or how to judge it from its text. */
function trustContext(
  trusted: TrustedScan,
  location: SkillLocation,
  judged: TrustVerdict | undefined,
  heads: ReadonlyMap<string, string> | undefined,
): Pick<CandidateContext, 'judge' | 'judged'> {
  if (judged) return { judged };
  return { judge: (text: string) => trusted.judge(location, text, heads?.get(location.realDirectory)) };
}

/** An accepted candidate read whole: its instructions, and its resources listed through `fs` (as `trusted` leaves them). */
async function wholeSkill(
  { candidate, metadata, found }: Accepted,
  fs: SkillsFileSystem,
  limits: ResourceLimits,
  trusted: TrustedScan | undefined,
): Promise<Skill> {
  const { location } = candidate;
  const listed = await listResources(fs, location.directory, location.realDirectory, limits);
  const listing = trusted ? withDiagnostics(listed, trusted.resources(location.directory, listed.resources, limits)) : listed;
  found.push(...listing.diagnostics);
  const skill: Skill = {
    metadata,
    instructions: candidate.instructions,
    path: location.file,
    directory: location.directory,
    resources: listing.resources,
  };
  if (candidate.instructionsLine !== undefined) skill.instructionsLine = candidate.instructionsLine;
  return skill;
}

/** An accepted candidate read up to the end of its frontmatter: the rest is read at activation. */
function entryOf({ candidate, metadata }: Accepted): SkillEntry {
  return { metadata, path: candidate.location.file, directory: candidate.location.directory };
}

/** A listing with its resources as `trust` left them, and its diagnostics joined. */
function withDiagnostics(
  listing: { resources: SkillResource[]; diagnostics: Diagnostic[] },
  trusted: { resources: SkillResource[]; diagnostics: Diagnostic[] },
): { resources: SkillResource[]; diagnostics: Diagnostic[] } {
  return { resources: trusted.resources, diagnostics: [...listing.diagnostics, ...trusted.diagnostics] };
}

/** The scan and the resource listing can meet the same link; report each problem once. */
function uniqueDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}\0${d.file}\0${d.line}\0${d.column}\0${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
