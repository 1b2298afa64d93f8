// One fresh Node process for the published-index rows of bench/s3.mjs, timed
// by its parent from spawn to exit:
//   floor <endpoint> <bucket> <key>: import the SDK, GET the index, read its body;
//   ours <endpoint> <index-url> <place>: a middleware with `index`, its first request.
// Prints one JSON line: what it read, for the parent to check.
const [mode, endpoint, a, b] = process.argv.slice(2);
const config = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, forcePathStyle: true };

if (mode === 'floor') {
  const { S3Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const answer = await new S3Client(config).send(new GetObjectCommand({ Bucket: a, Key: b }));
  const bytes = await answer.Body.transformToByteArray();
  process.stdout.write(`${JSON.stringify({ bytes: bytes.length })}\n`);
} else {
  const api = await import('../dist/index.js');
  const { plainContext } = await import('./plain-ctx.mjs');
  const middleware = api.skillsMiddleware({ directories: [b], index: a, s3: config, refresh: 0, storageWait: 600_000 });
  const ctx = plainContext([{ role: 'user', content: 'Review my pull request.' }]);
  await middleware(ctx, async () => {});
  await middleware.close();
  process.stdout.write(`${JSON.stringify({ skills: api.getSkills(ctx)?.skills.length ?? 0 })}\n`);
}
