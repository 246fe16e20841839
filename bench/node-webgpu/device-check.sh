#!/bin/sh
# The WebGPU checks to run on a machine with a GPU, as one script (docs/performance.md, "WebGPU on an NVIDIA
# H100"). Build the package here just before (`node bench/node-webgpu/build.mjs`: 50 MiB; a local run of
# .build/run.sh leaves the decompressed node there, 99 MB more), carry bench/node-webgpu/.build/ to the
# machine with the repository (it needs xz to unpack node), and run from the repository root:
#   sh bench/node-webgpu/device-check.sh [out dir]
# Each check is a scenario of tests/browser/scenarios.ts run by .build/run.sh (Node, Dawn, Vulkan) under a
# time limit; its JSON result and log go to the out dir ($OUT when set, else ./device-check), and a line
# per check, then the parity figures and the bench's tables (summary.mjs), to stdout. "ran" means the
# scenario finished: the parity figures are to be compared with the bounds tests/webgpu.test.ts asserts. The
# time limits add up to 450 s at most (the two benches aim at 90 and 45 s), within one 600 s command. COUNTS overrides the bench's particle counts
# (JSON array), FRAMES its frames per count (at most 20).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build="$here/.build"
out=${1:-${OUT:-device-check}}
counts=${COUNTS:-[10000,29791,99452,300763,1000000]}
frames=${FRAMES:-20}
mkdir -p "$out"
if [ ! -f "$build/run.sh" ]; then
  echo "no $build/run.sh: build it with node bench/node-webgpu/build.mjs and carry the folder" >&2
  exit 2
fi
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true) > "$out/gpu.txt" 2>&1
echo "gpu: $(cat "$out/gpu.txt")"
failed=0
check() {
  name=$1
  limit=$2
  shift 2
  start=$(date +%s)
  if timeout "$limit" sh "$build/run.sh" "$@" > "$out/$name.json" 2> "$out/$name.log"; then
    status=ran
  else
    status="failed (exit $?, see $out/$name.log)"
    failed=1
  fi
  echo "$name: $status in $(($(date +%s) - start)) s"
}
# The kernels against the CPU reference on the same input, the neighbour lists, a dam break on both backends.
check kernelParity 60 kernelParity
check neighbourLists 60 neighbourLists
check damBreakParity 90 damBreakParity
# The dam break at the defaults (2 substeps x 2 iterations, as `npm run bench`): ms per frame, JavaScript ms
# of step(), dispatches, GPU ms per pass; with WebGPU's default limits (a million particles visit cells, their
# lists passing the 128 MiB storage binding), then the largest count with the adapter's (the lists).
check bench 150 bench "{\"counts\":$counts,\"frames\":$frames,\"substeps\":2,\"iterations\":2,\"budgetSeconds\":90}"
largest=$(printf '%s' "$counts" | tr -d '[] ' | tr ',' '\n' | tail -1)
export GPU_LIMITS=maximum
check benchMaximumLimits 90 bench "{\"counts\":[$largest],\"frames\":$frames,\"substeps\":2,\"iterations\":2,\"budgetSeconds\":45}"
unset GPU_LIMITS
"$build/node" "$here/summary.mjs" "$out" || failed=1
exit $failed
