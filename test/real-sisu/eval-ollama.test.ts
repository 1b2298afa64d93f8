/**
 * The README's Ollama example (docs/examples/eval-ollama.mjs), as a user runs
 * it: copied into an app where @sisu-ai/adapter-ollama is installed, given to
 * `sisu-skills eval --model`, and answered by a local server speaking Ollama's
 * /api/chat. SISU's real ollamaAdapter keeps only tool calls that carry an id:
 * an Ollama that sends none reaches the eval as no call at all, which the
 * second test pins down (docs/eval-report.md says so).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { EvalOutput } from '../../src/cli/eval-command.js';
import { cli, ROOT } from '../helpers/cli.js';
import { describeSisu, SISU_ROOT } from './host.js';

interface OllamaRequest {
  model?: unknown;
  messages?: Array<{ role?: unknown; content?: unknown }>;
  tools?: Array<{ function?: { name?: unknown } }>;
  stream?: unknown;
}

/** A /api/chat server: picks a skill by the user's words, answering with or without tool-call ids. */
async function startOllama(withIds: boolean): Promise<{ url: string; requests: OllamaRequest[]; close(): Promise<void> }> {
  const requests: OllamaRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as OllamaRequest;
      requests.push(request);
      const ok = req.url === '/api/chat' && request.stream === false && Array.isArray(request.messages);
      const user = String(request.messages?.find((m) => m.role === 'user')?.content ?? '');
      const skill = user.includes('PDF') ? 'pdf-forms' : user.includes('invoice') ? 'invoice-chaser' : undefined;
      const call = skill && {
        ...(withIds ? { id: `call_${requests.length}` } : {}),
        function: { name: 'use_skill', arguments: { skill_name: skill } },
      };
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          ok
            ? {
                model: request.model,
                created_at: new Date(0).toISOString(),
                message: { role: 'assistant', content: call ? '' : 'Hello.', ...(call ? { tool_calls: [call] } : {}) },
                done: true,
              }
            : { error: `unexpected request to ${req.url}` },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describeSisu('the README Ollama example with SISU ollamaAdapter', () => {
  let app: string;
  const closers: Array<() => Promise<void>> = [];
  const savedHost = process.env.OLLAMA_HOST;

  beforeAll(() => {
    app = mkdtempSync(path.join(os.tmpdir(), 'eval-ollama-app-'));
    // The app has the adapter installed (a link to SISU's compiled package, whose own dependencies resolve beside it).
    mkdirSync(path.join(app, 'node_modules', '@sisu-ai'), { recursive: true });
    symlinkSync(
      path.join(SISU_ROOT, 'node_modules', '@sisu-ai', 'adapter-ollama'),
      path.join(app, 'node_modules', '@sisu-ai', 'adapter-ollama'),
      'dir',
    );
    copyFileSync(path.join(ROOT, 'docs', 'examples', 'eval-ollama.mjs'), path.join(app, 'eval-ollama.mjs'));
    for (const [name, description] of [
      ['pdf-forms', 'Fill in and flatten PDF forms.'],
      ['invoice-chaser', 'Write polite reminders for unpaid invoices.'],
    ] as const) {
      mkdirSync(path.join(app, 'skills', name), { recursive: true });
      writeFileSync(path.join(app, 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
    }
    const cases = [
      { query: 'Fill in this PDF form', expect: 'pdf-forms' },
      { query: 'Remind ACME about the unpaid invoice', expect: 'invoice-chaser' },
      { query: 'Say hello', expect: null },
    ];
    writeFileSync(path.join(app, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n'));
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    if (savedHost === undefined) delete process.env.OLLAMA_HOST;
    else process.env.OLLAMA_HOST = savedHost;
  });
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  async function evaluate(withIds: boolean, copy: string) {
    const ollama = await startOllama(withIds);
    closers.push(ollama.close);
    process.env.OLLAMA_HOST = ollama.url;
    // A copy per run: Node caches an imported module by its URL, and the module reads OLLAMA_HOST when imported.
    copyFileSync(path.join(app, 'eval-ollama.mjs'), path.join(app, copy));
    const run = await cli(['eval', 'skills', '--cases', 'cases.jsonl', '--model', `./${copy}`, '--runs', '2', '--json'], app);
    return { ollama, run, report: JSON.parse(run.stdout) as EvalOutput };
  }

  it('runs the eval through the real adapter: the catalog and use_skill reach /api/chat, and the calls count', async () => {
    const { ollama, run, report } = await evaluate(true, 'eval-ollama-1.mjs');
    expect(run.code).toBe(0);
    expect(ollama.requests).toHaveLength(6);
    for (const request of ollama.requests) {
      expect(request.model).toBe('llama3.1');
      expect(String(request.messages?.[0]?.content)).toContain('<available_skills>');
      expect(request.tools?.map((t) => t.function?.name)).toContain('use_skill');
    }
    expect(report.totals).toEqual({ cases: 3, passed: 3, runs: 6, errors: 0, tp: 2, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1 });
  });

  it('an Ollama that sends tool calls without ids: SISU drops them, so nothing triggers', async () => {
    const { report, run } = await evaluate(false, 'eval-ollama-2.mjs');
    expect(report.totals).toMatchObject({ passed: 1, tp: 0, fn: 2, f1: 0 });
    // The eval says where to look rather than leaving a bare 0.
    expect(run.stderr).toContain('eval: no run triggered any skill. If the model did call use_skill, its adapter dropped the call');
  });
});
