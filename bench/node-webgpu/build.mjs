// Builds bench/node-webgpu/.build/: a folder to carry to a machine with a GPU but no node, no browser and
// no network, to run the scenarios of tests/browser/scenarios.ts on Dawn (WebGPU for Node):
//   run.mjs    bench/node-webgpu/run.ts bundled with everything (Babylon, bitecs, the `webgpu` package's JS)
//   dawn.node  Dawn's Node addon (linux-x64), loaded by run.mjs from its own folder
//   node.xz    this machine's node binary, xz-compressed
//   libvulkan.so.1  a Vulkan loader, used by run.sh only where the system has none
//   nvidia_egl_icd.json  a Vulkan manifest for NVIDIA's driver without X (see below)
//   run.sh     decompresses node when needed and runs `./node run.mjs "$@"`
// Usage: node bench/node-webgpu/build.mjs. The `webgpu` package (0.6.2) is taken from $WEBGPU_DIR, else
// bench/node-webgpu/.deps/node_modules/webgpu (installed there with npm when missing; never the project's
// package.json). $NODE_BIN picks the node binary (default: the one running this script); $VULKAN_LOADER
// the loader to ship (default: Chromium's, when installed).
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { wgslRawPlugin } from '../build.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '.build');
const WEBGPU_VERSION = '0.6.2';

function webgpuPackage() {
  if (process.env.WEBGPU_DIR) return resolve(process.env.WEBGPU_DIR);
  const deps = join(here, '.deps');
  const dir = join(deps, 'node_modules', 'webgpu');
  if (!existsSync(join(dir, 'package.json'))) {
    console.log(`installing webgpu@${WEBGPU_VERSION} into ${deps}`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', deps, `webgpu@${WEBGPU_VERSION}`], {
      stdio: 'inherit',
    });
  }
  return dir;
}

const webgpuDir = webgpuPackage();
const dawnNode = join(webgpuDir, 'dist', 'linux-x64', 'dawn.node');

/**
 * Bundles the `webgpu` package's index.js, with dawn.node's path changed from
 * `<package>/dist/<platform>-<arch>/dawn.node` to `./dawn.node` next to the bundle (the package loads it
 * with createRequire(import.meta.url), which in the bundle is run.mjs's URL).
 */
const webgpuPlugin = {
  name: 'webgpu-local-dawn',
  setup(context) {
    context.onResolve({ filter: /^webgpu$/ }, () => ({ path: join(webgpuDir, 'index.js') }));
    context.onLoad({ filter: /[\\/]webgpu[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const pattern = /const dawnNodePath = [^;]*;/;
      if (!pattern.test(source)) throw new Error(`webgpu/index.js: no 'const dawnNodePath = ...;' to rewrite`);
      // The code may land in a chunk under chunks/: look in its folder, then one up (where run.mjs is).
      const local = `const dawnNodePath = [join(__dirname, 'dawn.node'), join(__dirname, '..', 'dawn.node')].find((p) => existsSync(p)) ?? join(__dirname, 'dawn.node');
import { existsSync } from 'node:fs';`;
      return { contents: source.replace(pattern, local), loader: 'js' };
    });
  },
};

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(here, 'run.ts')],
  outdir: out,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // Babylon imports some of its modules with import() as well: without splitting, esbuild turns those
  // into lazily initialised wrappers and breaks the order of Babylon's circular imports
  // ("Class extends value undefined" at load).
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  plugins: [wgslRawPlugin, webgpuPlugin],
});
await copyFile(dawnNode, join(out, 'dawn.node'));

const vulkanLoader = process.env.VULKAN_LOADER ?? '/usr/lib/chromium/libvulkan.so.1';
if (existsSync(vulkanLoader)) await copyFile(vulkanLoader, join(out, 'libvulkan.so.1'));
else console.warn(`no Vulkan loader at ${vulkanLoader}: the folder relies on the target's libvulkan.so.1`);

// xz of node takes minutes: keep it in .deps, keyed by the binary's size and time.
const nodeBin = process.env.NODE_BIN ?? process.execPath;
const nodeStat = statSync(nodeBin);
const nodeXz = join(here, '.deps', `node-${nodeStat.size}-${Math.floor(nodeStat.mtimeMs)}.xz`);
if (!existsSync(nodeXz)) {
  console.log(`compressing ${nodeBin} (xz -T2 -6)`);
  await mkdir(dirname(nodeXz), { recursive: true });
  execFileSync('sh', ['-c', `xz -T2 -6 -c "$0" > "$1.tmp" && mv "$1.tmp" "$1"`, nodeBin, nodeXz], { stdio: 'inherit' });
}
await copyFile(nodeXz, join(out, 'node.xz'));

// NVIDIA's usual Vulkan manifest names libGLX_nvidia.so.0, which finds no driver without an X server
// (headless containers: "Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'"); the same
// driver through libEGL_nvidia.so.0 works there. run.sh uses this manifest when that library is present.
await writeFile(
  join(out, 'nvidia_egl_icd.json'),
  `${JSON.stringify({ file_format_version: '1.0.1', ICD: { library_path: 'libEGL_nvidia.so.0', api_version: '1.3.0' } })}\n`,
);
await writeFile(
  join(out, 'run.sh'),
  `#!/bin/sh
# Runs a scenario: sh run.sh <scenario> ['<json args>']. Decompresses node on first use; uses the bundled
# Vulkan loader only where the system has no libvulkan.so.1, and NVIDIA's Vulkan driver through
# libEGL_nvidia.so.0 (headless) unless VK_ICD_FILENAMES or VK_DRIVER_FILES is set. Prints only the
# scenario's JSON result on stdout; everything else goes to stderr.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$dir/node" ]; then
  xz -d -k -c "$dir/node.xz" > "$dir/node.tmp" && chmod +x "$dir/node.tmp" && mv "$dir/node.tmp" "$dir/node"
fi
libs=$(ldconfig -p 2>/dev/null || true)
if [ -f "$dir/libvulkan.so.1" ] && ! printf '%s\\n' "$libs" | grep -q 'libvulkan\\.so\\.1 '; then
  export LD_LIBRARY_PATH="\${LD_LIBRARY_PATH:+\$LD_LIBRARY_PATH:}$dir"
fi
if [ -z "\${VK_ICD_FILENAMES:-}\${VK_DRIVER_FILES:-}" ] && printf '%s\\n' "$libs" | grep -q 'libEGL_nvidia\\.so\\.0 '; then
  export VK_ICD_FILENAMES="$dir/nvidia_egl_icd.json"
fi
# Only the result goes to stdout: Dawn prints warnings on fd 1, so fd 1 becomes stderr and the result fd 3.
export RESULT_FD=3
exec 3>&1 1>&2
exec "$dir/node" "$dir/run.mjs" "$@"
`,
);
await chmod(join(out, 'run.sh'), 0o755);

/** Bytes of the files under `path`. */
function sizeOf(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}
let total = 0;
for (const name of readdirSync(out)) {
  const size = sizeOf(join(out, name));
  total += size;
  console.log(`${name.padEnd(16)} ${(size / 2 ** 20).toFixed(1).padStart(6)} MiB`);
}
console.log(`${'total'.padEnd(16)} ${(total / 2 ** 20).toFixed(1).padStart(6)} MiB${total > 60 * 2 ** 20 ? '  (over 60 MiB!)' : ''}`);
