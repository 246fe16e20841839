// Small passes around the solver: `writeBack` ends a substep (x = x*, v from the velocity passes, in the new
// sorted order, which becomes the particle order) and moves the substep counter on; `edit` applies the particle edits game code uploaded
// (keeping the GPU's material where the record says KEEP_MATERIAL, see gpu/structs.ts);
// `append` adds the particles the CPU created (emitters, spawns) (both also write the particle's temperature
// and color to the entity-indexed `attributes`); `begin` starts a step (the substep index lives on the GPU, so
// no parameter is rewritten between dispatches).

// @entry writeBack
@compute @workgroup_size(WORKGROUP_SIZE)
fn writeBack(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  // The next substep (no pass of this one reads the counter after this; the backend dispatches this pass with
  // at least one workgroup, also without particles: white water's poses read the counter).
  if (i == 0u) { state.substep = state.substep + 1u; }
  if (i >= state.count) {
    // Places the sort just freed (removed particles) hold stale copies until reused: the renderer may still
    // draw them until the CPU learns the new count, so they are parked far below the scene.
    if (i < state.previousCount) { position[i] = vec4<f32>(0.0, -1.0e7, 0.0, 0.0); }
    return;
  }
  let particle = sortedInfo[i];
  let x = sortedPredicted[i].xyz;
  let v = delta[i].xyz;
  // Non-finite: every exponent bit set (NaN or infinity); tested on the bits, which no fast-math can fold.
  let exponents = (bitcast<vec3<u32>>(x) & vec3<u32>(0x7f800000u)) == vec3<u32>(0x7f800000u);
  let velocityExponents = (bitcast<vec3<u32>>(v) & vec3<u32>(0x7f800000u)) == vec3<u32>(0x7f800000u);
  if (any(exponents) || any(velocityExponents)) { state.nonFinite = 1u; }
  position[i] = vec4<f32>(x, f32(particle.material));
  velocity[i] = vec4<f32>(v, 0.0);
  info[i] = particle;
  placeOfEntity[particle.entity] = i;
}

// @entry edit
@compute @workgroup_size(WORKGROUP_SIZE)
fn edit(@builtin(global_invocation_id) id: vec3<u32>) {
  let k = id.x;
  if (k >= scene.params.editCount) { return; }
  let record = records[k];
  let place = placeOfEntity[record.info.entity];
  // A particle the GPU removed since (not yet known on the CPU) is left alone.
  if (place >= state.count || info[place].entity != record.info.entity) { return; }
  var particle = info[place];
  if (record.info.lifetime < 0.0) {
    particle.lifetime = -1.0;
    info[place] = particle;
    return;
  }
  var values = record.attributes;
  if (record.info.material != KEEP_MATERIAL) {
    particle.material = record.info.material;
  } else if (particle.material != u32(record.position.w)) {
    // Game code left the material alone and the GPU changed it since the CPU last knew it (boiling, whose
    // readback has not arrived): the GPU's material and color stay, the edit's temperature applies.
    values = vec4<f32>(record.attributes.x, attributes[record.info.entity].yzw);
  }
  info[place] = particle;
  position[place] = vec4<f32>(record.position.xyz, f32(particle.material));
  velocity[place] = record.velocity;
  attributes[record.info.entity] = values;
}

// @entry append
@compute @workgroup_size(WORKGROUP_SIZE)
fn append(@builtin(global_invocation_id) id: vec3<u32>) {
  let k = id.x;
  if (k >= scene.params.appendCount) { return; }
  let record = records[scene.params.editCount + k];
  let place = state.count + k;
  position[place] = vec4<f32>(record.position.xyz, f32(record.info.material));
  velocity[place] = record.velocity;
  info[place] = record.info;
  placeOfEntity[record.info.entity] = place;
  attributes[record.info.entity] = record.attributes;
}

// @entry begin
@compute @workgroup_size(1)
fn begin() {
  state.count = state.count + scene.params.appendCount;
  state.substep = 0u;
  // The MPS solve's largest iterations and residual over this step's substeps (mps/cg.wgsl, finish).
  state.pressureSolveIterations = 0u;
  state.pressureSolveResidual = 0.0;
}

// @entry clear
// The bucket counts, and the sort's list of long buckets (neighbours/sort.wgsl). A workgroup clears a scan
// block (SCAN_ELEMENTS entries a thread, a workgroup's width apart), so the largest table, 2^23 buckets, takes
// 4,096 workgroups, within the 65,535 a dispatch may have.
@compute @workgroup_size(SCAN_WORKGROUP_SIZE)
fn clear(@builtin(local_invocation_id) local: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>) {
  let base = group.x * SCAN_WORKGROUP_SIZE * SCAN_ELEMENTS + local.x;
  let length = arrayLength(&scanData);
  for (var k = 0u; k < SCAN_ELEMENTS; k = k + 1u) {
    let i = base + k * SCAN_WORKGROUP_SIZE;
    if (i < length) { scanData[i] = 0u; }
  }
  if (group.x == 0u && local.x == 0u) { atomicStore(&longBuckets[0], 0u); }
}
