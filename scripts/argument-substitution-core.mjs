// What the placeholder rule (src/base/arguments.ts) changes on a folder of real
// SKILL.md files, given arguments. Pure over the functions it is handed, so
// the script (built package) and the tests (src) count with the same code.

/** Counts, over `files` ({ path, text }), of what activating each with `args` would change. */
export function measureSubstitution(files, args, deps) {
  const counts = {
    files: files.length,
    // Argument placeholders ($ARGUMENTS, $ARGUMENTS[N], $N, declared $name) filled in.
    changedOutsideCode: 0,
    changedInsideCode: 0,
    // Placeholders inside code left as written because the skill did not opt in (no `arguments` / `argument-hint`).
    untouchedInCode: 0,
    untouchedInCodePlaceholders: 0,
    // Arguments appended because no placeholder used them.
    appended: 0,
    optedIn: 0,
    // Folder placeholders, filled in wherever they are.
    skillDir: 0,
    pluginRoot: 0,
  };
  const untouchedFiles = [];
  for (const file of files) {
    const parsed = deps.parseFrontmatter(file.text);
    const metadata = parsed.metadata ?? {};
    const body = parsed.body;
    const fill = { arguments: args, skillDir: '/skill', metadata };
    const result = deps.substitute(body, fill);
    if (result.replaced.prose > 0) counts.changedOutsideCode++;
    if (result.replaced.code > 0) counts.changedInsideCode++;
    if (result.appended) counts.appended++;
    if (deps.substitutesInCode(metadata)) counts.optedIn++;
    else {
      // What opting in would have changed inside code: what the rule protects.
      const forced = deps.substitute(body, { ...fill, metadata: { ...metadata, 'argument-hint': '[x]' } });
      if (forced.replaced.code > 0) {
        counts.untouchedInCode++;
        counts.untouchedInCodePlaceholders += forced.replaced.code;
        untouchedFiles.push(file.path);
      }
    }
    if (/\$\{(?:CLAUDE_SKILL_DIR|SKILL_DIR)\}/.test(body)) counts.skillDir++;
    if (body.includes('${CLAUDE_PLUGIN_ROOT}')) counts.pluginRoot++;
  }
  return { counts, untouchedFiles };
}
