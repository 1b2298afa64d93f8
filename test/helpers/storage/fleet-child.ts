/**
 * One agent process of a fleet, for the fleet test: a middleware reading
 * skills from a bucket or container (listed, or from the index published at
 * the 4th argument), with the engine's options (`s3` or `azure`, JSON, the
 * 1st argument), asked every 25 ms; prints the skill names each time they
 * change (`{"at": ms, "names": [...]}`), and on "close" on stdin closes the
 * middleware and stops asking. Nothing then may keep the process alive.
 */
import { getSkills, skillsMiddleware, type SkillsOptions } from '../../../src/index.js';

const [connection, place, refresh, index] = process.argv.slice(2) as [string, string, string, string | undefined];
const middleware = skillsMiddleware({
  directories: [place],
  ...(index ? { index } : {}),
  ...(JSON.parse(connection) as Pick<SkillsOptions, 's3' | 'azure'>),
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
