/** WGSL sources imported as text (Vite's `?raw` suffix; the bench's esbuild build does the same). */
declare module '*.wgsl?raw' {
  const source: string;
  export default source;
}
