/**
 * `--embeddings <module>`: the user's embeddings provider, as the
 * `embeddings` option takes it (a provider, or `{ provider, model }`), from
 * the module's `embeddings` or default export (a function is called once to
 * make it). Shared by `index` and `eval`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkEmbeddings, type ResolvedEmbeddings } from '../config/embeddings.js';
import { SkillsConfigError } from '../config/errors.js';
import type { CliIO } from './io.js';

/** The checked provider, or null after saying on stderr why it cannot be used. */
export async function importEmbeddings(command: string, shown: string, io: CliIO): Promise<ResolvedEmbeddings | null> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(io.cwd, shown)).href)) as Record<string, unknown>;
  } catch (error) {
    io.err(`${command}: cannot import --embeddings ${shown}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
  let candidate: unknown = module.embeddings ?? module.default;
  if (typeof candidate === 'function') candidate = await (candidate as () => unknown)();
  try {
    const checked = checkEmbeddings(candidate);
    if (checked) return checked;
  } catch (error) {
    if (!(error instanceof SkillsConfigError)) throw error;
    io.err(`${command}: --embeddings ${shown}: ${error.message}`);
    return null;
  }
  io.err(
    `${command}: --embeddings ${shown} exports no embeddings provider. Export one as the default export or as \`embeddings\`, ` +
      "e.g. `export default openAIEmbeddings({ model: 'text-embedding-3-small' })` (an object with embed(texts)), or { provider, model }.",
  );
  return null;
}
