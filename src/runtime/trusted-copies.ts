/**
 * `trust` and the local copies of bucket skills: the mode and the signed
 * hash of each of a skill's files, which a copy checks as it writes them
 * (enforce: only bytes that hash to them are written; report: what is there
 * is copied and said not to be as signed), and the one diagnostic a file
 * that is not as signed gets: the same one a read of that file gives, so a
 * file is reported once whichever comes first. A skill from a sealed
 * prebuilt or published index has its signed entry too (`bindingOf` parses
 * its place's manifest at first use).
 */
import type { HostLogger } from '../base/host.js';
import type { Skill } from '../base/model.js';
import type { UntrustedFile } from '../base/skill-folder.js';
import type { ReadIntegrity } from '../resources/resource-reader.js';
import type { CopyTrust } from '../source/skill-folders.js';
import type { TrustState } from '../trust/state.js';

export function copyTrustOf(trust: TrustState): CopyTrust {
  return {
    mode: trust.mode,
    signedFiles(directory) {
      const binding = trust.bindingOf(directory);
      // No manifest vouches for the folder: nothing of it is signed, so (enforce) nothing of it is copied.
      const files = binding?.accepted.skills.get(binding.skillPath)?.files ?? [];
      return new Map(files.map(([path, , sha256]) => [path, sha256]));
    },
  };
}

/** Logs the diagnostic of each of `files`, the first time it is given. */
export function reportUntrusted(
  integrity: ReadIntegrity,
  skill: Skill,
  files: readonly UntrustedFile[],
  log: HostLogger | undefined,
): void {
  for (const { path, read } of files) {
    const verdict = read ? integrity.verify(skill, path, read.sha256, read.size) : integrity.unsigned(skill, path);
    if (verdict?.diagnostic) log?.warn('[skills] untrusted', verdict.diagnostic);
  }
}
