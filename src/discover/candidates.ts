/**
 * Reading the skills a scan finds: each SKILL.md is read as soon as the walk
 * lists its folder (so the disk stays busy while the walk goes on), then
 * parsed and validated into a candidate, which include/exclude and name
 * clashes later accept or not.
 */
import { basename } from 'node:path';
import { createDiagnostic, isError, type Diagnostic } from '../base/diagnostics.js';
import { errorCode, errorReason, NOT_A_FILE } from '../base/fs.js';
import { parseFrontmatter } from '../frontmatter/parse.js';
import { validateMetadata, type ValidationContext } from '../metadata/schema.js';
import { SKILL_FILE } from '../base/skill-file.js';
import type { SkillMetadata } from '../base/model.js';
import type { FoundSkill, SkillLocation } from './walk.js';

/** Where a skill from a package came from, for its name rule and advice. */
export type PackageOrigin = NonNullable<ValidationContext['package']>;

/** A skill folder the scan found, read and validated, not yet accepted. */
export interface Candidate {
  location: SkillLocation;
  /** Names include/exclude match: the folder as reached and as it really is, and the declared name. */
  names: string[];
  /** Set when the skill is valid. */
  metadata?: SkillMetadata;
  instructions: string;
  /** 1-based line on which the instructions start, when the whole file was read. */
  instructionsLine?: number;
  diagnostics: Diagnostic[];
  /** Left out by exclude before it was read. */
  excluded: boolean;
}

/** The SKILL.md reads started during a scan, by real folder. */
export interface SkillReads {
  /** Called by the walk for each skill found: starts its read, unless its folder is excluded. */
  start(found: FoundSkill): void;
  /** The text being read for the skill in `realDirectory`; undefined when its folder is excluded (and was not read). */
  pending(realDirectory: string): Promise<string> | undefined;
}

export function startReads(read: (found: FoundSkill) => Promise<string>, excludesFolder: (name: string) => boolean): SkillReads {
  // Undefined: the folder is excluded and not read at all.
  const reads = new Map<string, Promise<string> | undefined>();
  return {
    start(found) {
      // The real name only: the path a folder is first listed through may not be the one it is kept at.
      if (excludesFolder(basename(found.realDirectory))) {
        reads.set(found.realDirectory, undefined);
        return;
      }
      // A pipe, socket or device is never opened: it could block or never end.
      const text = found.fileType === 'other' ? Promise.reject(notAFile(found.file)) : read(found);
      // Only marks a rejection as handled until readCandidate awaits it and reports it.
      text.catch(() => undefined);
      reads.set(found.realDirectory, text);
    },
    pending: (realDirectory) => reads.get(realDirectory),
  };
}

function notAFile(file: string): Error {
  return Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_FILE });
}

export interface CandidateContext {
  strict: boolean;
  /** Drop the body: 20,000 skills then cost their frontmatter, not their text. */
  frontmatterOnly: boolean;
  origin: PackageOrigin | undefined;
  /** `trust`: judges the skill from the text read, before it is parsed (discover/trusted.ts). */
  judge?: (text: string) => TrustVerdict;
  /** `trust`: the skill already judged from its head's hash (discover/trusted.ts judgeHeads), in place of `judge`. */
  judged?: TrustVerdict;
}

/** What `trust` said of a skill: leave it out, and the diagnostic to give. */
export interface TrustVerdict {
  drop: boolean;
  diagnostic?: Diagnostic;
}

/** `pending`: the SKILL.md's text being read, or undefined when the folder is excluded. */
export async function readCandidate(
  pending: Promise<string> | undefined,
  location: SkillLocation,
  context: CandidateContext,
): Promise<Candidate> {
  // The real folder's name is the one the folder-name rule judges: an alias must not decide it.
  const folderName = basename(location.realDirectory);
  const alias = basename(location.directory);
  const folderNames = alias === folderName ? [folderName] : [alias, folderName];
  const base: Candidate = { location, names: folderNames, instructions: '', diagnostics: [], excluded: false };
  if (pending === undefined) return { ...base, excluded: true };

  let text: string;
  try {
    text = await pending;
  } catch (error) {
    // A verdict on its head stands (its diagnostic is given once): the rest of the file could not be read.
    const judged = context.judged?.diagnostic ? [context.judged.diagnostic] : [];
    return { ...base, diagnostics: [...judged, unreadable(location.file, error)] };
  }
  // Under `trust`, a skill its place does not vouch for is not even parsed: one diagnostic says why.
  const verdict = context.judged ?? context.judge?.(text);
  const vouched = verdict?.diagnostic ? [verdict.diagnostic] : [];
  if (verdict?.drop) return { ...base, diagnostics: vouched };
  const parsed = parseFrontmatter(text, { file: location.file });
  const rawName = parsed.metadata.name;
  const names = typeof rawName === 'string' ? [...folderNames, rawName] : folderNames;
  // After a fence or YAML error the metadata is partial: "name is missing" would only be noise.
  if (parsed.diagnostics.some(isError)) return { ...base, names, diagnostics: [...vouched, ...parsed.diagnostics] };

  const validation = validateMetadata(parsed, {
    file: location.file,
    folderName,
    strict: context.strict,
    ...(context.origin ? { package: context.origin } : {}),
  });
  const candidate: Candidate = {
    ...base,
    names,
    metadata: validation.metadata,
    instructions: context.frontmatterOnly ? '' : parsed.body,
    diagnostics: [...vouched, ...parsed.diagnostics, ...validation.diagnostics],
  };
  if (!context.frontmatterOnly) candidate.instructionsLine = parsed.bodyLine;
  return candidate;
}

function unreadable(file: string, error: unknown): Diagnostic {
  const code = errorCode(error);
  const fix =
    code === NOT_A_FILE || code === 'ENXIO' || code === 'ESPIPE' || code === 'EISDIR'
      ? `Make ${SKILL_FILE} a regular file`
      : code === 'EFBIG'
        ? `Shrink ${SKILL_FILE}, moving long material into files it links to`
        : "Check the file's permissions";
  return createDiagnostic('SKILL_UNREADABLE', file, `cannot read ${SKILL_FILE}: ${errorReason(error)}. ${fix}; the skill was not loaded.`);
}
