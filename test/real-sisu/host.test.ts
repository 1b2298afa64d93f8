/**
 * The suite hooks of host.ts: every scenario leans on realSisu() to close the
 * servers its tests start, so a server left open would show up nowhere else
 * (the run would only linger). The two tests run in order, by design.
 */
import { expect, it, vi, type MockInstance } from 'vitest';
import type { ScriptedServer } from '../../demo/scripted-model.mjs';
import { describeSisu, PROVIDERS, realSisu } from './host.js';

describeSisu('realSisu()', () => {
  const sisu = realSisu();
  const started: ScriptedServer[] = [];
  const closes: MockInstance[] = [];

  it('loads SISU and starts a scripted server for the test', async () => {
    expect(sisu.host.core.Agent).toBeTypeOf('function');
    for (const provider of PROVIDERS) {
      const server = await sisu.start(provider, []);
      started.push(server);
      closes.push(vi.spyOn(server, 'close'));
    }
    // Open while the test runs: any request gets an HTTP answer.
    for (const server of started) await expect(fetch(server.url)).resolves.toBeInstanceOf(Response);
  });

  it('closed every server the previous test started', async () => {
    expect(started).toHaveLength(PROVIDERS.length);
    // Asked to close (not probed by connecting: another worker may reuse a freed port).
    for (const close of closes) expect(close).toHaveBeenCalledTimes(1);
  });
});
