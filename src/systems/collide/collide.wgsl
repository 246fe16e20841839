// Applies each particle's correction (clamped to one particle radius, mirrors applyCorrections in
// density/cpu.ts), then projects it out of solids and into containers (mirrors collideParticles in
// collide/cpu.ts): solids first, containers last; a swept test along the particle's path relative to the
// collider (sphere tracing) so a thin or fast wall cannot be crossed; up to EXTRA_PROJECTIONS more
// projections in concave corners; the contact (collider, normal, approach speed) is recorded.

const EXTRA_PROJECTIONS: u32 = 3u;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let own = sortedPredicted[i];
  var correction = delta[i].xyz;
  let lengthSquared = dot(correction, correction);
  if (lengthSquared > p.particleRadius * p.particleRadius) {
    correction = correction * (p.particleRadius / sqrt(lengthSquared));
  }
  var x = own.xyz + correction;
  if (p.colliderCount > 0u) {
    let start = sortedPosition[i].xyz;
    let v = sortedVelocity[i].xyz;
    var record = contact[i];
    for (var visit = 0u; visit < 2u * p.colliderCount; visit = visit + 1u) {
      let slot = visit % p.colliderCount;
      let c = scene.colliders[slot];
      if ((c.container == 1u) != (visit >= p.colliderCount)) { continue; }
      let pose = poseOf(slot, false);
      let startPose = poseOf(slot, true);
      let localRadius = p.particleRadius * pose.scale.y;
      let l = toLocal(pose, x);
      var normal: vec3<f32>;
      var push: vec3<f32>;
      if (c.shape == SHAPE_BOX && c.container == 1u) {
        let projected = clamp(l, c.a.xyz + vec3<f32>(localRadius), c.b.xyz - vec3<f32>(localRadius));
        push = projected - l;
        let depth = sqrt(dot(push, push));
        if (depth == 0.0) { continue; }
        normal = push / depth;
      } else {
        var surface = fluidSideDistance(slot, l, localRadius);
        var endDistance = surface.x;
        normal = surface.yzw;
        var e = l;
        // Swept test from the start-of-substep position in the start pose.
        let s = toLocal(startPose, start);
        let path = l - s;
        let pathLength = sqrt(dot(path, path));
        if (pathLength > max(endDistance, 0.0)) {
          let startDistance = fluidSideDistance(slot, s, 0.0).x;
          if (startDistance > 0.0 && pathLength > startDistance + max(endDistance, 0.0)) {
            var t = 0.0;
            let tolerance = 1e-6 * localRadius;
            for (var march = 0u; march < 64u && t < 1.0; march = march + 1u) {
              let probe = fluidSideDistance(slot, s + t * path, tolerance);
              if (probe.x < tolerance) {
                e = s + t * path;
                endDistance = probe.x;
                normal = probe.yzw;
                break;
              }
              t = t + probe.x / pathLength;
            }
          }
        }
        if (endDistance >= localRadius) { continue; }
        var f = e + (localRadius - endDistance) * normal;
        for (var round = 0u; round < EXTRA_PROJECTIONS; round = round + 1u) {
          let again = fluidSideDistance(slot, f, localRadius);
          let deficit = localRadius - again.x;
          if (deficit <= 1e-3 * localRadius) { break; }
          f = f + deficit * again.yzw;
        }
        push = f - l;
      }
      let worldNormal = rotate(pose, normal);
      // Surface velocity over the substep at this particle: where local point l was at the start.
      let surfaceVelocity = (x - toWorld(startPose, l)) * p.inverseTimeStep;
      x = x + pose.scale.x * rotate(pose, push);
      if (record.collider != i32(slot)) {
        record.approach = min(dot(v - surfaceVelocity, worldNormal), 0.0);
      }
      record.collider = i32(slot);
      record.normal = vec4<f32>(worldNormal, 0.0);
    }
    contact[i] = record;
  }
  sortedPredicted[i] = vec4<f32>(x, own.w);
}
