// White water on the WebGPU backend (Ihmsen et al. 2012), mirroring diffuse/cpu.ts; see its file comment for
// the method. Four entry points, in the last substep before the write-back, on the final positions
// (sortedPredicted) and velocities (delta) of the last sort:
// - `begin` (one thread): zeroes the step's counters (the free stack stays).
// - `fields` (per fluid particle): the outward normal (from the neighbours' weighted centre, 0 inside) and the
//   trapped-air sum, and the particle's entity id and material slot, into `diffuseFields`.
// - `generate` (per fluid particle): the potentials, the count n_d (the random numbers hash the entity id and
//   the step count exactly as the CPU does), and each new diffuse particle written into a slot popped from the
//   stack of free slots (`diffuseCounters` from word DIFFUSE_STACK, DIFFUSE_FREE of them); none left drops it.
//   Only `generate` pops and only `advect` pushes, in passes of their own, so the stack needs no lock.
// - `advect` (per pool slot): classification by the fluid neighbours within h (the cells around the point),
//   the motion of its kind, the colliders, ageing, deletion (lifetime 0, and the slot pushed on the free
//   stack) and what the view draws (`render`: position, 2 kind + fade; 0 for a free slot), counted per kind.

// lowbias32 (as hash32 in diffuse/cpu.ts).
fn diffuseHash(value: u32) -> u32 {
  var x = value;
  x = x ^ (x >> 16u);
  x = x * 0x7feb352du;
  x = x ^ (x >> 15u);
  x = x * 0x846ca68bu;
  x = x ^ (x >> 16u);
  return x;
}

// (min(I, max) - min(I, min)) / (max - min).
fn potentialClamp(value: f32, low: f32, high: f32) -> f32 {
  return (min(value, high) - min(value, low)) / (high - low);
}

// @entry begin
@compute @workgroup_size(WORKGROUP_SIZE)
fn begin(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x != 0u) { return; }
  for (var word = DIFFUSE_GENERATED; word <= DIFFUSE_BUBBLE; word = word + 1u) {
    atomicStore(&diffuseCounters[word], 0u);
  }
}

// @entry fields
@compute @workgroup_size(WORKGROUP_SIZE)
fn fields(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let vi = delta[i].xyz;
  let home = keyCell(u32(own.w));
  var offset = vec3<f32>(0.0);
  var weightSum = 0.0;
  var air = 0.0;
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared || r2 == 0.0) { continue; }
        let distance = sqrt(r2);
        let w = 1.0 - distance * k.inverseRadius;
        offset = offset - w * r;
        weightSum = weightSum + w;
        let u = vi - delta[j].xyz;
        let speed = length(u);
        if (speed > 0.0) { air = air + (speed - dot(u, r) / distance) * w; }
  // @end neighbours
  let offsetLength = length(offset);
  var normal = vec3<f32>(0.0);
  if (weightSum > 0.0 && offsetLength > DIFFUSE_SURFACE_OFFSET * k.radius * weightSum) {
    normal = -offset / offsetLength;
  }
  let particle = sortedInfo[i];
  diffuseFields[2u * i] = vec4<f32>(normal, air);
  diffuseFields[2u * i + 1u] = vec4<f32>(bitcast<f32>(particle.entity), bitcast<f32>(particle.material), 0.0, 0.0);
}

// @entry generate
var<private> randomState: u32;

// The next uniform number in [0, 1): 24 bits of the hash (as nextRandom in diffuse/cpu.ts).
fn nextRandom() -> f32 {
  randomState = diffuseHash(randomState + 0x9e3779b9u);
  return f32(randomState >> 8u) / 16777216.0;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn generate(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let v = delta[i].xyz;
  let facts = diffuseFields[2u * i + 1u];
  let entity = bitcast<u32>(facts.x);
  let slot = bitcast<u32>(facts.y);
  let m = scene.materials[slot];
  let speedSquared = dot(v, v);
  let energy = potentialClamp(0.5 * speedSquared, m.diffuseEnergyMin, m.diffuseEnergyMax);
  if (!(energy > 0.0)) { return; }
  let field = diffuseFields[2u * i];
  let normal = field.xyz;
  let speed = sqrt(speedSquared);
  let air = potentialClamp(field.w, m.diffuseTrappedAirMin, m.diffuseTrappedAirMax);
  var crest = 0.0;
  if (dot(v, normal) / speed >= DIFFUSE_ALONG_NORMAL) {
    // The curvature of the surface behind the particle: surface neighbours with x_ji . n_i < 0.
    let k = loadKernel();
    let home = keyCell(u32(own.w));
    var curvature = 0.0;
    // @neighbours
        let nj = diffuseFields[2u * j].xyz;
        if (nj.x == 0.0 && nj.y == 0.0 && nj.z == 0.0) { continue; }
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared || r2 == 0.0) { continue; }
        if (-dot(r, normal) < 0.0) {
          curvature = curvature + (1.0 - dot(normal, nj)) * (1.0 - sqrt(r2) * k.inverseRadius);
        }
    // @end neighbours
    crest = potentialClamp(curvature, m.diffuseWaveCrestMin, m.diffuseWaveCrestMax);
  }
  let expected = energy * (m.diffuseTrappedAirRate * air + m.diffuseWaveCrestRate * crest) * p.frameTimeStep;
  if (!(expected > 0.0)) { return; }
  randomState = diffuseHash(entity ^ diffuseHash(p.diffuseStep));
  let count = min(DIFFUSE_MOST_PER_PARTICLE, u32(floor(expected + nextRandom())));
  if (count == 0u) { return; }
  // An orthonormal pair e1, e2 across the velocity (as generateDiffuse in diffuse/cpu.ts).
  let u = v / speed;
  let alongX = abs(u.x) > 0.9;
  let e1 = normalize(select(vec3<f32>(0.0, -u.z, u.y), vec3<f32>(u.z, 0.0, -u.x), alongX));
  let e2 = cross(u, e1);
  let lifetimeSpan = m.diffuseLifetimeMax - m.diffuseLifetimeMin;
  var made = 0u;
  loop {
    if (made >= count) { break; }
    // Pop a free slot. Below an empty stack the count wraps or reaches 0: put it back, and drop the particle.
    let free = atomicSub(&diffuseCounters[DIFFUSE_FREE], 1u);
    if (free == 0u || free > p.diffuseCapacity) {
      atomicAdd(&diffuseCounters[DIFFUSE_FREE], 1u);
      atomicAdd(&diffuseCounters[DIFFUSE_DROPPED], 1u);
    } else {
      let place = atomicLoad(&diffuseCounters[DIFFUSE_STACK + free - 1u]);
      let across = p.particleRadius * sqrt(nextRandom());
      let angle = 6.283185307179586 * nextRandom();
      let along = nextRandom() * p.frameTimeStep * speed;
      let offset = across * cos(angle) * e1 + across * sin(angle) * e2;
      // A lifetime of 0 (both bounds 0) still needs a live slot until the advection deletes it and frees it.
      let lifetime = max(m.diffuseLifetimeMin + lifetimeSpan * nextRandom(), 1.0e-30);
      let x = xi + offset + along * u;
      diffuseParticles[place] = DiffuseParticle(
        vec4<f32>(x, 0.0),
        vec4<f32>(v + offset, lifetime),
        vec4<f32>(0.0),
        vec4<u32>(0u, slot, 0u, 0u),
      );
      atomicAdd(&diffuseCounters[DIFFUSE_GENERATED], 1u);
    }
    continuing {
      made = made + 1u;
    }
  }
}

