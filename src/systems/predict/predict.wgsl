// Predict (mirrors predict/cpu.ts) plus, at the first substep of a step, ageing, lifetimes and drains
// (mirrors drainParticles in emit/cpu.ts): v += dt g, clamped to maxSpeed; x* = x + dt v. The particle's
// cell key and bucket are computed from x* and the bucket is counted (its slot within the bucket comes from
// the atomic add); removed particles go to the dead bucket after every cell, so the counting sort compacts.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  // WCSPH (sphMode 1) only sorts the current positions here: its forces pass integrates and clamps the
  // velocity after the kick (sph/forces.wgsl), as the CPU does (sph/cpu.ts, sphForceSystem).
  let sph = p.sphMode == 1u;
  let drift = select(p.timeStep, 0.0, sph);
  var v = velocity[i].xyz + drift * p.gravity.xyz;
  let speedSquared = dot(v, v);
  if (!sph && speedSquared > p.maxSpeed * p.maxSpeed) { v = v * (p.maxSpeed / sqrt(speedSquared)); }
  velocity[i] = vec4<f32>(v, 0.0);
  let x = position[i].xyz;
  let predicted = x + drift * v;
  var dead = false;
  // Particles appended in this step (at the end) are neither aged nor drained until the next step, as on
  // the CPU, where the drains run before the emitters.
  if (state.substep == 0u && i < state.count - p.appendCount) {
    var particle = info[i];
    particle.age = particle.age + p.frameTimeStep;
    info[i] = particle;
    dead = particle.lifetime < 0.0 || (particle.lifetime > 0.0 && particle.age >= particle.lifetime);
    // Drains test the position at the start of the step, as on the CPU.
    for (var k = 0u; k < p.drainCount && !dead; k = k + 1u) {
      let drain = scene.drains[k];
      if (drain.enabled == 0u) { continue; }
      if (drain.shape == DRAIN_BOX) {
        dead = all(x >= drain.min.xyz) && all(x <= drain.max.xyz);
      } else {
        let d = x - drain.min.xyz;
        dead = dot(d, d) <= drain.radius * drain.radius;
      }
    }
  }
  let key = cellKey(cellOf(predicted));
  var bucket = bucketOfKey(key, p.tableMask);
  if (dead) { bucket = p.deadBucket; }
  let slot = atomicAdd(&bucketsAtomic[bucket], 1u);
  cell[i] = vec4<u32>(key, bucket, slot, select(0u, 1u, dead));
}
