// Adds the fluid's impulses on coupled colliders to their accumulators (mirrors addBodyImpulse in
// couple/cpu.ts), for the passes that bind `impulses`. Each component is a 64-bit two's complement number of
// quanta in two 32-bit atomics (see BodyImpulseAccumulator in gpu/structs.ts): the value is rounded to the
// nearest quantum, its low word added with atomicAdd, whose previous value tells whether the addition
// carried, and the carry plus the high word added to the high atomic. The sums are exact integers, the same
// whatever order the threads add in.

// Adds `quanta` (any finite value, rounded to the nearest integer) to component `component` of collider
// `slot`.
fn addImpulseQuanta(slot: u32, component: u32, quanta: f32) {
  // Within +-2^62: the high word fits an i32.
  let value = clamp(round(quanta), -4.0e18, 4.0e18);
  var low: u32;
  var high: u32;
  if (abs(value) < 2147483648.0) {
    let small = i32(value);
    low = bitcast<u32>(small);
    high = select(0u, 0xffffffffu, small < 0);
  } else {
    // |value| >= 2^31 is a multiple of 2^8 in float32: value - high 2^32 lies in [0, 2^32) and is exact.
    let highPart = floor(value * 2.3283064365386963e-10);
    low = u32(value - highPart * 4294967296.0);
    high = bitcast<u32>(i32(highPart));
  }
  if (low != 0u) {
    let previous = atomicAdd(&impulses[slot].low[component], low);
    if (previous + low < previous) { high = high + 1u; }
  }
  if (high != 0u) { atomicAdd(&impulses[slot].high[component], high); }
}

// Adds impulse j (N s, world space) acting on collider `slot` at world point x: linear, and angular
// (x - c) x j about its center of mass c (`centerOfMass` in local space, placed with the substep's end
// pose `pose`, as on the CPU).
fn addBodyImpulse(slot: u32, pose: Pose, centerOfMass: vec3<f32>, j: vec3<f32>, x: vec3<f32>) {
  let angular = cross(x - toWorld(pose, centerOfMass), j);
  let linearScale = scene.params.inverseImpulseQuantum;
  let angularScale = scene.params.inverseAngularImpulseQuantum;
  addImpulseQuanta(slot, 0u, j.x * linearScale);
  addImpulseQuanta(slot, 1u, j.y * linearScale);
  addImpulseQuanta(slot, 2u, j.z * linearScale);
  addImpulseQuanta(slot, 3u, angular.x * angularScale);
  addImpulseQuanta(slot, 4u, angular.y * angularScale);
  addImpulseQuanta(slot, 5u, angular.z * angularScale);
}
