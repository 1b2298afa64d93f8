/**
 * Rollback protection: the highest manifest version this process has
 * accepted for each place. A lower one is an older signed manifest replayed
 * (its files may hold what a later version fixed): refused, and the last
 * good library keeps serving. An equal version is the same content signed
 * again (a signature added), so it passes.
 */
import type { DiagnosticCode } from '../base/diagnostics.js';

export class AcceptedVersions {
  private readonly highest = new Map<string, number>();

  /** The highest version accepted for `place`, if any. */
  highestOf(place: string): number | undefined {
    return this.highest.get(place);
  }

  /** MANIFEST_ROLLBACK when `version` is below what `place` has shown this process; undefined when it may be accepted. */
  check(place: string, version: number): { code: DiagnosticCode; message: string } | undefined {
    const highest = this.highest.get(place);
    if (highest === undefined || version >= highest) return undefined;
    return {
      code: 'MANIFEST_ROLLBACK',
      message:
        `has version ${version}, lower than version ${highest} this process already accepted for this place: an older signed ` +
        'manifest was put back. The last good library keeps serving; publish the current files and manifest again.',
    };
  }

  /** Remember `version` for `place` (never lowers what was accepted). */
  accept(place: string, version: number): void {
    const highest = this.highest.get(place);
    if (highest === undefined || version > highest) this.highest.set(place, version);
  }
}
