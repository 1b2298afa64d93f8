import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  // zod is a runtime dependency and @sisu-ai/core a peer: neither is bundled.
  external: ['zod', '@sisu-ai/core'],
});
