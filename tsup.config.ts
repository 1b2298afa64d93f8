import { defineConfig, type Options } from 'tsup';

// zod is a runtime dependency, @sisu-ai/core, @aws-sdk/client-s3 and @azure/storage-blob optional peers: none is bundled.
const shared: Options = {
  target: 'node20',
  platform: 'node',
  external: ['zod', '@sisu-ai/core', '@aws-sdk/client-s3', '@azure/storage-blob'],
  sourcemap: false,
};

// The package's two entries: the stable API, and `@sisu-ai/mw-skills/internals` (unstable, see src/internals.ts).
const library = { index: 'src/index.ts', internals: 'src/internals.ts' };

// The declarations for both module systems, in one compiler pass.
const declarations: Options = { ...shared, entry: library, format: ['esm', 'cjs'], dts: { only: true }, clean: false };

// Three builds write into dist/ at once. Source maps are not shipped: see README "Development".
export default defineConfig((overrides): Options[] => [
  {
    // ESM: the library's entries and the sisu-skills bin built together with code splitting, so the bin and
    // the internals import the library's code from shared chunks instead of carrying second copies (the shebang
    // in src/cli.ts makes tsup mark cli.js executable). It cleans dist/ first, keeping what the builds below write.
    ...shared,
    entry: { ...library, cli: 'src/cli.ts' },
    format: ['esm'],
    splitting: true,
    clean: ['!**/*.cjs', '!**/*.d.ts', '!**/*.d.cts'],
  },
  {
    // CommonJS for require(): the library's entries, sharing chunks as the ESM build does; the bin is ESM.
    ...shared,
    entry: library,
    format: ['cjs'],
    splitting: true,
    clean: false,
  },
  // Unless the caller asked for no declarations (the test suites build the binary with `dts: false`).
  ...(overrides.dts === false ? [] : [declarations]),
]);
