// Trapped air and boiling on the WebGPU backend (Müller, Solenthaler, Keiser and Gross 2005, sections 3.4
// and 4.4), mirroring multifluid/air.ts and multifluid/phase.ts; see their file comments for the method.
// Four entry points, wired in gpu/backend.ts:
// - `boil` (last substep, before writeBack, only when some material boils): a liquid particle at a cavitation
//   site (within h of a heat-exchanging collider at least as hot as its boiling temperature, the pose at the
//   end of the step) whose temperature reached its boiling temperature turns into its `airMaterial` with
//   probability p per step: its material slot and color change in place (mass and rest volume follow the
//   material slot, as the CPU's follow `Particle.material`), and (entity, vapour slot) is appended to the
//   event list the CPU reads back. The draw is a hash of (step, entity id), not the CPU's generator: the
//   backends agree statistically, not particle by particle.
// - `fields` (last substep, after `boil`): per particle the number density W(0) + Z + sum_j W_ij, grad(c^P)
//   = V (grad Z + sum_j grad W_ij) and grad(c^S) = V sum_j c^s_j grad W_ij (poly6 gradient, V = 1 / kernelSum,
//   Z and grad Z the walls' virtual particles at the final position), as computeColorFields in air.ts.
// - `decide` (after `fields`): deletion (3.4.2) of air particles: lifetime -1, so the next step's predict
//   pass sends them to the dead bucket and their ids reach the CPU with the removed ids (the drains' path);
//   generation (3.4.1): liquid particles with grad(c^P) . e_y > 0 and |grad(c^P)| > t_p / h append a
//   candidate (x - d n, v, air material slot, source entity) while the slot is below
//   min(airGenerationLimit, capacity - count); the CPU creates them at the start of the next step. No
//   generation in a step while an earlier step's candidates are not yet read back and created
//   (Params.airGenerationOpen 0: a lagging readback), so the same particles do not propose twice.
// - `buoyancy` (every substep, after the velocity-stage terms): eq. 17 as artificialBuoyancySystem in air.ts.

// The words of the `airEvents` buffer before the boiled pairs (CANDIDATE_COUNTER, DELETED_COUNTER,
// BOILED_COUNTER, AIR_EVENT_HEADER) are generated from gpu/structs.ts (`AIR_EVENTS`).

