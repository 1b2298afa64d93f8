// A model module for `sisu-skills eval`: SISU's ollamaAdapter against a local Ollama.
// Put it in your app (where @sisu-ai/adapter-ollama is installed: the import resolves
// from this file's folder), pull a model that supports tool calls, then run:
//
//   ollama pull llama3.1
//   npx sisu-skills eval ./skills --cases cases.jsonl --model ./eval-ollama.mjs --concurrency 1
//
// The eval imports this file and uses its default export (or an export named `model`):
// any SISU model adapter works the same way (openAIAdapter, anthropicAdapter, your own).
import { ollamaAdapter } from '@sisu-ai/adapter-ollama';

export default ollamaAdapter({
  model: process.env.OLLAMA_MODEL ?? 'llama3.1',
  baseUrl: process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434',
});

// Optional: the skillsMiddleware options your app uses besides the folders, packages and
// filters given on the command line, so the eval sees the catalog and pre-activation it will.
export const skillsOptions = { autoActivate: false };
