/**
 * One agent process of a fleet, for the fleet test: a middleware reading
 * skills from a bucket (listed, or from the index published at the 4th
 * argument), asked every 25 ms; prints the skill names each time
 * they change (`{"at": ms, "names": [...]}`), and on "close" on stdin closes
 * the middleware and stops asking. Nothing then may keep the process alive.
 */
import { getSkills, skillsMiddleware } from '../../../src/index.js';

const [endpoint, place, refresh, index] = process.argv.slice(2) as [string, string, string, string | undefined];
const middleware = skillsMiddleware({
  directories: [place],
  ...(index ? { index } : {}),
  s3: { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
  refresh: Number(refresh),
  rankInstructions: false,
});
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
let last = '';
let timer: ReturnType<typeof setTimeout> | undefined;
let closed = false;

async function ask(): Promise<void> {
  const ctx = {
    messages: [{ role: 'user', content: 'hello' }],
    tools: { register: () => undefined, get: () => undefined, list: () => [] },
    state: {},
    log: silent,
    input: 'hello',
  };
  await middleware(ctx as never, () => Promise.resolve());
  const names = JSON.stringify(getSkills(ctx as never)?.skills.map((s) => s.metadata.name) ?? []);
  if (names !== last) {
    last = names;
    process.stdout.write(`${JSON.stringify({ at: Date.now(), names: JSON.parse(names) as string[] })}\n`);
  }
  if (!closed) timer = setTimeout(() => void ask(), 25);
}

process.stdin.on('data', (chunk: Buffer) => {
  if (!chunk.toString().includes('close')) return;
  closed = true;
  clearTimeout(timer);
  void middleware.close().then(() => {
    process.stdin.destroy();
    process.stdout.write('closed\n');
  });
});
void ask();