// PCG hash (Jarzynski and Olano 2020).
fn pcgHash(value: u32) -> u32 {
  let state = value * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

// Uniform number in [0, 1) of (step, entity): 24 bits of the hash.
fn stepRandom(step: u32, entity: u32) -> f32 {
  return f32(pcgHash(entity ^ pcgHash(step)) >> 8u) / 16777216.0;
}

// @entry boil
@compute @workgroup_size(WORKGROUP_SIZE)
fn boil(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let particle = sortedInfo[i];
  let m = scene.materials[particle.material];
  let hot = m.boilingTemperature;
  if (!(hot > 0.0) || !(m.boilingProbability > 0.0) || m.airMaterial < 0 || p.colliderCount == 0u) { return; }
  let value = attributes[particle.entity];
  // attributes.x holds T - TEMPERATURE_REFERENCE (see gpu/structs.ts).
  if (!(value.x + TEMPERATURE_REFERENCE >= hot)) { return; }
  let x = sortedPredicted[i].xyz;
  let h = p.kernelRadius;
  var site = false;
  var slot = 0u;
  loop {
    let shape = loadShape(slot);
    if (!(shape.c.heatTransfer > 0.0) || !(shape.c.temperature >= hot)) { continue; }
    let pose = poseOf(slot, false);
    let distance = max(0.0, fluidSideDistance(shape, toLocal(pose, x), 0.0).x * pose.scale.x);
    if (distance < h) { site = true; }
    continuing {
      slot = slot + 1u;
      break if slot >= p.colliderCount;
    }
  }
  if (!site) { return; }
  if (!(stepRandom(p.airStep, particle.entity) < m.boilingProbability)) { return; }
  let event = atomicAdd(&airEvents[BOILED_COUNTER], 1u);
  // Past the cap the particle does not boil in this step (the CPU must learn of every conversion).
  if (event >= p.airGenerationLimit) { return; }
  let vapour = u32(m.airMaterial);
  atomicStore(&airEvents[AIR_EVENT_HEADER + 2u * event], particle.entity);
  atomicStore(&airEvents[AIR_EVENT_HEADER + 2u * event + 1u], vapour);
  sortedInfo[i].material = vapour;
  let color = scene.materials[vapour];
  attributes[particle.entity] = vec4<f32>(value.x, color.colorRed, color.colorGreen, color.colorBlue);
}

// @entry fields
@compute @workgroup_size(WORKGROUP_SIZE)
fn fields(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let volume = p.airVolume;
  let coefficient = p.poly6Gradient;
  var numberDensity = p.selfWeight;
  var particleGradient = vec3<f32>(0.0);
  var surfaceGradient = vec3<f32>(0.0);
  nearShare = vec4<f32>(0.0, 0.0, 0.0, 3.0e38);
  nearSlot = -1;
  nextShare = nearShare;
  nextSlot = -1;
  if (p.colliderCount > 0u) {
    let walls = wallWeights(xi);
    numberDensity = numberDensity + walls.w;
    particleGradient = volume * walls.xyz;
  }
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let d = k.radiusSquared - r2;
        numberDensity = numberDensity + k.poly6 * d * d * d;
        // grad_i W_ij = g r_ij (poly6).
        let g = -coefficient * d * d * volume;
        particleGradient = particleGradient + g * r;
        surfaceGradient = surfaceGradient + (scene.materials[sortedInfo[j].material].surfaceColor * g) * r;
  // @end neighbours
  airFields[2u * i] = vec4<f32>(particleGradient, numberDensity);
  airFields[2u * i + 1u] = vec4<f32>(surfaceGradient, 0.0);
}

// @entry decide
@compute @workgroup_size(WORKGROUP_SIZE)
fn decide(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let h = p.kernelRadius;
  let particle = sortedInfo[i];
  let m = scene.materials[particle.material];
  let first = airFields[2u * i];
  let second = airFields[2u * i + 1u];
  let gradient = first.xyz;
  let gradientLength = length(gradient);
  var flags = 0u;
  if (m.isAirMaterial == 1u) {
    // Deletion (3.4.2) with the air material's own thresholds.
    let atBoundary = gradientLength > m.airDeletionBoundaryThreshold / h;
    let awayFromLiquid = atBoundary && length(second.xyz) < m.airDeletionSurfaceThreshold / h;
    let isolated = first.w * p.airVolume < m.airDeletionDensity;
    let atFreeSurface = atBoundary && gradient.y < -p.airSurfaceExitCosine * gradientLength;
    if (awayFromLiquid || isolated || atFreeSurface) {
      sortedInfo[i].lifetime = -1.0;
      atomicAdd(&airEvents[DELETED_COUNTER], 1u);
      flags = 2u;
    }
  } else if (p.airGenerationOpen == 1u && m.airGenerationThreshold > 0.0 && m.airMaterial >= 0 && gradient.y > 0.0
      && gradientLength > m.airGenerationThreshold / h) {
    // Generation (3.4.1), within the step's limit and the free capacity.
    // A slot is claimed only below the room (compare-exchange), so the counter never passes it and every
    // slot below the counter holds a candidate.
    let room = min(p.airGenerationLimit, p.capacity - min(state.count, p.capacity));
    var current = atomicLoad(&airEvents[CANDIDATE_COUNTER]);
    var slot = room;
    loop {
      if (current >= room) { break; }
      let claim = atomicCompareExchangeWeak(&airEvents[CANDIDATE_COUNTER], current, current + 1u);
      if (claim.exchanged) {
        slot = current;
        break;
      }
      current = claim.old_value;
    }
    if (slot < room) {
      let scale = (m.airGenerationDistance * p.airSpacing) / gradientLength;
      let x = sortedPredicted[i].xyz - scale * gradient;
      airCandidates[2u * slot] = vec4<f32>(x, f32(m.airMaterial));
      airCandidates[2u * slot + 1u] = vec4<f32>(delta[i].xyz, f32(particle.entity));
      flags = 1u;
    }
  }
  airFields[2u * i + 1u] = vec4<f32>(second.xyz, f32(flags));
}

// @entry buoyancy
@compute @workgroup_size(WORKGROUP_SIZE)
fn buoyancy(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let m = scene.materials[sortedInfo[i].material];
  if (!(m.artificialBuoyancy > 0.0)) { return; }
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  // rho_i = sum_j m_j W_ij (eq. 2), self included.
  var density = m.mass * p.selfWeight;
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let d = k.radiusSquared - r2;
        density = density + scene.materials[sortedInfo[j].material].mass * (k.poly6 * d * d * d);
  // @end neighbours
  let excess = density - m.restDensity;
  if (!(excess > 0.0)) { return; }
  // dv = -b (rho - rho0) / rho g dt: upwards, at most b |g| dt.
  let scale = (-m.artificialBuoyancy * excess * p.timeStep) / density;
  let v = delta[i];
  delta[i] = vec4<f32>(v.xyz + scale * p.gravity.xyz, v.w);
}
