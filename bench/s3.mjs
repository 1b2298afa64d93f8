/* global setTimeout */
// The object-storage rows (issue 30): skills in a bucket on a local
// S3-compatible server (s3rver in its own process, as in the tests), against
// the floor any engineer would write first: one listing, then a GET of every
// SKILL.md with 64 requests in flight, through the same SDK client settings.
// Reported: our first request from a listing over 2,000 skills (target <=
// 1.3x the floor), and at 20,000 skills the listing, the first request and
// the heap. Each figure is a median of reps taken in one process, ours and
// the floor alternating. Then the index published to the bucket
// (`sisu-skills index ... -o s3://...`): a fresh Node process making its
// first request from it, against a fresh Node process that GETs the index
// with the SDK (target <= 1.5x at 2,000), each timed from spawn to exit.
import { execFile, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import * as api from '../dist/index.js';
import { plainContext } from './plain-ctx.mjs';
import { gc, median, pool, timeAsync } from './stats.mjs';
import { writeWorkload } from './workload.mjs';

const CHILD = fileURLToPath(new URL('../test/helpers/s3/s3rver-child.mjs', import.meta.url));
const PROCESS_CHILD = fileURLToPath(new URL('./s3-child.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const run = promisify(execFile);
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const FLOOR_IN_FLIGHT = 64;

export function startS3rver(directory) {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', CHILD, directory], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk) => resolve({ child, port: JSON.parse(chunk.toString().split('\n')[0]).port }));
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
}

async function filesUnder(root, dir = root) {
  const { readdir } = await import('node:fs/promises');
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesUnder(root, join(dir, e.name)) : [relative(root, join(dir, e.name))])),
  );
  return nested.flat();
}

/** Upload every file under `root` to `prefix` (`skillsOnly`: the SKILL.md files alone). */
async function upload(client, bucket, root, prefix, skillsOnly) {
  const files = (await filesUnder(root)).filter((file) => !skillsOnly || file.endsWith('SKILL.md'));
  await pool(files, 64, async (file) => {
    const key = prefix + file.split(sep).join('/');
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: await readFile(join(root, file)) }));
  });
  return files.length;
}

