/**
 * The templating of the WGSL passes (docs/ARCHITECTURE.md, "A new GPU pass"): a file's entry sections, the
 * shared neighbour loop, and the variants a pass is compiled in. Pure string functions.
 */
import neighbourLoopSource from '../neighbours/neighbourLoop.wgsl?raw';

/** Picks the section of `source` after `// @entry name` (up to the next marker), after the shared head. */
export function entrySection(source: string, name: string): string {
  const parts = source.split(/^\/\/ @entry (\w+)$/m);
  const head = parts[0];
  for (let k = 1; k < parts.length; k += 2) if (parts[k] === name) return head + parts[k + 1];
  throw new Error(`no entry ${name}`);
}

/**
 * How the gathering passes find their neighbours, fixed per solver at creation (see `neighbourMode` in
 * gpu/buffers.ts): `'list'` reads each particle's neighbour list, built once per substep by `neighbourList`
 * (neighbours/lists.wgsl); `'cells'` visits the 27 cells around the particle (as 9 row ranges of the sorted particles) in every pass (where the
 * lists would not fit the device's storage-buffer limits).
 */
export type NeighbourMode = 'list' | 'cells';

/** One loop of neighbourLoop.wgsl, split around its `// @body` line (its whole-line comments dropped). */
function neighbourLoop(form: NeighbourMode): [before: string, after: string] {
  const parts = neighbourLoopSource.split(/^\/\/ @loop (\w+)\n/m);
  const index = parts.indexOf(form);
  if (index < 0) throw new Error(`no neighbour loop ${form}`);
  const [before, after] = parts[index + 1].split(/^\/\/ @body\n/m);
  const code = (text: string) => text.replace(/^\/\/.*\n/gm, '');
  return [code(before), code(after)];
}

/** Replaces `from` in `text`, which must hold it once (the loops' text is the contract). */
function replaceOnce(text: string, from: string, to: string): string {
  if (text.split(from).length !== 2) throw new Error(`neighbourLoop.wgsl: expected one "${from.trim()}"`);
  return text.replace(from, () => to);
}

/**
 * The cells loop as the list's fallback: tested at the top and starting past its end (row 9) for every
 * particle whose list did not overflow, so those pay one masked pass of its body, not 9 rows.
 */
function fallbackLoop(): [before: string, after: string] {
  const [before, after] = neighbourLoop('cells');
  const start = replaceOnce(
    before,
    '  var row = 0u;\n',
    '  var row = select(9u, 0u, listLength == NEIGHBOUR_OVERFLOW);\n',
  );
  return [
    replaceOnce(start, '  loop {\n    let rowY', '  loop {\n    if (row >= 9u) { break; }\n    let rowY'),
    replaceOnce(after, '      break if row == 9u;\n', ''),
  ];
}

/**
 * Wraps each `// @neighbours` ... `// @end neighbours` body in the shared neighbour loop of `mode`
 * (neighbourLoop.wgsl): `'cells'` the cells loop; `'list'` the list loop, then the cells loop as its fallback
 * (the body again) that only a particle whose list overflowed runs.
 */
export function expandNeighbourLoops(source: string, mode: NeighbourMode): string {
  const [cellsBefore, cellsAfter] = neighbourLoop('cells');
  const [listBefore, listAfter] = neighbourLoop('list');
  const [fallbackBefore, fallbackAfter] = fallbackLoop();
  return source.replace(/^[ \t]*\/\/ @neighbours\n([\s\S]*?)^[ \t]*\/\/ @end neighbours\n/gm, (_block, body: string) =>
    mode === 'cells'
      ? cellsBefore + body + cellsAfter
      : listBefore + body + listAfter + fallbackBefore + body + fallbackAfter,
  );
}

/**
 * The `// @general` or the `// @simple` lines of each `// @general ... // @simple ... // @end` block of a pass:
 * the simple variant serves scenes with one material whose artificial pressure exponent is 4 (see
 * `gpuPlan` in gpu/backend.ts). SwiftShader runs every branch of a shader, so code for other cases costs even
 * when unused.
 */
export function materialVariant(source: string, simple: boolean): string {
  return source.replace(
    /^[ \t]*\/\/ @general\n([\s\S]*?)^[ \t]*\/\/ @simple\n([\s\S]*?)^[ \t]*\/\/ @end\n/gm,
    (_block, general: string, simpleLines: string) => (simple ? simpleLines : general),
  );
}

/**
 * Keeps the `// @coupled` ... `// @end coupled` blocks of a pass and drops the `// @uncoupled` ...
 * `// @end uncoupled` ones (`coupled` true), or the reverse: the variant for steps with a collider coupled
 * with a rigid body, which binds the impulse accumulators, and the one for steps without.
 */
export function couplingVariant(source: string, coupled: boolean): string {
  return source.replace(
    /^[ \t]*\/\/ @(coupled|uncoupled)\n([\s\S]*?)^[ \t]*\/\/ @end \1\n/gm,
    (_block, kind: string, lines: string) => ((kind === 'coupled') === coupled ? lines : ''),
  );
}
