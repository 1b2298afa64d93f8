/**
 * The description `sisu-skills init` writes when the author gives none, and
 * the check that finds it left in a SKILL.md (schema.ts reports it as
 * DESCRIPTION_PLACEHOLDER, with PLACEHOLDER_MESSAGE). The text is one
 * exported constant, so the scaffold and the check can never drift apart.
 * Pure; never throws.
 */

/**
 * A plain one-line YAML scalar (no `: `, no leading indicator), so it is
 * written unquoted and reads back as exactly this text.
 */
export const DESCRIPTION_PLACEHOLDER =
  'TODO - say what this skill does and when to use it, e.g. Fills PDF forms. Use when the user asks to fill, sign or merge PDFs.';

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
