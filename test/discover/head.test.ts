import { Buffer } from 'node:buffer';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEAD_BYTES, headByteLength, headLength, readSkillHead } from '../../src/discover/head.js';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import { nodeFileSystem } from '../../src/base/fs.js';
import { faultyFs } from './helpers.js';

const FILE = '/skills/a/SKILL.md';

async function head(text: string): Promise<string> {
  const { fs } = faultyFs({ [FILE]: text });
  return readSkillHead(fs, FILE);
}

/** What lazy discovery keeps from a parse: everything but the body. */
function frontmatterOf(text: string): unknown {
  const { body: _body, ...rest } = parseFrontmatter(text, { file: FILE });
  return rest;
}

const long = (n: number): string => `${'x'.repeat(n)}\n`;

const CASES: Record<string, string> = {
  simple: '---\nname: a\ndescription: b\n---\n# body\n',
  'body larger than the head': `---\nname: a\ndescription: b\n---\n${long(3 * HEAD_BYTES)}`,
  'frontmatter larger than the head': `---\nname: a\ndescription: ${'é'.repeat(HEAD_BYTES)}\n---\nbody\n`,
  'multi-byte text across the head boundary': `---\nname: a\ndescription: ${'x'.repeat(HEAD_BYTES - 20)}😀😀😀😀😀😀😀😀\n---\nbody\n`,
  'CRLF line ends': '---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n',
  'CR line ends': '---\rname: a\rdescription: b\r---\rbody\r',
  BOM: '\ufeff---\nname: a\ndescription: b\n---\nbody\n',
  'dots close': '---\nname: a\ndescription: b\n...\nbody\n',
  'fence with trailing spaces': '---  \nname: a\ndescription: b\n--- \t\nbody\n',
  'not a fence: ---x': '---\nname: a\n---x\ndescription: b\n---\nbody\n',
  'closing fence at EOF without a break': '---\nname: a\ndescription: b\n---',
  unclosed: `---\nname: a\ndescription: b\n${long(2 * HEAD_BYTES)}more: text\n`,
  'unclosed, short': '---\nname: a\n',
  'no frontmatter': `# title\n${long(2 * HEAD_BYTES)}`,
  'no frontmatter, one long line': 'y'.repeat(3 * HEAD_BYTES),
  'only an opening fence': '---',
  empty: '',
  'YAML error': '---\nname: [a\ndescription: b\n---\nbody\n',
};

