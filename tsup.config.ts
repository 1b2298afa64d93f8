import { defineConfig } from 'tsup';

// zod is a runtime dependency and @sisu-ai/core a peer: neither is bundled.
const external = ['zod', '@sisu-ai/core'];

export default defineConfig([
  {
    // ESM: the library and the sisu-skills bin built together with code splitting, so the bin imports the
    // library's code from a shared chunk instead of carrying a second copy (the shebang in src/cli.ts makes
    // tsup mark cli.js executable). Declarations for the public entry only.
    entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
    format: ['esm'],
    splitting: true,
    dts: { entry: { index: 'src/index.ts' } },
    // The CommonJS build below writes into the same folder at the same time: keep its files.
    clean: ['!index.cjs'],
    // No source maps in the package: see README "Package size and source maps".
    sourcemap: false,
    target: 'node20',
    platform: 'node',
    external,
  },
  {
    // CommonJS for require(): the library only; the bin is ESM.
    entry: { index: 'src/index.ts' },
    format: ['cjs'],
    dts: true,
    clean: false,
    sourcemap: false,
    target: 'node20',
    platform: 'node',
    external,
  },
]);