/** The floor: list the prefix, then GET every SKILL.md, 64 in flight; nothing parsed. */
async function floor(client, bucket, prefix) {
  const keys = [];
  let token;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const item of page.Contents ?? []) if (item.Key.endsWith('/SKILL.md')) keys.push(item.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  await pool(keys, FLOOR_IN_FLIGHT, async (key) =>
    (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body.transformToString(),
  );
  return keys.length;
}

/** The listing alone: every ListObjectsV2 page under `prefix`; the pages it took. */
async function listOnly(client, bucket, prefix) {
  let token;
  let pages = 0;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    pages++;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return pages;
}

/** `sisu-skills index <place> -o <url> --instructions`, with the SDK's environment pointing at `endpoint`. */
async function publishIndex(endpoint, place, url) {
  const env = { ...process.env, AWS_ENDPOINT_URL_S3: endpoint, AWS_REGION: 'us-east-1' };
  Object.assign(env, { AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey });
  const { stdout } = await run(process.execPath, [CLI, 'index', place, '-o', url, '--instructions'], { env, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim().split('\n').at(-1);
}

/** A fresh Node process (bench/s3-child.mjs), timed from spawn to exit; what it printed. */
async function inProcess(...args) {
  return timeAsync(async () => {
    const { stdout } = await run(process.execPath, [PROCESS_CHILD, ...args], { maxBuffer: 1024 * 1024 });
    return JSON.parse(stdout.trim().split('\n').at(-1));
  });
}

/** The published-index rows at `size`: ours (a first request from it) against Node start + one GET of it. */
async function publishedRows({ endpoint, config, bucket, size, reps, row, log }) {
  const place = `s3://${bucket}/lib-${size}/`;
  const key = `lib-${size}.index`;
  const url = `s3://${bucket}/${key}`;
  log(`[bench] s3: publishing the index of ${size} skills...`);
  log(`[bench] s3: ${await publishIndex(endpoint, place, url)}`);
  const ours = [];
  const floors = [];
  let skills = 0;
  let bytes = 0;
  for (let i = 0; i < reps; i++) {
    const floorRun = await inProcess('floor', endpoint, bucket, key);
    floors.push(floorRun.ms);
    bytes = floorRun.value.bytes;
    const ourRun = await inProcess('ours', endpoint, url, place);
    ours.push(ourRun.ms);
    skills = ourRun.value.skills;
  }
  const ratio = median(ours) / median(floors);
  const section = `s3 ${size}`;
  const wait = await withDefaultWait(config, place, skills, url);
  row(
    section,
    `default storageWait (3 s), published index: first request answered, with ${wait.first} skills`,
    wait.answeredMs,
    'ms',
    'reported',
  );
  row(
    section,
    `first request from a published index (${skills} skills, ${(bytes / 1024 / 1024).toFixed(1)} MB), Node start to exit`,
    median(ours),
    'ms',
  );
  row(section, 'floor: Node start + one GET of the index (the SDK), to exit', median(floors), 'ms');
  const target = size === 2000;
  row(section, 'published-index first request / floor', ratio, 'x', target ? '<= 1.5' : 'reported', target ? ratio <= 1.5 : undefined);
  return { skills, indexBytes: bytes, oursMs: ours, floorMs: floors, ratio, defaultWait: wait };
}

/**
 * The first request with the default storageWait, from a listing (or from the published index
 * at `index`): when it answered and with how many of the bucket's skills, and when a later
 * request (asked every 100 ms) first had all `size` of them.
 */
async function withDefaultWait(s3, place, size, index) {
  const started = performance.now();
  const middleware = api.skillsMiddleware({ directories: [place], s3, rankInstructions: false, refresh: 0, ...(index ? { index } : {}) });
  const ask = async () => {
    const ctx = plainContext([{ role: 'user', content: 'Review my pull request.' }]);
    await middleware(ctx, async () => {});
    return api.getSkills(ctx)?.skills.length ?? 0;
  };
  const first = await ask();
  const answeredMs = performance.now() - started;
  let all = first;
  while (all < size) {
    await new Promise((done) => setTimeout(done, 100));
    all = await ask();
  }
  const allMs = performance.now() - started;
  await middleware.close();
  return { answeredMs, first, allMs };
}

/** Our first request: a new middleware, one request, the skills it saw. */
async function firstRequest(s3, place) {
  // storageWait: the first request waits for the whole listing here (its default bounds a request on slow storage).
  const middleware = api.skillsMiddleware({ directories: [place], s3, rankInstructions: false, refresh: 0, storageWait: 600_000 });
  const ctx = plainContext([{ role: 'user', content: 'Review my pull request.' }]);
  await middleware(ctx, async () => {});
  await middleware.close();
  return api.getSkills(ctx)?.skills.length ?? 0;
}

export async function benchS3({ temp, quick, row, results, log }) {
  const server = await startS3rver(join(temp, 's3rver'));
  const endpoint = `http://127.0.0.1:${server.port}`;
  const config = { endpoint, region: 'us-east-1', credentials: CREDENTIALS, forcePathStyle: true };
  const client = new S3Client(config);
  const bucket = 'bench';
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const figures = {};
  try {
    const sizes = quick ? [2000] : [2000, 20000];
    for (const size of sizes) {
      log(`[bench] s3: writing and uploading ${size} skills...`);
      const workload = await writeWorkload(join(temp, `s3-lib-${size}`), size, 30_000 + size);
      // At 20,000 the SKILL.md files alone (s3rver takes minutes for every resource file): listing, first request, heap.
      const objects = await upload(client, bucket, workload.root, `lib-${size}/`, size > 2000);
      const place = `s3://${bucket}/lib-${size}/`;
      const reps = size > 2000 ? 3 : quick ? 2 : 5;
      const ours = [];
      const floors = [];
      const listings = [];
      let seen = 0;
      let pages = 0;
      for (let i = 0; i < reps; i++) {
        const listed = await timeAsync(() => listOnly(client, bucket, `lib-${size}/`));
        listings.push(listed.ms);
        pages = listed.value;
        floors.push((await timeAsync(() => floor(client, bucket, `lib-${size}/`))).ms);
        const timed = await timeAsync(() => firstRequest(config, place));
        ours.push(timed.ms);
        seen = timed.value;
      }
      const ratio = median(ours) / median(floors);
      const section = `s3 ${size}`;
      row(section, `listing alone (${objects} objects, ${pages} pages)`, median(listings), 'ms', 'reported');
      row(section, `first request from a listing (${objects} objects, ${seen} skills)`, median(ours), 'ms');
      row(section, 'floor: listing + GET every SKILL.md, 64 in flight', median(floors), 'ms');
      row(section, 'first request / floor', ratio, 'x', size === 2000 ? '<= 1.3' : 'reported', size === 2000 ? ratio <= 1.3 : undefined);
      gc();
      const before = process.memoryUsage().heapUsed;
      const middleware = api.skillsMiddleware({
        directories: [place],
        s3: config,
        rankInstructions: false,
        refresh: 0,
        storageWait: 600_000,
      });
      await middleware(plainContext([{ role: 'user', content: 'hello' }]), async () => {});
      gc();
      const heapMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
      await middleware.close();
      row(section, 'heap held by a middleware after its first request', heapMb, 'MB', 'reported');
      const wait = await withDefaultWait(config, place, seen);
      row(
        section,
        `default storageWait (3 s), listing: first request answered, with ${wait.first} of the bucket's skills`,
        wait.answeredMs,
        'ms',
        'reported',
      );
      row(section, `default storageWait (3 s), listing: all ${seen} skills served from`, wait.allMs, 'ms', 'reported');
      const published = await publishedRows({ endpoint, config, bucket, size, reps: size > 2000 ? 5 : quick ? 3 : 9, row, log });
      figures[size] = {
        objects,
        pages,
        skills: seen,
        listingMs: listings,
        oursMs: ours,
        floorMs: floors,
        ratio,
        heapMb,
        defaultWait: wait,
        published,
      };
    }
  } finally {
    server.child.kill();
  }
  results.s3 = figures;
}
