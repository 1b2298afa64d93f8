import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    // The cli build below writes into the same folder at the same time: keep its files.
    clean: ['!cli.js', '!cli.js.map'],
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    // zod is a runtime dependency and @sisu-ai/core a peer: neither is bundled.
    external: ['zod', '@sisu-ai/core'],
  },
  {
    // The sisu-skills bin: ESM only; the shebang in src/cli.ts makes tsup mark it executable.
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    external: ['zod', '@sisu-ai/core'],
  },
]);
