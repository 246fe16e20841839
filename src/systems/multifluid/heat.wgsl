// Heat exchange with colliders (mirrors exchangeColliderHeat in multifluid/interaction.ts): a collider with
// `heatTransfer` k > 0 and `temperature` T_c moves the temperature of each particle within the kernel radius
// h of its surface (fluid-side distance d, at the collider's pose at the end of the substep) by
// dT = min(1, dt k (1 - d / h)) (T_c - T), colliders in slot order. Temperatures relative to
// TEMPERATURE_REFERENCE, as `attributes` stores them (see gpu/structs.ts). Prepended by collide/pose.wgsl and
// collide/shapes.wgsl.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let h = p.kernelRadius;
  let x = sortedPredicted[i].xyz;
  let entity = sortedInfo[i].entity;
  var temperature = attributes[entity].x;
  // Called with colliderCount > 0 (a loop runs its body once at least, see gpu/common.wgsl).
  var slot = 0u;
  loop {
    let shape = loadShape(slot);
    let rate = shape.c.heatTransfer;
    if (!(rate > 0.0)) { continue; }
    let pose = poseOf(slot, false);
    let distance = max(0.0, fluidSideDistance(shape, toLocal(pose, x), 0.0).x * pose.scale.x);
    if (!(distance < h)) { continue; }
    let fraction = min(1.0, p.timeStep * rate * (1.0 - distance / h));
    temperature = temperature + fraction * ((shape.c.temperature - TEMPERATURE_REFERENCE) - temperature);
    continuing {
      slot = slot + 1u;
      break if slot >= p.colliderCount;
    }
  }
  let value = attributes[entity];
  attributes[entity] = vec4<f32>(temperature, value.yzw);
}
