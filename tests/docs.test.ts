/**
 * Every ```ts code block of the documentation type-checks against the package's public API: README.md,
 * docs/*.md (but docs/ARCHITECTURE.md, whose diagrams are not TypeScript) and src/plugin/README.md. Every
 * relative link of those pages (and of docs/ARCHITECTURE.md) names a file that exists, and a heading of it
 * where it has an anchor (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens).
 *
 * How: each block becomes a module in a temporary folder (under test-artefacts/, so that `@babylonjs/...`
 * imports resolve from the project's node_modules), with a tsconfig whose `paths` maps 'babylon-ecs-fluids' to
 * src/index.ts (the package's exports, nothing deeper), and the project's TypeScript compiler checks them
 * all in one run (`node_modules/.bin/tsc -p <folder>/tsconfig.json --noEmit`, strict; the types of Node,
 * Vite's client (`?url` imports) and WebGPU). Errors are reported at the Markdown file and line; the folder
 * is removed after a pass and kept after a failure.
 *
 * Conventions for writers:
 * - A block fenced as ```ts (or ```typescript) is checked; ```ts no-check opts a fragment out (use it
 *   sparingly, for code that cannot stand alone: a table cell's call signature, pseudo-code).
 * - A block may use names it does not define (`scene`, `fluid`, a mesh) when the file's hidden preamble
 *   declares them: an HTML comment, invisible on GitHub and in TypeDoc, anywhere in the file:
 *
 *       <!-- docs-test preamble
 *       declare const scene: import('@babylonjs/core/scene.js').Scene;
 *       declare const fluid: import('babylon-ecs-fluids').FluidPlugin;
 *       -->
 *
 *   A file may hold several; they are joined in order and apply to every block of the file (the preamble of
 *   README.md declares `scene`, `glassMesh` and `tapNode` for the five lines, for instance). A preamble
 *   holds declarations only, with `import('...')` types and no import statements, and declares no name a
 *   block of its file imports (the two would clash).
 * - Each block is its own module: its import statements stay at the top, the preamble follows, and the rest
 *   of the block runs in a nested scope, so a block may define a name the preamble declares (its own
 *   `const fluid = await FluidPlugin.create(...)` shadows the preamble's). Top-level `await` works.
 * - A page whose blocks follow one another in one program (a walkthrough: docs/first-game.md) says so with
 *   `<!-- docs-test one-module -->`: its blocks are then checked together instead, in order, as one module
 *   (after its preamble, if it has one), so each block sees what the ones before it imported and defined, and
 *   a name imported or defined twice fails.
 *
 * A control module that imports a name the package does not export is checked in the same run and must be
 * the one error of its file: a harness that stopped resolving 'babylon-ecs-fluids' to src/index.ts, or
 * stopped reporting errors, fails here rather than passing every block silently.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..');

/** The Markdown files whose ```ts blocks are checked, relative to the repository root. */
function documentationFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'ARCHITECTURE.md')
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs, 'src/plugin/README.md'];
}

/** A fenced ```ts block: where it starts and its lines, each with its 1-based line number in the file. */
interface CodeBlock {
  file: string;
  /** Line of the opening fence. */
  line: number;
  lines: SourceLine[];
  checked: boolean;
}

/** A line of Markdown and its 1-based line number in its file. */
interface SourceLine {
  text: string;
  line: number;
}

