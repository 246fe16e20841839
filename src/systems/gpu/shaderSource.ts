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

/** Wraps each `// @neighbours` ... `// @end neighbours` body in the shared neighbour loop (neighbourLoop.wgsl). */
export function expandNeighbourLoops(source: string): string {
  const [before, after] = neighbourLoopSource.split(/^\/\/ @body\n/m);
  return source.replace(
    /^[ \t]*\/\/ @neighbours\n([\s\S]*?)^[ \t]*\/\/ @end neighbours\n/gm,
    (_block, body: string) => before.replace(/^\/\/.*\n/gm, '') + body + after,
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
