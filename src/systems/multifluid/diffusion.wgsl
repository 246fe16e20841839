// Diffusion of temperature and render color (mirrors `diffuse` in multifluid/interaction.ts; Müller et al.
// 2005, eq. 13-15), on the entity-indexed attributes (temperature, red, green, blue). Per substep: `rate`
// finds each particle's rate sum_j c_ij V_j lap W_visc(r_ij) (c_ij the pair's mean of the largest
// diffusivity of each material) and the largest over the particles (atomicMax on the bits of the
// non-negative float); `plan` (one thread) splits the substep as the CPU does,
// parts = min(MAX, max(1, ceil(dt largest / stability))), part length min(dt / parts, stability / largest),
// at most `diffusionSlots` parts (the parts recorded; when it wanted more it counts the substep in
// state.diffusionLimited, read back as `FluidStats.diffusionLimitedSubsteps`), and writes the part length
// to diffusionPlan[0] and the parts still to run to state.diffusionPartsLeft. Each recorded part runs `change`,
// dA_i = sum_j c_ij V_j (A_j - A_i) lap W_visc(r_ij) per channel (thermal diffusivity for temperature,
// color diffusivity for the color), then `apply`, A_i += dt' dA_i, then `next` (one thread) counts the part
// off; a recorded part with none left returns at once. (Direct dispatches with this guard, not indirect
// ones: Dawn validates every indirect dispatch's arguments with passes of its own, which cost about 4 ms a
// frame on an H100.) V_j = m_j / rho_j (solve.x). The temperature is T - TEMPERATURE_REFERENCE (see
// gpu/structs.ts): only differences enter here.

// @entry rate
// Of the material in slot m (single fields: SwiftShader loads every field of a whole struct value).
fn largestDiffusivity(m: u32) -> f32 {
  return max(scene.materials[m].diffusivity, scene.materials[m].colorDiffusivity);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn rate(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let k = loadKernel();
  let laplacianCoefficient = scene.params.viscosityLaplacian;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let coefficientI = largestDiffusivity(sortedInfo[i].material);
  var sum = 0.0;
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let slotJ = sortedInfo[j].material;
        let l = laplacianCoefficient * (k.radius - sqrt(r2)) * 0.5 * (coefficientI + largestDiffusivity(slotJ));
        sum = sum + (scene.materials[slotJ].mass / solve[j].x) * l;
  // @end neighbours
  // Non-negative floats order as their bits; a thread writes only above the largest so far (as projection
  // grid.wgsl's bounds: one word for every thread).
  let bits = bitcast<u32>(max(sum, 0.0));
  if (bits > atomicLoad(&diffusionMax[0])) { atomicMax(&diffusionMax[0], bits); }
}

// @entry plan
@compute @workgroup_size(1)
fn plan() {
  let p = scene.params;
  let largest = bitcast<f32>(atomicLoad(&diffusionMax[0]));
  atomicStore(&diffusionMax[0], 0u);
  var parts = 0u;
  var partTime = 0.0;
  if (largest > 0.0) {
    let dt = p.timeStep;
    let wanted = min(f32(p.maxDiffusionParts), max(1.0, ceil(dt * largest / p.diffusionStability)));
    partTime = min(dt / wanted, p.diffusionStability / largest);
    // More parts than recorded (a rate far above the estimate of gpu/backend.ts): the recorded parts keep
    // their stable length, so the diffusion runs slower than asked, never unstably.
    parts = min(u32(wanted), p.diffusionSlots);
    if (u32(wanted) > p.diffusionSlots) { state.diffusionLimited = state.diffusionLimited + 1u; }
  }
  diffusionPlan[0] = partTime;
  state.diffusionPartsLeft = parts;
}

// @entry change
@compute @workgroup_size(WORKGROUP_SIZE)
fn change(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count || state.diffusionPartsLeft == 0u) { return; }
  let k = loadKernel();
  let laplacianCoefficient = scene.params.viscosityLaplacian;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let slotI = sortedInfo[i].material;
  let diffusivity = scene.materials[slotI].diffusivity;
  let colorDiffusivity = scene.materials[slotI].colorDiffusivity;
  let valueI = attributes[sortedInfo[i].entity];
  var sum = vec4<f32>(0.0);
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let infoJ = sortedInfo[j];
        let slotJ = infoJ.material;
        let l = laplacianCoefficient * (k.radius - sqrt(r2));
        let thermal = 0.5 * (diffusivity + scene.materials[slotJ].diffusivity);
        let color = 0.5 * (colorDiffusivity + scene.materials[slotJ].colorDiffusivity);
        let coefficients = vec4<f32>(thermal, color, color, color);
        sum = sum + (scene.materials[slotJ].mass / solve[j].x) * (attributes[infoJ.entity] - valueI) * coefficients * l;
  // @end neighbours
  diffusionChange[i] = sum;
}

// @entry apply
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count || state.diffusionPartsLeft == 0u) { return; }
  let entity = sortedInfo[i].entity;
  attributes[entity] = attributes[entity] + diffusionPlan[0] * diffusionChange[i];
}

// @entry next
@compute @workgroup_size(1)
fn next() {
  if (state.diffusionPartsLeft > 0u) { state.diffusionPartsLeft = state.diffusionPartsLeft - 1u; }
}
