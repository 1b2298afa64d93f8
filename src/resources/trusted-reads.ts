/**
 * The `trust` option's hold on read_skill_resource (and SKILL.md read
 * through it): a file the skill's manifest does not list is refused as
 * unsigned, and a file whose bytes (the very bytes read, hashed before they
 * are decoded) are not the signed ones is refused (enforce) or served with
 * a diagnostic (report). Each diagnostic is given once.
 */
import { createDiagnostic } from '../base/diagnostics.js';
import type { Skill } from '../base/model.js';
import { hashPrefix, mismatchMessage, type Mismatch } from '../trust/compare.js';
import { mismatchFile, type TrustState } from '../trust/state.js';
import type { IntegrityVerdict, ReadIntegrity } from './resource-reader.js';

function verdict(trust: TrustState, skill: Skill, mismatch: Mismatch, message: string): IntegrityVerdict {
  const diagnostic = trust.once(
    createDiagnostic('UNTRUSTED_SKILL', mismatchFile(skill.directory, mismatch), mismatchMessage(mismatch)),
    mismatch.skill,
  );
  return { refuse: trust.enforcing, message, ...(diagnostic ? { diagnostic } : {}) };
}

const UNSIGNED = "it was added after the skill's library was signed (its signed manifest does not list it), so it is not served.";

export function trustedReads(trust: TrustState): ReadIntegrity {
  return {
    unsigned(skill, path) {
      if (!trust.isUnsigned(skill.directory, path)) return undefined;
      const skillPath = trust.bindingOf(skill.directory)?.skillPath ?? skill.metadata.name;
      return verdict(trust, skill, { kind: 'added', skill: skillPath, file: path }, UNSIGNED);
    },
    verify(skill, path, sha256, size) {
      const binding = trust.bindingOf(skill.directory);
      if (!binding)
        return trust.enforcing
          ? { refuse: true, message: 'no signed manifest vouches for this skill, so its files are not served.' }
          : undefined;
      const signed = binding.accepted.skills.get(binding.skillPath)?.files.find(([file]) => file === path);
      const at = { skill: binding.skillPath, file: path, actual: sha256 };
      if (!signed) return verdict(trust, skill, { kind: 'added', ...at }, UNSIGNED);
      if (signed[2] === sha256) return undefined;
      const mismatch: Mismatch = { kind: 'changed', ...at, expected: signed[2], expectedSize: signed[1], actualSize: size };
      return verdict(
        trust,
        skill,
        mismatch,
        `it is not the file its publisher signed (expected sha256 ${hashPrefix(signed[2])}, got ${hashPrefix(sha256)}), so it is not served.`,
      );
    },
  };
}
