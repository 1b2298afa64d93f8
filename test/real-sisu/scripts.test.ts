/**
 * Scenario: skills that run code, end to end in the real SISU. SISU's
 * terminal tool (10.0.0, unmodified) is registered under its example aliases
 * (`bash`, `read_file`, `cd`) with `roots: [app, ...skills.localRoots()]`; a
 * scripted model behind SISU's OpenAI and Anthropic adapters activates a
 * skill, reads the folder the activation reports and the commands its
 * instructions give, and calls `bash` with each, exactly as written there;
 * the scripts' output comes back in the conversation. From a local folder,
 * an npm package folder and a bucket (s3rver behind the counting proxy), and
 * for the fixture skill an Azure container too (Azurite).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { skillsMiddleware, type SkillsOptions } from '../../src/index.js';
import { makeBucket, s3Config, type TestBucket } from '../helpers/s3/bucket.js';
import { sharedS3rver } from '../helpers/s3/server.js';
import { startProxy, type StorageProxy } from '../helpers/storage/proxy.js';
import { AZURE_ENGINE, type EngineContainer } from '../helpers/storage/engines.js';
import { until } from '../helpers/until.js';
import { createCtx, describeSisu, PROVIDERS, realSisu, runAgent, type Provider, type SisuCtx, type SisuMiddleware } from './host.js';
import {
  EXAMPLE_ALIASES,
  hasPython,
  latestActivation,
  loadTerminal,
  PATH_DIRS,
  quotedCommands,
  scriptRunner,
  terminalAnswers,
  type RegisterTools,
  type TerminalModule,
} from './terminal.js';
import { pathToFileURL } from 'node:url';
import { SHARED_ROOT, SISU_MODULES } from '../helpers/shared.js';
import { describeWith } from '../helpers/needs-shared.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, readdirSync, chmodSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import type { Command } from './terminal.js';

/** The fixture skill: one script per interpreter, each printing its version and the folder it ran from. */
function demoSkill(version: string): Record<string, string> {
  return {
    'SKILL.md': [
      '---',
      'name: run-demo',
      'description: Runs the demo scripts and reports what they print. Use when asked to run the demo.',
      '---',
      '# Run demo',
      '',
      'Run each script and report what it prints:',
      '',
      ...(hasPython ? ['1. `python3 ${CLAUDE_SKILL_DIR}/scripts/hello.py world`'] : []),
      '2. `node ${SKILL_DIR}/scripts/hello.mjs world`',
      '3. `bash ${CLAUDE_SKILL_DIR}/scripts/hello.sh world`',
      '',
    ].join('\n'),
    'scripts/hello.py': [
      '#!/usr/bin/env python3',
      'import os, sys',
      `print(f"python hello {sys.argv[1]} ${version} from {os.path.dirname(os.path.abspath(__file__))}")`,
      '',
    ].join('\n'),
    'scripts/hello.mjs': [
      "import { dirname } from 'node:path';",
      "import { fileURLToPath } from 'node:url';",
      `console.log(\`node hello \${process.argv[2]} ${version} from \${dirname(fileURLToPath(import.meta.url))}\`);`,
      '',
    ].join('\n'),
    'scripts/hello.sh': `#!/usr/bin/env bash\necho "bash hello $1 ${version} from $(cd "$(dirname "$0")" && pwd)"\n`,
  };
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

type SourceKind = 'folder' | 'package' | 'bucket' | 'azure';
/** Where the corpus skills are run from: an S3 bucket stands for object storage (the edge is engine-neutral). */
const SOURCES: readonly SourceKind[] = ['folder', 'package', 'bucket'];

describeSisu('skills that run code, through SISU terminal tool (bash, read_file, cd)', () => {
  const sisu = realSisu();
  let terminal: TerminalModule;
  let register: RegisterTools;
  let work: string;
  let bucket: TestBucket;
  let proxy: StorageProxy;
  let container: EngineContainer | undefined;
  beforeAll(async () => {
    terminal = await loadTerminal();
    register = (await import(
      pathToFileURL(path.join(SISU_MODULES, '@sisu-ai', 'mw-register-tools', 'dist', 'index.js')).href
    )) as RegisterTools;
    work = mkdtempSync(path.join(os.tmpdir(), 'scripts-e2e-'));
    bucket = await makeBucket('scripts');
    proxy = await startProxy(await sharedS3rver());
  });
  afterAll(async () => {
    await proxy?.close();
    rmSync(work, { recursive: true, force: true });
  });

  let serial = 0;
  /** An app folder, and the skills options of `kind` holding `files` as the skill `name` (a package: `@acme/skill-<name>`). */
  async function place(kind: SourceKind, name: string, files: Record<string, string>): Promise<{ app: string; options: SkillsOptions }> {
    const app = path.join(work, `app-${++serial}`);
    mkdirSync(app, { recursive: true });
    if (kind === 'folder') {
      writeTree(path.join(app, 'skills', name), files);
      return { app, options: { directories: [path.join(app, 'skills')], cwd: app } };
    }
    if (kind === 'package') {
      const folder = path.join(app, 'node_modules', '@acme', `skill-${name}`);
      writeTree(folder, { ...files, 'package.json': JSON.stringify({ name: `@acme/skill-${name}`, version: '1.0.0' }) });
      return { app, options: { packages: [`@acme/skill-${name}`], cwd: app } };
    }
    const prefix = `app-${serial}/skills/`;
    if (kind === 'azure') {
      container ??= await AZURE_ENGINE.makeContainer('scripts');
      const made = container;
      await Promise.all(Object.entries(files).map(([file, text]) => made.put(`${prefix}${name}/${file}`, text)));
      return {
        app,
        options: { directories: [`az://${made.name}/${prefix}`], ...AZURE_ENGINE.options(made.endpoint), cwd: app, refresh: 100 },
      };
    }
    await Promise.all(Object.entries(files).map(([file, text]) => bucket.put(`${prefix}${name}/${file}`, text)));
    return { app, options: { directories: [`s3://${bucket.name}/${prefix}`], s3: s3Config(proxy.endpoint), cwd: app, refresh: 100 } };
  }

  /** SISU's example stack with the real terminal tool over the app and the skills' local roots. */
  function stack(app: string, skills: ReturnType<typeof skillsMiddleware>, pathDirs = PATH_DIRS, window = 6): SisuMiddleware[] {
    const { host } = sisu;
    const tool = terminal.createTerminalTool({
      roots: [app, ...skills.localRoots()],
      commands: { allow: ['python3', 'node', 'bash'] },
      execution: { pathDirs },
    });
    return [
      register.registerTools(tool.tools, { aliases: EXAMPLE_ALIASES }),
      skills as unknown as SisuMiddleware,
      host.core.inputToMessage,
      host.conversationBuffer({ window }),
      host.core.execute,
    ];
  }

  async function turn(provider: Provider, ctx: SisuCtx, layers: SisuMiddleware[], input: string): Promise<void> {
    ctx.input = input;
    await runAgent(sisu.host, layers, ctx);
  }

  for (const provider of PROVIDERS) {
    for (const kind of [...SOURCES, 'azure'] as const) {
      it(`${provider.name}, ${kind}: the model runs python3, node and bash scripts as the instructions write them, and reads their output`, async () => {
        const { app, options } = await place(kind, 'run-demo', demoSkill('v1'));
        const skills = skillsMiddleware(options);
        const server = await sisu.start(
          provider,
          scriptRunner('run-demo', (text) => quotedCommands(text)),
        );
        const ctx = createCtx(sisu.host, provider.model(sisu.host, server));
        await turn(provider, ctx, stack(app, skills), 'Run the demo, please.');

        expect(server.violations).toEqual([]);
        const last = server.requests.at(-1)!;
        const activation = latestActivation(last, 'run-demo')!;
        const folder = activation.folder;
        if (kind === 'bucket' || kind === 'azure') {
          expect(folder.startsWith(skills.localRoots().at(-1) + path.sep)).toBe(true);
        } else {
          expect(realpathSync(folder)).toBe(
            realpathSync(
              kind === 'folder' ? path.join(app, 'skills', 'run-demo') : path.join(app, 'node_modules', '@acme', 'skill-run-demo'),
            ),
          );
        }
        expect(activation.text).not.toContain('${');
        const sent = last.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
        const commands = sent.filter((call) => call.name === 'bash').map((call) => (call.arguments as { command: string }).command);
        expect(commands).toEqual(quotedCommands(activation.text).map((c) => c.command));
        const answers = terminalAnswers(last);
        const printed = answers.map((answer) => answer.stdout.trim());
        const languages = [...(hasPython ? ['python'] : []), 'node', 'bash'];
        expect(answers.map((answer) => answer.exitCode)).toEqual(languages.map(() => 0));
        languages.forEach((language, i) => {
          const line = printed[i] as string;
          expect(line.startsWith(`${language} hello world v1 from `)).toBe(true);
          expect(realpathSync(line.slice(line.indexOf(' from ') + 6))).toBe(realpathSync(path.join(folder, 'scripts')));
        });
        expect(sisu.host.core.getExecutionResult(ctx)?.text).toBe('done');
        await skills.close();
        if (kind === 'bucket' || kind === 'azure') expect(existsSync(folder)).toBe(false);
      });
    }

    for (const keepInView of [true, false]) {
      const name = `${provider.name}, bucket, keepInView ${keepInView}: a skill edited between two turns of one conversation runs its new script on the second`;
      it(name, async () => {
        const { app, options } = await place('bucket', 'run-demo', demoSkill('v1'));
        const skills = skillsMiddleware({ ...options, keepInView });
        const server = await sisu.start(
          provider,
          scriptRunner('run-demo', (text) => quotedCommands(text).slice(0, 1)),
        );
        const ctx = createCtx(sisu.host, provider.model(sisu.host, server));
        // A window that keeps both turns: a trimmed one can open with an assistant message, which Anthropic refuses (SISU's, not ours).
        const layers = stack(app, skills, PATH_DIRS, 20);
        await turn(provider, ctx, layers, 'Run the demo, please.');
        const first = latestActivation(server.requests.at(-1)!, 'run-demo')!.folder;
        expect(terminalAnswers(server.requests.at(-1)!).at(-1)?.stdout).toContain('hello world v1');

        const key = options.directories![0]!.replace(`s3://${bucket.name}/`, '');
        const script = hasPython ? 'scripts/hello.py' : 'scripts/hello.mjs';
        const lists = proxy.count('list');
        await bucket.put(`${key}run-demo/${script}`, demoSkill('v2')[script]!);
        await until(() => proxy.count('list') >= lists + 2, 5000);

        await turn(provider, ctx, layers, 'Run it again.');
        expect(server.violations).toEqual([]);
        const last = server.requests.at(-1)!;
        const second = latestActivation(last, 'run-demo')!;
        expect(second.folder).not.toBe(first);
        expect(existsSync(first)).toBe(false);
        expect(terminalAnswers(last).at(-1)?.stdout).toContain(`hello world v2 from ${second.folder}`);
        expect(sisu.host.core.getExecutionResult(ctx)?.text).toBe('done');
        if (keepInView) expect(second.text).toContain('This skill changed since it was activated');
        await skills.close();
      });
    }
  }

  describeWith('corpus', 'the four published skills with scripts (../shared/corpus/with-files), run in place of their authors', () => {
    const WITH_FILES = path.join(SHARED_ROOT, 'corpus', 'with-files');
    let server: Server;
    let url: string;
    let bin: string;
    let importMetaMain: boolean;
    beforeAll(async () => {
      // What eas-workflows' fetch.js fetches (the internet is out of reach): a workflow schema, served here.
      server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', etag: '"schema-1"', 'cache-control': 'max-age=60' });
        response.end(JSON.stringify({ title: 'EAS workflow (served by the test)', type: 'object' }));
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // list-package-files.sh runs `pnpm build` and `pnpm pack`: a stand-in pnpm that packs what npm would.
      bin = path.join(work, 'bin');
      mkdirSync(bin, { recursive: true });
      writeFileSync(
        path.join(bin, 'pnpm'),
        [
          '#!/usr/bin/env bash',
          'set -e',
          'case "$1" in',
          '  build) echo "built $(basename "$PWD")" ;;',
          '  pack) rm -rf package && mkdir package && cp package.json index.js package/ && tar -czf demo-pkg-1.0.0.tgz package',
          '        rm -rf package && echo demo-pkg-1.0.0.tgz ;;',
          'esac',
          '',
        ].join('\n'),
      );
      chmodSync(path.join(bin, 'pnpm'), 0o755);
      // fetch.js runs only where import.meta.main exists (Node 22.18+, 24.2+): on older Nodes it exits 0 having printed nothing.
      const probe = path.join(work, 'main-probe.mjs');
      writeFileSync(probe, 'console.log(import.meta.main === true);\n');
      importMetaMain = execFileSync(process.execPath, [probe], { encoding: 'utf8' }).trim() === 'true';
    });
    afterAll(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

    interface CorpusCase {
      folder: string;
      name: string;
      python: boolean;
      /** What a model runs, read from the activation it was shown (its text and reported folder), as the skill words it. */
      commands(text: string, folder: string, app: string): Command[];
      check(answer: { exitCode: number; stdout: string; stderr: string }, app: string): void;
    }

    const CASES: CorpusCase[] = [
      {
        folder: 'expo__skills__plugins__expo__skills__eas-workflows',
        name: 'eas-workflows',
        python: false,
        // `node <skill-dir>/scripts/fetch.js <url>`: the skill's own placeholder for its folder.
        commands: (text, folder) => {
          const line = /^node <skill-dir>\/scripts\/fetch\.js <url>$/mu.exec(text)?.[0];
          expect(line).toBeDefined();
          return [{ command: (line as string).replace('<skill-dir>', folder).replace('<url>', `${url}/v2/workflows/schema`) }];
        },
        check: (answer) => {
          expect(answer.exitCode).toBe(0);
          if (importMetaMain) expect(JSON.parse(answer.stdout)).toEqual({ title: 'EAS workflow (served by the test)', type: 'object' });
          else expect(answer.stdout).toBe('');
        },
      },
      {
        folder: 'vercel__ai__skills__list-npm-package-content',
        name: 'list-npm-package-content',
        python: false,
        // `bash scripts/list-package-files.sh`, run from the package's folder: relative to the skill folder.
        commands: (text, folder, app) => {
          expect(text).toContain('bash scripts/list-package-files.sh');
          return [{ command: `bash ${folder}/scripts/list-package-files.sh`, cwd: path.join(app, 'pkg') }];
        },
        check: (answer, app) => {
          expect(answer).toMatchObject({ exitCode: 0, stderr: '' });
          const [built, ...listed] = answer.stdout.trim().split('\n');
          expect(built).toBe('built pkg');
          // tar lists in the folder's own order.
          expect(listed.sort()).toEqual(['package/', 'package/index.js', 'package/package.json']);
          expect(existsSync(path.join(app, 'pkg', 'demo-pkg-1.0.0.tgz'))).toBe(false);
        },
      },
      {
        folder: 'openai__openai-agents-python__agents__skills__sensitive-logging-audit',
        name: 'sensitive-logging-audit',
        python: true,
        // `uv run python .agents/skills/sensitive-logging-audit/scripts/test_inventory.py`: a path from its home repository.
        commands: (text, folder) => {
          const rel = /uv run python \.agents\/skills\/sensitive-logging-audit\/(scripts\/test_inventory\.py)/u.exec(text)?.[1];
          expect(rel).toBe('scripts/test_inventory.py');
          return [{ command: `python3 ${folder}/${rel}` }];
        },
        check: (answer) => {
          expect(answer.exitCode).toBe(0);
          expect(answer.stderr).toMatch(/Ran \d+ tests in [\d.]+s\s+OK/u);
        },
      },
      {
        folder: 'anthropics__knowledge-work-plugins__data__skills__data-context-extractor',
        name: 'data-context-extractor',
        python: true,
        // Its SKILL.md says "Package as a zip file"; the script is in the resource listing.
        commands: (text, folder, app) => {
          expect(text).toMatch(/^- scripts\/package_data_skill\.py \(script, /mu);
          return [
            { command: `python3 ${folder}/scripts/package_data_skill.py ${path.join(app, 'acme-data-analyst')} ${path.join(app, 'out')}` },
          ];
        },
        check: (answer, app) => {
          expect(answer.exitCode).toBe(0);
          expect(answer.stdout).toContain(`Successfully packaged skill to: ${path.join(app, 'out', 'acme-data-analyst.zip')}`);
          expect(existsSync(path.join(app, 'out', 'acme-data-analyst.zip'))).toBe(true);
        },
      },
    ];

    /** The app: the package list-package-files.sh packs, the skill data-context-extractor packages, and the four skills from `kind`. */
    async function corpusApp(kind: SourceKind): Promise<{ app: string; options: SkillsOptions }> {
      const app = path.join(work, `corpus-${++serial}`);
      writeTree(path.join(app, 'pkg'), { 'package.json': '{"name":"demo-pkg","version":"1.0.0"}\n', 'index.js': 'export {};\n' });
      writeTree(path.join(app, 'acme-data-analyst'), {
        'SKILL.md': '---\nname: acme-data-analyst\ndescription: Answers questions about Acme data.\n---\n# Acme\n',
      });
      mkdirSync(path.join(app, 'out'));
      const into = (root: string) => {
        for (const one of CASES) cpSync(path.join(WITH_FILES, one.folder), path.join(root, one.name), { recursive: true });
      };
      if (kind === 'folder') {
        into(path.join(app, 'skills'));
        return { app, options: { directories: [path.join(app, 'skills')], cwd: app } };
      }
      if (kind === 'package') {
        const pkg = path.join(app, 'node_modules', '@acme', 'corpus-skills');
        writeTree(pkg, { 'package.json': '{"name":"@acme/corpus-skills","version":"1.0.0"}\n' });
        into(path.join(pkg, 'skills'));
        return { app, options: { packages: ['@acme/corpus-skills'], cwd: app } };
      }
      const prefix = `corpus-${serial}/skills/`;
      await Promise.all(CASES.map((one) => bucket.upload(path.join(WITH_FILES, one.folder), `${prefix}${one.name}/`)));
      return { app, options: { directories: [`s3://${bucket.name}/${prefix}`], s3: s3Config(proxy.endpoint), cwd: app } };
    }

    for (const provider of PROVIDERS) {
      for (const kind of SOURCES) {
        for (const one of CASES) {
          const run = one.python && !hasPython ? it.skip : it;
          const note = one.python && !hasPython ? ' (skipped: python3 not found in /usr/bin, /bin, /usr/local/bin)' : '';
          run(`${provider.name}, ${kind}: ${one.name}'s script runs as its SKILL.md names it${note}`, async () => {
            const { app, options } = await corpusApp(kind);
            const skills = skillsMiddleware(options);
            const server = await sisu.start(
              provider,
              scriptRunner(one.name, (text, folder) => one.commands(text, folder, app)),
            );
            const ctx = createCtx(sisu.host, provider.model(sisu.host, server));
            await turn(provider, ctx, stack(app, skills, [bin, ...PATH_DIRS]), `Use the ${one.name} skill.`);
            expect(server.violations).toEqual([]);
            const last = server.requests.at(-1)!;
            const folder = latestActivation(last, one.name)!.folder;
            expect(readdirSync(folder)).toContain('SKILL.md');
            const answers = terminalAnswers(last);
            expect(answers).toHaveLength(1);
            one.check(answers[0]!, app);
            expect(sisu.host.core.getExecutionResult(ctx)?.text).toBe('done');
            await skills.close();
          });
        }
      }
    }
  });
});
