import { defineConfig, type Options } from 'tsup';

// zod is a runtime dependency, @sisu-ai/core, @aws-sdk/client-s3 and @azure/storage-blob optional peers: none is bundled.
const shared: Options = {
  target: 'node20',
  platform: 'node',
  external: ['zod', '@sisu-ai/core', '@aws-sdk/client-s3', '@azure/storage-blob'],
  sourcemap: false,
};

// The declarations for both module systems, in one compiler pass.
const declarations: Options = { ...shared, entry: { index: 'src/index.ts' }, format: ['esm', 'cjs'], dts: { only: true }, clean: false };

// Three builds write into dist/ at once. Source maps are not shipped: see README "Development".
export default defineConfig((overrides): Options[] => [
  {
    // ESM: the library and the sisu-skills bin built together with code splitting, so the bin imports the
    // library's code from a shared chunk instead of carrying a second copy (the shebang in src/cli.ts makes
    // tsup mark cli.js executable). It cleans dist/ first, keeping what the builds below write.
    ...shared,
    entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
    format: ['esm'],
    splitting: true,
    clean: ['!index.cjs', '!index.d.ts', '!index.d.cts'],
  },
  {
    // CommonJS for require(): the library only; the bin is ESM.
    ...shared,
    entry: { index: 'src/index.ts' },
    format: ['cjs'],
    clean: false,
  },
  // Unless the caller asked for no declarations (the test suites build the binary with `dts: false`).
  ...(overrides.dts === false ? [] : [declarations]),
]);
