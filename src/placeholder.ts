/**
 * The description `sisu-skills init` writes when the author gives none, and
 * the check that finds it left in a SKILL.md (reported by schema.ts). The text is one exported
 * constant, so the scaffold and the check can never drift apart. Pure; never
 * throws.
 */
import { createDiagnostic, type Diagnostic, type Severity } from './diagnostics.js';

/**
 * A plain one-line YAML scalar (no `: `, no leading indicator), so it is
 * written unquoted and reads back as exactly this text.
 */
export const DESCRIPTION_PLACEHOLDER =
  'TODO - say what this skill does and when to use it, e.g. Fills PDF forms. Use when the user asks to fill, sign or merge PDFs.';

/** Where the check reports: the SKILL.md and the position of its `description` key. */
export interface PlaceholderContext {
  file: string;
  /** 1-based; the opening fence (1, 1) when the key's position is unknown. */
  line?: number;
  column?: number;
  /** `error` under the strict option, else `warning` (the table's rule for this code). */
  severity: Severity;
}

/** Runs of whitespace as one space, so a description folded over lines still matches. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const SQUEEZED = squeeze(DESCRIPTION_PLACEHOLDER);

/** Whether `description` still holds the scaffold's placeholder, alone or with text added around it. */
export function isDescriptionPlaceholder(description: unknown): boolean {
  return typeof description === 'string' && squeeze(description).includes(SQUEEZED);
}

/** What a DESCRIPTION_PLACEHOLDER diagnostic says. */
export const PLACEHOLDER_MESSAGE =
  'description: is still the placeholder `sisu-skills init` wrote, and the model picks skills by their description. ' +
  'Replace it with what the skill does and when to use it, e.g. `description: Fills PDF forms. Use when the user asks to fill or sign a PDF.`';

/**
 * A DESCRIPTION_PLACEHOLDER diagnostic when `description` still holds the placeholder; undefined otherwise.
 * @deprecated Validation reports the placeholder itself (schema.ts); only the CLI's tests still call this.
 */
export function checkDescriptionPlaceholder(description: unknown, context: PlaceholderContext): Diagnostic | undefined {
  if (!isDescriptionPlaceholder(description)) return undefined;
  const place = { file: context.file, line: context.line ?? 1, column: context.column ?? 1 };
  // The severity comes from diagnostics.ts's table: `error` here only means "under strict".
  return createDiagnostic('DESCRIPTION_PLACEHOLDER', place, PLACEHOLDER_MESSAGE, context.severity === 'error');
}
