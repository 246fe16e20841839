// Applies each particle's correction (clamped to one particle radius, mirrors applyCorrections in
// density/cpu.ts), then projects it out of solids and into containers (mirrors collideParticles in
// collide/cpu.ts): solids first, containers last; a swept test along the particle's path relative to the
// collider (sphere tracing) so a thin or fast wall cannot be crossed; up to EXTRA_PROJECTIONS more
// projections in concave corners; the contact (collider, normal, approach speed) is recorded.

const EXTRA_PROJECTIONS: u32 = 3u;

// Phases of the distance queries of one collider (see main).
const END: u32 = 0u;
const START: u32 = 1u;
const MARCH: u32 = 2u;
const PROJECT: u32 = 3u;
const DONE: u32 = 4u;
const MISSED: u32 = 5u;

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
    let count = p.colliderCount;
    // Visits: solids first, containers last, each in slot order, i.e. visit v is slot v % count if that
    // collider's kind matches the half v falls in. Every collider is visited once, so the body runs `count`
    // times: the next match is found first (a skip in the body would still run it on SwiftShader, masked;
    // see common.wgsl on loops).
    var visit = 0u;
    var visited = 0u;
    loop {
      loop {
        if (visit >= 2u * count || (scene.colliders[visit % count].container == 1u) == (visit >= count)) { break; }
        visit = visit + 1u;
      }
      if (visit >= 2u * count) { break; }
      let slot = visit % count;
      let shape = loadShape(slot);
      let c = shape.c;
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
        // One distance query per round of a loop (SwiftShader runs every query written in the shader, taken
        // or not): the distance at l, then, if the path is longer, at the start s, then the sphere-traced
        // march from s (MARCH), then the extra projections (PROJECT), as written out in collide/cpu.ts.
        let s = toLocal(startPose, start);
        let path = l - s;
        let pathLength = sqrt(dot(path, path));
        let tolerance = 1e-6 * localRadius;
        var phase = END;
        var query = l;
        var normalWithin = localRadius;
        var endDistance = 0.0;
        var e = l;
        var t = 0.0;
        var march = 0u;
        var f = l;
        var round = 0u;
        var project = false;
        loop {
          let d = fluidSideDistance(shape, query, normalWithin);
          if (phase == END) {
            endDistance = d.x;
            normal = d.yzw;
            if (pathLength > max(endDistance, 0.0)) {
              phase = START;
              query = s;
              normalWithin = 0.0;
            } else {
              project = true;
            }
          } else if (phase == START) {
            if (d.x > 0.0 && pathLength > d.x + max(endDistance, 0.0)) {
              phase = MARCH;
              query = s + t * path;
              normalWithin = tolerance;
            } else {
              project = true;
            }
          } else if (phase == MARCH) {
            if (d.x < tolerance) {
              e = query;
              endDistance = d.x;
              normal = d.yzw;
              project = true;
            } else {
              t = t + d.x / pathLength;
              march = march + 1u;
              if (march < 64u && t < 1.0) {
                query = s + t * path;
              } else {
                project = true;
              }
            }
          } else {
            let deficit = localRadius - d.x;
            round = round + 1u;
            if (deficit <= 1e-3 * localRadius) {
              phase = DONE;
            } else {
              f = f + deficit * d.yzw;
              query = f;
              if (round >= EXTRA_PROJECTIONS) { phase = DONE; }
            }
          }
          if (project) {
            project = false;
            if (endDistance >= localRadius) {
              phase = MISSED;
            } else {
              f = e + (localRadius - endDistance) * normal;
              phase = PROJECT;
              query = f;
              normalWithin = localRadius;
            }
          }
          continuing {
            break if phase >= DONE;
          }
        }
        if (phase == MISSED) { continue; }
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
      continuing {
        visit = visit + 1u;
        visited = visited + 1u;
        break if visited >= count;
      }
    }
    contact[i] = record;
  }
  sortedPredicted[i] = vec4<f32>(x, own.w);
}