/** The ```ts blocks of one Markdown file, its joined preamble, and whether its blocks form one module. */
function readBlocks(file: string): { blocks: CodeBlock[]; preamble: SourceLine[]; oneModule: boolean } {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  const preamble: SourceLine[] = [];
  let oneModule = false;
  for (let k = 0; k < lines.length; k++) {
    if (/^<!--\s*docs-test one-module\s*-->\s*$/.test(lines[k])) oneModule = true;
    if (/^<!--\s*docs-test preamble\s*$/.test(lines[k])) {
      for (k++; k < lines.length && !/^-->\s*$/.test(lines[k]); k++) preamble.push({ text: lines[k], line: k + 1 });
      continue;
    }
    const fence = /^(\s*)(`{3,})\s*(ts|typescript)\b\s*(.*)$/.exec(lines[k]);
    if (!fence) {
      // Skip other fenced blocks whole (a ```sh block may hold a line that looks like a fence).
      const other = /^(\s*)(`{3,})/.exec(lines[k]);
      if (other) {
        for (k++; k < lines.length && !lines[k].trimStart().startsWith(other[2]); k++);
      }
      continue;
    }
    const [, indent, ticks, , info] = fence;
    const block: CodeBlock = { file, line: k + 1, lines: [], checked: !/\bno-check\b/.test(info) };
    for (k++; k < lines.length && !(lines[k].trimStart().startsWith(ticks) && lines[k].trim() === ticks); k++) {
      block.lines.push({ text: lines[k].startsWith(indent) ? lines[k].slice(indent.length) : lines[k], line: k + 1 });
    }
    blocks.push(block);
  }
  return { blocks, preamble, oneModule };
}

/** A generated module and, per line of it, the Markdown line it came from (0 for generated lines). */
interface Module {
  name: string;
  block: CodeBlock;
  text: string;
  sourceLines: number[];
}

/**
 * The module of one block: its import statements first, then the file's preamble, then the rest of the
 * block in a nested scope (so its names may shadow the preamble's).
 */
function moduleOf(block: CodeBlock, preamble: SourceLine[], name: string): Module {
  const imports: SourceLine[] = [];
  const body: SourceLine[] = [];
  for (let k = 0; k < block.lines.length; k++) {
    if (!/^import\s/.test(block.lines[k].text)) {
      body.push(block.lines[k]);
      continue;
    }
    // An import statement, possibly over several lines: up to its module specifier.
    for (; k < block.lines.length; k++) {
      imports.push(block.lines[k]);
      if (/(^import\s*|from\s*)['"][^'"]+['"]\s*;?\s*(\/\/.*)?$/.test(block.lines[k].text)) break;
    }
  }
  const out: SourceLine[] = [
    { text: `// ${block.file}:${block.line}`, line: 0 },
    ...imports,
    ...preamble,
    { text: 'export {};', line: 0 },
    { text: '{', line: 0 },
    ...body,
    { text: '}', line: 0 },
  ];
  return { name, block, text: `${out.map((entry) => entry.text).join('\n')}\n`, sourceLines: out.map((e) => e.line) };
}

/**
 * A walkthrough's blocks as one module, in order and verbatim, after the file's preamble (if any): each block
 * sees what the ones before it imported and defined, and a name imported or defined twice fails.
 */
function wholeModule(blocks: CodeBlock[], preamble: SourceLine[], name: string): Module {
  const lines: SourceLine[] = [{ text: `// ${blocks[0].file}, all blocks`, line: 0 }, ...preamble];
  for (const block of blocks) lines.push(...block.lines);
  lines.push({ text: 'export {};', line: 0 });
  const text = `${lines.map((line) => line.text).join('\n')}\n`;
  return { name, block: blocks[0], text, sourceLines: lines.map((line) => line.line) };
}

/** The text of a Markdown file without its fenced code blocks (links and headings in code are not links). */
function withoutCode(text: string): string {
  return text.replace(/^(\s*)(`{3,})[^\n]*\n[\s\S]*?^\1\2\s*$/gm, '');
}

/** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingSlugs(path: string): Set<string> {
  const slugs = new Set<string>();
  for (const [, heading] of withoutCode(readFileSync(path, 'utf8')).matchAll(/^#{1,6}\s+(.*)$/gm)) {
    slugs.add(
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return slugs;
}

/** The control: a name the package does not export. Its file must have exactly this error. */
const CONTROL = "import { NoSuchExport } from 'babylon-ecs-fluids';\nexport const control = NoSuchExport;\n";

describe('the documentation', () => {
  const files = documentationFiles();
  const modules: Module[] = [];
  const skipped: CodeBlock[] = [];
  for (const file of files) {
    const { blocks, preamble, oneModule } = readBlocks(file);
    skipped.push(...blocks.filter((block) => !block.checked));
    const checked = blocks.filter((block) => block.checked);
    const stem = file.replace(/[^A-Za-z0-9]+/g, '_');
    if (oneModule) {
      if (checked.length > 0) modules.push(wholeModule(checked, preamble, `${stem}_all.ts`));
      continue;
    }
    for (const block of checked) modules.push(moduleOf(block, preamble, `${stem}_L${block.line}.ts`));
  }

  it('has ts blocks in the README and in the guides', () => {
    expect(modules.some((module) => module.block.file === 'README.md')).toBe(true);
    expect(new Set(modules.map((module) => module.block.file)).size).toBeGreaterThan(5);
  });

  it("type-checks every ```ts block against the package's public API (tsc, strict)", () => {
    mkdirSync(join(root, 'test-artefacts'), { recursive: true });
    const folder = mkdtempSync(join(root, 'test-artefacts', 'docs-'));
    const src = relative(folder, join(root, 'src')).split('\\').join('/');
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'bundler',
        lib: ['ES2022', 'DOM'],
        strict: true,
        skipLibCheck: true,
        isolatedModules: true,
        noEmit: true,
        types: ['node', 'vite/client', '@webgpu/types'],
        paths: { 'babylon-ecs-fluids': [`${src}/index.ts`] },
      },
      files: [...modules.map((module) => module.name), 'control.ts', `${src}/wgsl.d.ts`],
    };
    writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    writeFileSync(join(folder, 'control.ts'), CONTROL);
    for (const module of modules) writeFileSync(join(folder, module.name), module.text);

    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    const result = spawnSync(tsc, ['-p', join(folder, 'tsconfig.json'), '--noEmit', '--pretty', 'false'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(result.error, `running ${tsc}`).toBeUndefined();
    const output = `${result.stdout}${result.stderr}`;
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));

    // The control file: exactly its one error, so errors are found and reported.
    const control = errors.filter((line) => line.includes('control.ts('));
    expect(control, `the control (a name the package does not export) was not reported:\n${output}`).toHaveLength(1);
    expect(control[0]).toMatch(/TS2305: Module '"babylon-ecs-fluids"' has no exported member 'NoSuchExport'/);

    // Every other error, at the Markdown line it comes from.
    const byName = new Map(modules.map((module) => [module.name, module]));
    const reported = errors
      .filter((line) => !line.includes('control.ts('))
      .map((line) => {
        const at = /([^/\\\s]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
        const module = at ? byName.get(at[1]) : undefined;
        if (!at || !module) return line;
        const source = module.sourceLines[Number(at[2]) - 1];
        const where = source ? `${module.block.file}:${source}:${at[3]}` : `${module.block.file}:${module.block.line}`;
        return `${where} (block at line ${module.block.line}, ${at[1]}): ${at[4]}`;
      });
    const message = `${reported.length} errors in the documentation's ts blocks (modules kept in ${folder}):`;
    expect(reported, `${message}\n${reported.join('\n')}`).toEqual([]);
    expect(result.status, output).toBe(1); // the control's error, and nothing else
    rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of [...files, 'docs/ARCHITECTURE.md']) {
      const text = withoutCode(readFileSync(join(root, file), 'utf8'));
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [path, fragment] = target.split('#');
        const resolved = path === '' ? join(root, file) : join(root, dirname(file), path);
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (fragment !== undefined && resolved.endsWith('.md') && !headingSlugs(resolved).has(fragment)) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('opts out few blocks (```ts no-check)', () => {
    const where = skipped.map((block) => `${block.file}:${block.line}`);
    expect(skipped.length, `no-check blocks: ${where.join(', ')}`).toBeLessThanOrEqual(modules.length / 5);
  });
});

describe('the example gallery', () => {
  it('shows a thumbnail of every example page, each a screenshot in docs/images', () => {
    const root = join(__dirname, '..');
    const gallery = readFileSync(join(root, 'examples', 'index.html'), 'utf8');
    const pages = readdirSync(join(root, 'examples'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, 'examples', entry.name, 'index.html')))
      .map((entry) => entry.name);
    expect(pages.length).toBeGreaterThan(8);
    for (const page of pages) {
      expect(gallery, page).toContain(`<a href="./${page}/"><img src="./${page}.png"`);
      // Vite serves docs/images at the gallery's root (vite.config.ts, publicDir).
      expect(existsSync(join(root, 'docs', 'images', `${page}.png`)), page).toBe(true);
    }
  });
});
