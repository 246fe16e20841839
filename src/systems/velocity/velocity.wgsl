// Velocity from positions and the contact response (mirrors velocitySystem in velocity/cpu.ts):
// v = (x* - x) / dt; at a contact, restitution and Coulomb friction relative to the collider's surface
// velocity. Also stores the particle volume m / rho in w for the XSPH and vorticity passes. In the variant
// for steps with coupled colliders (see `couplingVariant` in gpu/backend.ts), a coupled collider's body
// receives the particle's momentum change, m (v_before - v_after), at the contact point
// (couple/impulse.wgsl). The material slot comes from the start position's w.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let predicted = sortedPredicted[i].xyz;
  let start = sortedPosition[i];
  var v = (predicted - start.xyz) * p.inverseTimeStep;
  let mass = scene.materials[u32(start.w)].mass;
  // Single fields of the contact and the collider: SwiftShader loads every field of a struct value.
  let collider = contact[i].collider;
  if (collider >= 0) {
    let slot = u32(collider);
    let friction = scene.colliders[slot].friction;
    let restitution = scene.colliders[slot].restitution;
    if (friction > 0.0 || restitution > 0.0) {
      let pose = poseOf(slot, false);
      let startPose = poseOf(slot, true);
      let surfaceVelocity = (predicted - toWorld(startPose, toLocal(pose, predicted))) * p.inverseTimeStep;
      let n = contact[i].normal.xyz;
      let u = v - surfaceVelocity;
      var normalSpeed = dot(u, n);
      var tangential = u - normalSpeed * n;
      let approach = contact[i].approach;
      if (restitution > 0.0 && -approach > p.restingSpeed) {
        normalSpeed = max(normalSpeed, -restitution * approach);
      }
      let normalChange = normalSpeed - approach;
      let tangentialSpeed = sqrt(dot(tangential, tangential));
      if (friction > 0.0 && tangentialSpeed > 0.0 && normalChange > 0.0) {
        tangential = tangential * max(0.0, 1.0 - friction * normalChange / tangentialSpeed);
      }
      let after = surfaceVelocity + tangential + normalSpeed * n;
      // @coupled
      if (scene.colliders[slot].coupled == 1u) {
        addBodyImpulse(slot, pose, scene.colliders[slot].centerOfMass.xyz, mass * (v - after), predicted - p.particleRadius * n);
      }
      // @end coupled
      v = after;
    }
  }
  sortedVelocity[i] = vec4<f32>(v, mass / solve[i].x);
}
