import type { Plugin } from 'vite';

/** `source` without blank lines and lines that hold only a comment, except the `// @` template markers. */
export function compactWgslSource(source: string): string;

/** A Vite plugin: `*.wgsl?raw` imports load {@link compactWgslSource} of the file. */
export function compactWgsl(): Plugin;
