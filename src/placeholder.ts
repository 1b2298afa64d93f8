/**
 * The description `sisu-skills init` writes when the author gives none, and
 * the check that finds it left in a SKILL.md. The text is one exported
 * constant, so the scaffold and the check can never drift apart. Pure; never
 * throws.
 */
import type { Diagnostic, Severity } from './diagnostics.js';

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
  /** As the other naming-and-length rules: a warning, an error under strict. */
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

/** A DESCRIPTION_PLACEHOLDER diagnostic when `description` still holds the placeholder; undefined otherwise. */
export function checkDescriptionPlaceholder(description: unknown, context: PlaceholderContext): Diagnostic | undefined {
  if (!isDescriptionPlaceholder(description)) return undefined;
  return {
    code: 'DESCRIPTION_PLACEHOLDER',
    severity: context.severity,
    file: context.file,
    line: context.line ?? 1,
    column: context.column ?? 1,
    message:
      'description: is still the placeholder `sisu-skills init` wrote, and the model picks skills by their description. ' +
      'Replace it with what the skill does and when to use it, e.g. `description: Fills PDF forms. Use when the user asks to fill or sign a PDF.`',
  };
}
