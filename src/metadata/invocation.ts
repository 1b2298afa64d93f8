/**
 * Who may activate a skill, as its frontmatter says: `user-invocable: false`
 * keeps `@` mentions from activating it, `disable-model-invocation: true`
 * keeps it out of the catalog and the model's reach. Read wherever a list of
 * skills is narrowed to what the model or the user may reach (a prebuilt
 * index, a library, the CLI).
 */

/**
 * False when the frontmatter says `user-invocable: false` (or the string
 * "false"): `@` mentions do not activate such a skill, while the model (and
 * `always`) still can.
 */
export function isUserInvocable(metadata: Readonly<Record<string, unknown>>): boolean {
  const value = metadata['user-invocable'];
  if (value === false) return false;
  return !(typeof value === 'string' && value.trim().toLowerCase() === 'false');
}

/** The frontmatter key that keeps a skill out of the catalog and the model's reach. */
const DISABLE_MODEL_INVOCATION = 'disable-model-invocation';

/**
 * False when the frontmatter says `disable-model-invocation: true` (a boolean,
 * or the string "true" as some YAML writers quote it): such a skill stays out
 * of the catalog and use_skill, while `@` mentions and `always` still work.
 */
export function isModelInvocable(metadata: Readonly<Record<string, unknown>>): boolean {
  const value = metadata[DISABLE_MODEL_INVOCATION];
  if (value === true) return false;
  if (typeof value === 'string' && value.trim().toLowerCase() === 'true') return false;
  return true;
}