describe('readSkillHead', () => {
  it.each(Object.entries(CASES))('%s: parses like the whole file, except for the body', async (_label, text) => {
    const part = await head(text);
    expect(text.startsWith(part)).toBe(true);
    expect(frontmatterOf(part)).toEqual(frontmatterOf(text));
  });

  it('reads only the first block when the frontmatter ends in it', async () => {
    const text = `---\nname: a\ndescription: b\n---\n${long(10 * HEAD_BYTES)}`;
    const part = await head(text);
    expect(part).toBe('---\nname: a\ndescription: b\n---\n');
  });

  it('reads to the end before calling the frontmatter unclosed', async () => {
    const text = `---\nname: a\n${long(5 * HEAD_BYTES)}`;
    expect(await head(text)).toBe(text);
    expect(parseFrontmatter(await head(text)).diagnostics.map((d) => d.code)).toEqual(['FRONTMATTER_UNCLOSED']);
  });

  it('rejects like readFile when the file cannot be opened, and closes what it opened', async () => {
    const { fs } = faultyFs({ [FILE]: 'x' }, [{ method: 'open', path: FILE, code: 'EACCES' }]);
    await expect(readSkillHead(fs, FILE)).rejects.toMatchObject({ code: 'EACCES' });
    let closed = 0;
    const failing = {
      ...fs,
      open: async () => ({
        read: async () => Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' })),
        close: async () => {
          closed++;
        },
      }),
    };
    await expect(readSkillHead(failing, FILE)).rejects.toMatchObject({ code: 'EIO' });
    expect(closed).toBe(1);
  });

  it('rejects, never hangs, when a later read throws instead of rejecting', async () => {
    // The read loop goes on from a promise callback: a throw there must still settle the read.
    let reads = 0;
    let closed = 0;
    const { fs } = faultyFs({});
    const throwing = {
      ...fs,
      open: async () => ({
        read: (buffer: Uint8Array, offset: number) => {
          if (++reads > 1) throw Object.assign(new Error('EIO'), { code: 'EIO' });
          const chunk = Buffer.from('---\nname: a\n'.padEnd(HEAD_BYTES, 'x'));
          buffer.set(chunk, offset);
          return Promise.resolve({ bytesRead: chunk.length });
        },
        close: async () => {
          closed++;
        },
      }),
    };
    await expect(readSkillHead(throwing, FILE)).rejects.toMatchObject({ code: 'EIO' });
    expect(closed).toBe(1);
  });

  it('reads the real disk the same way (plain descriptors), and rejects like readFile', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mw-skills-head-'));
    try {
      for (const [index, text] of Object.values(CASES).entries()) {
        const file = join(folder, `${index}.md`);
        await writeFile(file, text);
        const part = await readSkillHead(nodeFileSystem, file);
        expect(part).toBe(await head(text));
      }
      const missing = join(folder, 'missing.md');
      const expected = await readFile(missing, 'utf8').catch((error: unknown) => error);
      await expect(readSkillHead(nodeFileSystem, missing)).rejects.toEqual(expected);
      await expect(readSkillHead(nodeFileSystem, folder)).rejects.toMatchObject({ code: 'EISDIR' });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('handles reads shorter than asked for', async () => {
    const text = Buffer.from(`---\nname: a\ndescription: ${'ü'.repeat(300)}\n---\nbody\n`);
    let position = 0;
    const { fs } = faultyFs({});
    const trickle = {
      ...fs,
      open: async () => ({
        // Seven bytes at a time: splits multi-byte characters and CRLFs between reads.
        read: async (buffer: Uint8Array, offset: number, _length: number, at: number) => {
          position = at;
          const chunk = text.subarray(position, position + 7);
          buffer.set(chunk, offset);
          return { bytesRead: chunk.length };
        },
        close: async () => undefined,
      }),
    };
    const part = await readSkillHead(trickle, FILE);
    expect(frontmatterOf(part)).toEqual(frontmatterOf(text.toString('utf8')));
  });
});

/** The head by definition (see head.ts), with a loop over every character: what the fast scan must return. */
function expectedHead(text: string): string {
  const breakAt = (from: number): number => {
    for (let i = from; i < text.length; i++) if (text[i] === '\n' || text[i] === '\r') return i;
    return -1;
  };
  const fence = (from: number, to: number, marker: string): boolean =>
    text.startsWith(marker.repeat(3), from) && to - from >= 3 && /^[ \t]*$/.test(text.slice(from + 3, to));
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const first = breakAt(bom);
  if (first < 0) return text;
  if (!fence(bom, first, '-')) return text.slice(0, first + 1);
  let pos = text[first] === '\r' && text[first + 1] === '\n' ? first + 2 : first + 1;
  for (;;) {
    const end = breakAt(pos);
    if (end < 0) return text;
    if (fence(pos, end, '-') || fence(pos, end, '.')) return text.slice(0, end + 1);
    pos = text[end] === '\r' && text[end + 1] === '\n' ? end + 2 : end + 1;
  }
}

describe('readSkillHead on generated texts', () => {
  const line = fc.constantFrom('name: a', 'x', '', '---', '...', '--- ', '-- -', '.. .', 'd: ü😀', '-x', '.x');
  const lineBreak = fc.constantFrom('\n', '\r', '\r\n');
  const text = fc
    .tuple(
      fc.constantFrom('', '\uFEFF'),
      fc.constantFrom('---', '--- ', 'x'),
      fc.array(fc.tuple(lineBreak, line), { maxLength: 10 }),
      fc.constantFrom('', '\n', '\r'),
    )
    .map(([bom, open, lines, end]) => bom + open + lines.map(([br, l]) => br + l).join('') + end);

  it('stops just after the closing fence line, whatever the line breaks and read sizes', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 9 }), async (content, chunk) => {
        const bytes = Buffer.from(content);
        const { fs } = faultyFs({});
        const trickle = {
          ...fs,
          open: async () => ({
            read: async (buffer: Uint8Array, offset: number, length: number, at: number) => {
              const piece = bytes.subarray(at, at + Math.min(chunk, length));
              buffer.set(piece, offset);
              return { bytesRead: piece.length };
            },
            close: async () => undefined,
          }),
        };
        expect(await readSkillHead(trickle, FILE)).toBe(expectedHead(content));
      }),
      { numRuns: 1500 },
    );
  });

  it("headByteLength counts the same head in a whole file's bytes (the bytes a signed manifest hashes)", () => {
    fc.assert(
      fc.property(text, (content) => {
        expect(headByteLength(Buffer.from(content))).toBe(Buffer.byteLength(expectedHead(content)));
      }),
      { numRuns: 1500 },
    );
    for (const content of Object.values(CASES)) expect(headByteLength(Buffer.from(content))).toBe(Buffer.byteLength(expectedHead(content)));
  });

  it('headLength finds that head in the decoded text: its UTF-8 bytes are the head headByteLength counts', () => {
    const sameHead = (content: string) => {
      const bytes = Buffer.from(content);
      expect(headLength(content)).toBe(expectedHead(content).length);
      expect(Buffer.from(content.slice(0, headLength(content)))).toEqual(bytes.subarray(0, headByteLength(bytes)));
    };
    fc.assert(fc.property(text, sameHead), { numRuns: 1500 });
    for (const content of Object.values(CASES)) sameHead(content);
  });
});
