// Velocity from positions and the contact response (mirrors velocitySystem in velocity/cpu.ts):
// v = (x* - x) / dt; at a contact, restitution and Coulomb friction relative to the collider's surface
// velocity. Also stores the particle volume m / rho in w for the XSPH and vorticity passes.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let predicted = sortedPredicted[i].xyz;
  var v = (predicted - sortedPosition[i].xyz) * p.inverseTimeStep;
  let record = contact[i];
  if (record.collider >= 0) {
    let slot = u32(record.collider);
    let c = scene.colliders[slot];
    if (c.friction > 0.0 || c.restitution > 0.0) {
      let pose = poseOf(slot, false);
      let startPose = poseOf(slot, true);
      let surfaceVelocity = (predicted - toWorld(startPose, toLocal(pose, predicted))) * p.inverseTimeStep;
      let n = record.normal.xyz;
      let u = v - surfaceVelocity;
      var normalSpeed = dot(u, n);
      var tangential = u - normalSpeed * n;
      let approach = record.approach;
      if (c.restitution > 0.0 && -approach > p.restingSpeed) {
        normalSpeed = max(normalSpeed, -c.restitution * approach);
      }
      let normalChange = normalSpeed - approach;
      let tangentialSpeed = sqrt(dot(tangential, tangential));
      if (c.friction > 0.0 && tangentialSpeed > 0.0 && normalChange > 0.0) {
        tangential = tangential * max(0.0, 1.0 - c.friction * normalChange / tangentialSpeed);
      }
      v = surfaceVelocity + tangential + normalSpeed * n;
    }
  }
  let mass = scene.materials[sortedInfo[i].material].mass;
  sortedVelocity[i] = vec4<f32>(v, mass / solve[i].x);
}
