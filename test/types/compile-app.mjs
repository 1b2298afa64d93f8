/**
 * Compiles the type test's app in a process of its own: node
 * test/types/compile-app.mjs <dir> reads <dir>/tsconfig.json, checks the
 * files it names (not every file they import: src/ is `npm run typecheck`'s)
 * and prints { sourceFiles, problems } as JSON. Run apart from the test
 * worker, the compiler runs without the suite's coverage counters (a fifth
 * of its time) and is not loaded into a worker that has no other use for it.
 */
import { createRequire } from 'node:module';
import { relative, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Required, not imported: an ESM import of the compiler's 9 MB CommonJS file first scans it for its exports (half a
// second of this process's time on Node 20).
const ts = createRequire(import.meta.url)('typescript');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = process.argv[2];
if (!dir) throw new Error('usage: node test/types/compile-app.mjs <folder holding tsconfig.json>');

const config = ts.readConfigFile(join(dir, 'tsconfig.json'), ts.sys.readFile);
if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const roots = new Set(parsed.fileNames);
const diagnostics = [
  ...parsed.errors,
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...parsed.fileNames.flatMap((name) => {
    const file = program.getSourceFile(name);
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  }),
];
/** Problems per root file name ("(other)" for the rest), each as "file:line:col TSnnnn message". */
const problems = {};
for (const d of diagnostics) {
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
  const file = d.file ? relative(d.file.fileName.startsWith(dir) ? dir : ROOT, d.file.fileName) : '(config)';
  const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  const line = `${file}${at ? `:${at.line + 1}:${at.character + 1}` : ''} TS${d.code} ${text}`;
  const key = d.file && roots.has(d.file.fileName) ? relative(dir, d.file.fileName) : '(other)';
  (problems[key] ??= []).push(line);
}
process.stdout.write(JSON.stringify({ sourceFiles: program.getSourceFiles().map((f) => f.fileName), problems }));
