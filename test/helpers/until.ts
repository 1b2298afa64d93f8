/** Waits until `check` holds, polling every `every` ms; throws when `ms` pass first (a test fails, never hangs). */
export async function until(check: () => boolean | Promise<boolean>, ms = 4000, every = 50): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((done) => setTimeout(done, every));
  }
}
