/**
 * Entry of the bundle (run.mjs): `node run.mjs <scenario> ['<json args>']`, see main.ts. Keeps stdout for
 * the result: console.log goes to stderr. Babylon's Logger binds console.log when its module loads, and
 * static imports all load before this module's body runs, so everything else loads after, by import().
 */
console.log = console.error;
console.info = console.error;
console.debug = console.error;

await import('./main');

export {};
