/**
 * What one middleware knows about trust over its life, in one object it
 * owns: the gate (the places' manifests admitted, rollback), the mode, each
 * scanned skill's binding to the manifest entry that vouches for it (set by
 * the latest discovery), the skills refused after their index was built
 * (left out of every later discovery until a newer manifest vouches for
 * other bytes), and the mismatches already reported (one diagnostic each).
 */
import { sep } from 'node:path';
import type { Diagnostic } from '../base/diagnostics.js';
import { childPath } from '../base/paths.js';
import type { Mismatch } from './compare.js';
import { TrustGate, type AcceptedManifest, type GatePolicy } from './gate.js';
import { readPublicKey } from './keys.js';

export type TrustMode = 'enforce' | 'report';

/** A skill as its place's manifest vouches for it. */
export interface SkillBinding {
  accepted: AcceptedManifest;
  /** The skill folder's path in the place (`.` when the place is the skill). */
  skillPath: string;
}

export class TrustState {
  readonly gate: TrustGate;
  /** Each skill folder's binding, by the folder's path as discovery reached it: the latest discovery's. */
  private bindings = new Map<string, SkillBinding>();
  /** Skills refused at activation, by folder, with the digest of the entry they were refused against. */
  private readonly revoked = new Map<string, string>();
  /** Keys of the mismatches and place problems already reported. */
  private readonly reported = new Set<string>();
  /** Files a skill's folder holds that its manifest does not list (refused as unsigned, not "not listed"), by folder. */
  private readonly unsigned = new Map<string, Set<string>>();

  /** `onRevoke`: called when a skill is refused after its index was built, so the next request leaves it out. */
  constructor(
    readonly mode: TrustMode,
    policy: GatePolicy,
    private readonly onRevoke: () => void = () => undefined,
  ) {
    this.gate = new TrustGate(policy);
  }

  get enforcing(): boolean {
    return this.mode === 'enforce';
  }

  /** Finds a skill's binding when no map holds it: a sealed index's, which parses a place's manifest at its first use. */
  private resolve: ((directory: string) => SkillBinding | undefined) | undefined;

  /** Replace every binding with a discovery's. */
  setBindings(bindings: Map<string, SkillBinding>): void {
    this.bindings = bindings;
    this.resolve = undefined;
  }

  /** Replace every binding with a sealed index's, found at first use. */
  setResolver(resolve: (directory: string) => SkillBinding | undefined): void {
    this.bindings = new Map();
    this.resolve = resolve;
  }

  bindingOf(directory: string): SkillBinding | undefined {
    const held = this.bindings.get(directory);
    if (held || !this.resolve) return held;
    const found = this.resolve(directory);
    if (found) this.bindings.set(directory, found);
    return found;
  }

  /** Refuse the skill in `directory` from now on, until its entry changes (a newer manifest). */
  revoke(directory: string, binding: SkillBinding): void {
    this.revoked.set(directory, binding.accepted.skills.get(binding.skillPath)?.digest ?? '');
    this.onRevoke();
  }

  /** Record the files of the skill in `directory` its manifest does not list (a listing's finding). */
  markUnsigned(directory: string, paths: readonly string[]): void {
    if (paths.length > 0) this.unsigned.set(directory, new Set(paths));
    else this.unsigned.delete(directory);
  }

  isUnsigned(directory: string, path: string): boolean {
    return this.unsigned.get(directory)?.has(path) === true;
  }

  /** Whether a skill in `directory` was ever refused at an activation (whatever vouches for it now). */
  hasRevoked(directory: string): boolean {
    // Nothing refused yet (every first request): no folder's path hashed for the lookup.
    return this.revoked.size > 0 && this.revoked.has(directory);
  }

  /** Whether any skill was ever refused at an activation. */
  hasRevokedAny(): boolean {
    return this.revoked.size > 0;
  }

  /** Whether the skill in `directory`, as `binding` now vouches for it, was refused at an activation. */
  isRevoked(directory: string, binding: SkillBinding): boolean {
    if (this.revoked.size === 0) return false;
    const digest = this.revoked.get(directory);
    if (digest === undefined) return false;
    if (digest === (binding.accepted.skills.get(binding.skillPath)?.digest ?? '')) return true;
    // A newer manifest vouches for other bytes: the skill gets a new chance.
    this.revoked.delete(directory);
    return false;
  }

  /** Told of each diagnostic when it is first given (the middleware's `onEvent`): see `once`. */
  private findings: ((diagnostic: Diagnostic, skill: string) => void) | undefined;

  /** Tell `listener` of each diagnostic when it is first given, with the skill folder's path in its place ('' for a place). */
  onFinding(listener: (diagnostic: Diagnostic, skill: string) => void): void {
    this.findings = listener;
  }

  /**
   * `diagnostic`, the first time it is seen (by code, file and message); undefined after. `skill`: the skill
   * folder's path in its place, or '' when the diagnostic is about the place's manifest.
   */
  once(diagnostic: Diagnostic, skill = ''): Diagnostic | undefined {
    const key = `${diagnostic.code}\0${diagnostic.file}\0${diagnostic.message}`;
    if (this.reported.has(key)) return undefined;
    this.reported.add(key);
    this.findings?.(diagnostic, skill);
    return diagnostic;
  }
}

/** Where a mismatch is: the skill folder, or its file (a file's path in the skill uses `/`, as the folder's does in a bucket). */
export function mismatchFile(directory: string, mismatch: Mismatch): string {
  if (mismatch.file === undefined) return directory;
  const parts = directory.includes('://') ? mismatch.file : mismatch.file.split('/').join(sep);
  return childPath(directory, parts);
}

/** The `trust` option's settings, as resolved (config/trust-options.ts checked every key). */
export interface TrustSettings {
  keys: readonly string[];
  threshold: number;
  mode: TrustMode;
}

/** A middleware's TrustState for `settings` (`now`: the clock expiry is judged by). */
export function createTrustState(settings: TrustSettings, onRevoke: () => void, now: () => number = Date.now): TrustState {
  const keys = settings.keys.flatMap((pem) => {
    const read = readPublicKey(pem);
    return read.ok ? [read.key] : [];
  });
  return new TrustState(settings.mode, { keys, threshold: settings.threshold, now }, onRevoke);
}

/**
 * A source of change for the freshness owner (index/freshness.ts, structurally): an index kept while
 * nothing changed is rebuilt once a manifest it rests on has expired, so the place is refused then
 * (MANIFEST_EXPIRED), not at the next change or `cacheTtl`.
 */
export function expiryWatch(trust: TrustState): { maxAge(): number | undefined; report(): void; close(): void } {
  return {
    maxAge: () => (trust.gate.hasExpired() ? 0 : undefined),
    report: () => undefined,
    close: () => undefined,
  };
}