// @entry advect
// The fluid within h of x: the weighted mean of its velocity (weights (h^2 - r^2)^3) and its count (w).
fn sampleFluid(x: vec3<f32>) -> vec4<f32> {
  let k = loadKernel();
  // No fluid particle is the point itself.
  let i = 0xffffffffu;
  let home = cellOf(x);
  var count = 0.0;
  var weightSum = 0.0;
  var velocity = vec3<f32>(0.0);
  // @neighbours
        let r = x - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let q = k.radiusSquared - r2;
        let w = q * q * q;
        count = count + 1.0;
        weightSum = weightSum + w;
        velocity = velocity + w * delta[j].xyz;
  // @end neighbours
  if (weightSum > 0.0) { velocity = velocity / weightSum; }
  return vec4<f32>(velocity, count);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn advect(@builtin(global_invocation_id) id: vec3<u32>) {
  let d = id.x;
  let p = scene.params;
  if (d >= p.diffuseCapacity) { return; }
  var particle = diffuseParticles[d];
  if (!(particle.velocity.w > 0.0)) { return; }
  let dt = p.frameTimeStep;
  let m = scene.materials[particle.info.y];
  let fluid = sampleFluid(particle.position.xyz);
  let count = u32(fluid.w);
  var kind = 1u;
  if (count == 0u || count < p.diffuseSprayNeighbours) {
    kind = 0u;
  } else if (count > p.diffuseBubbleNeighbours) {
    kind = 2u;
  }
  let g = p.gravity.xyz;
  var v = particle.velocity.xyz;
  if (kind == 0u) {
    v = v + dt * (g - m.diffuseSprayDrag * v);
  } else if (kind == 1u) {
    v = fluid.xyz;
  } else {
    v = v - dt * m.diffuseBuoyancy * g + m.diffuseDrag * (fluid.xyz - v);
  }
  var x = particle.position.xyz + dt * v;
  // The colliders push it back to their fluid side (a point), and take its velocity into the wall.
  var slot = 0u;
  if (p.colliderCount > 0u) {
    loop {
      let shape = loadShape(slot);
      let pose = poseOf(slot, false);
      let result = fluidSideDistance(shape, toLocal(pose, x), 0.0);
      let distance = result.x * pose.scale.x;
      if (distance < 0.0) {
        let n = rotate(pose, result.yzw);
        x = x - distance * n;
        let into = dot(v, n);
        if (into < 0.0) { v = v - into * n; }
      }
      continuing {
        slot = slot + 1u;
        break if slot >= p.colliderCount;
      }
    }
  }
  let age = particle.position.w + dt;
  let lifetime = particle.velocity.w;
  // Non-finite: every exponent bit set (NaN or infinity), tested on the bits.
  let exponents = (bitcast<vec3<u32>>(x) & vec3<u32>(0x7f800000u)) == vec3<u32>(0x7f800000u);
  let velocityExponents = (bitcast<vec3<u32>>(v) & vec3<u32>(0x7f800000u)) == vec3<u32>(0x7f800000u);
  if (age >= lifetime || any(exponents) || any(velocityExponents)) {
    diffuseParticles[d] = DiffuseParticle(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<u32>(0u));
    atomicAdd(&diffuseCounters[DIFFUSE_REMOVED], 1u);
    let top = atomicAdd(&diffuseCounters[DIFFUSE_FREE], 1u);
    atomicStore(&diffuseCounters[DIFFUSE_STACK + top], d);
    return;
  }
  let fade = min(0.999, max(0.0, (lifetime - age) / DIFFUSE_FADE_TIME));
  diffuseParticles[d] = DiffuseParticle(
    vec4<f32>(x, age),
    vec4<f32>(v, lifetime),
    vec4<f32>(x, 2.0 * f32(kind) + fade),
    vec4<u32>(kind, particle.info.y, 0u, 0u),
  );
  atomicAdd(&diffuseCounters[DIFFUSE_SPRAY + kind], 1u);
}
