// The local-copy rows (issue 42): activating a bucket skill with 10
// resources, whose files are copied to the local disk so its scripts can run:
// the first activation (copies SKILL.md's resources, written read-only under
// the copy root) and a reuse (a second conversation, the copy found again),
// against a plain GET loop of the same objects with the same SDK client
// settings (one after another, and 8 in flight as the copy reads them), and
// beside an activation with `localCopies: false` (what it cost before), and
// the first copy with `trust` (a signed library: each file hashed as written).
// s3rver on 127.0.0.1, in its own process; medians of reps taken in one
// process, ours and the loop alternating.
import { Buffer } from 'node:buffer';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import * as api from '../dist/index.js';
import { plainContext } from './plain-ctx.mjs';
import { startS3rver } from './s3.mjs';
import { median, pool, timeAsync } from './stats.mjs';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const run = promisify(execFile);

/** Signs `place` (an s3:// URL on `endpoint`) with a new key under `temp`; the public key's PEM. */
async function signPlace(temp, endpoint, place) {
  const env = {
    ...process.env,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  };
  const prefix = join(temp, 'copies-key');
  await run(process.execPath, [CLI, 'keygen', prefix]);
  await run(process.execPath, [CLI, 'sign', place, '--key', `${prefix}.key`], { env });
  return readFile(`${prefix}.pub`, 'utf8');
}
const RESOURCES = 10;

/** A skill of SKILL.md and 10 resources (4 scripts, 6 references, 2-8 KB each, as real skills' are): key -> text. */
function skillFiles(prefix) {
  const line = (i) => `Line ${i} of a real-shaped file: what to check, how to run it, what it prints.\n`;
  const text = (bytes) => Array.from({ length: Math.ceil(bytes / 80) }, (_, i) => line(i)).join('');
  const head = '---\nname: deploy\ndescription: Deploys a service. Use when asked to deploy.\n---\n';
  const files = { [`${prefix}SKILL.md`]: `${head}# Deploy\n\nRun \`python3 \${CLAUDE_SKILL_DIR}/scripts/step-0.py\`.\n${text(2500)}` };
  for (let i = 0; i < RESOURCES; i++) {
    const name = i < 4 ? `scripts/step-${i}.${i % 2 === 0 ? 'py' : 'sh'}` : `references/part-${i}.md`;
    files[`${prefix}${name}`] = `${i < 4 ? '#!/usr/bin/env bash\n' : '# Part\n'}${text(2000 + i * 600)}`;
  }
  return files;
}

/** One activation by the model, through the registered use_skill, in a new conversation on `middleware`. */
async function activate(middleware) {
  const ctx = plainContext([{ role: 'user', content: 'Deploy it.' }]);
  await middleware(ctx, async () => {});
  const tool = ctx.tools.get('use_skill');
  const timed = await timeAsync(() => tool.handler({ skill_name: 'deploy' }, { signal: ctx.signal, log: ctx.log }));
  if (!String(timed.value).startsWith('<skill name="deploy">')) throw new Error(`activation failed: ${String(timed.value).slice(0, 200)}`);
  return timed.ms;
}

async function getAll(client, bucket, keys, inFlight) {
  await pool(keys, inFlight, async (key) =>
    (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body.transformToByteArray(),
  );
}

export async function benchCopies({ temp, quick, row, results, log }) {
  const server = await startS3rver(join(temp, 's3rver-copies'));
  const endpoint = `http://127.0.0.1:${server.port}`;
  const config = { endpoint, region: 'us-east-1', credentials: CREDENTIALS, forcePathStyle: true };
  const client = new S3Client(config);
  const bucket = 'copies';
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    const files = skillFiles('lib/deploy/');
    for (const [key, body] of Object.entries(files)) await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    const keys = Object.keys(files);
    const bytes = Object.values(files).reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    const options = { directories: [`s3://${bucket}/lib/`], s3: config, rankInstructions: false, refresh: 0, storageWait: 600_000 };
    const reps = quick ? 3 : 9;
    const trustKey = await signPlace(temp, endpoint, options.directories[0]);
    const figures = { loop: [], loop8: [], first: [], reuse: [], noCopies: [], trusted: [] };
    log(`[bench] copies: ${reps} reps of an activation with ${RESOURCES} resources...`);
    // One of each first, untimed: the SDK imported and the connections open for every timed run alike.
    await getAll(client, bucket, keys, 1);
    for (let i = 0; i <= reps; i++) {
      const loop = await timeAsync(() => getAll(client, bucket, keys, 1));
      const loop8 = await timeAsync(() => getAll(client, bucket, keys, 8));
      const middleware = api.skillsMiddleware(options);
      const first = await activate(middleware);
      const reuse = await activate(middleware);
      await middleware.close();
      const plain = api.skillsMiddleware({ ...options, localCopies: false });
      const noCopies = await activate(plain);
      await plain.close();
      const proven = api.skillsMiddleware({ ...options, trust: { keys: [trustKey] } });
      const trusted = await activate(proven);
      await proven.close();
      if (i === 0) continue;
      figures.loop.push(loop.ms);
      figures.loop8.push(loop8.ms);
      figures.first.push(first);
      figures.reuse.push(reuse);
      figures.noCopies.push(noCopies);
      figures.trusted.push(trusted);
    }
    const section = 'local copies';
    const loop = median(figures.loop);
    row(
      section,
      `plain GET loop of the skill's ${keys.length} objects (${(bytes / 1024).toFixed(1)} KB), one after another`,
      loop,
      'ms',
      'reported',
    );
    row(section, 'the same GETs, 8 in flight', median(figures.loop8), 'ms', 'reported');
    row(section, `activation, first copy (${RESOURCES} resources written read-only)`, median(figures.first), 'ms', 'reported');
    row(section, 'activation, copy found again (a second conversation)', median(figures.reuse), 'ms', 'reported');
    row(section, 'activation with localCopies: false (no copy)', median(figures.noCopies), 'ms', 'reported');
    row(section, 'activation with trust, first copy (each file hashed as written)', median(figures.trusted), 'ms', 'reported');
    row(section, 'first copy / GET loop', median(figures.first) / loop, 'x', 'reported');
    row(section, 'first copy / the GETs 8 in flight', median(figures.first) / median(figures.loop8), 'x', 'reported');
    row(section, 'reuse / GET loop', median(figures.reuse) / loop, 'x', 'reported');
    row(section, 'first copy with trust / without', median(figures.trusted) / median(figures.first), 'x', 'reported');
    results.copies = { objects: keys.length, bytes, reps, ...figures };
  } finally {
    server.child.kill();
  }
}
