/**
 * The `packages` option for one scan: each package resolved (on every scan,
 * not at construction: installs change) to the folders to scan after the
 * configured directories, and which package a found skill came from.
 */
import { sep } from 'node:path';
import type { Diagnostic } from '../base/diagnostics.js';
import type { ResolvedOptions } from '../config/options.js';
import { expectedSkillName, resolvePackages } from '../config/packages.js';
import type { PackageOrigin } from './candidates.js';
import type { SkillLocation } from './walk.js';

export interface PackageRoots {
  /** Folders to scan after the configured directories: each skill package's root, each collection's `skills/`. */
  roots: string[];
  /** Packages that did not resolve or hold no skill. */
  diagnostics: Diagnostic[];
  /** The package a found skill belongs to, if any. */
  of(location: SkillLocation): PackageOrigin | undefined;
  /** The package folder a root belongs to (where its signed manifest is), or the root itself. */
  placeOf(root: string): string;
}

export async function resolvePackageRoots(options: ResolvedOptions): Promise<PackageRoots> {
  if (options.packages.length === 0) return { roots: [], diagnostics: [], of: () => undefined, placeOf: (root) => root };
  const resolutions = await resolvePackages(options.packages, { cwd: options.cwd, fs: options.fs });
  const roots: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const skillRoots = new Map<string, PackageOrigin>();
  const collections: Array<{ folder: string; origin: PackageOrigin }> = [];
  const packageOfRoot = new Map<string, string>();
  for (const resolution of resolutions) {
    if (!resolution.ok) {
      diagnostics.push(resolution.diagnostic);
    } else if (resolution.kind === 'skill') {
      roots.push(resolution.directory);
      // A package root's folder is named by the package manager, not the author: judge its name by the package name.
      skillRoots.set(resolution.directory, {
        name: resolution.name,
        version: resolution.version,
        expectedName: expectedSkillName(resolution.name),
      });
    } else {
      roots.push(resolution.skillsDirectory);
      packageOfRoot.set(resolution.skillsDirectory, resolution.directory);
      collections.push({ folder: resolution.skillsDirectory + sep, origin: { name: resolution.name, version: resolution.version } });
    }
  }
  return {
    roots,
    diagnostics,
    placeOf: (root) => packageOfRoot.get(root) ?? root,
    of: (location) =>
      skillRoots.get(location.realDirectory) ??
      skillRoots.get(location.directory) ??
      collections.find(({ folder }) => location.directory.startsWith(folder) || location.realDirectory.startsWith(folder))?.origin,
  };
}
