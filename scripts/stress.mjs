#!/usr/bin/env node
// npm run stress: the abuse cases at full size, against the built package (dist/).
// Each module in scripts/stress/ exports `run()` returning rows { case, figure, value }.
// Slow and machine-dependent on purpose, so it stays out of `npm test`; it prints figures,
// it asserts nothing. `npm run stress -- fifo` runs only the modules whose name contains "fifo".
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), 'stress');
const filter = process.argv[2];
const modules = (await readdir(here)).filter((f) => f.endsWith('.mjs') && (!filter || f.includes(filter))).sort();
const rows = [];
for (const file of modules) {
  const started = Date.now();
  process.stdout.write(`== ${file} `);
  const { run } = await import(pathToFileURL(join(here, file)).href);
  const produced = await run();
  process.stdout.write(`(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  for (const row of produced) {
    rows.push({ module: file.replace(/\.mjs$/, ''), ...row });
    console.log(`   ${row.case} | ${row.figure} | ${row.value}`);
  }
}
console.log(`\n${rows.length} figures from ${modules.length} modules`);
