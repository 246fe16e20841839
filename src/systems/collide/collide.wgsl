// Applies each particle's correction (clamped to one particle radius, mirrors applyCorrections in
// density/cpu.ts), then projects it out of solids and into containers (mirrors collideParticles in
// collide/cpu.ts): solids first, containers last; a swept test along the particle's path relative to the
// collider (sphere tracing) so a thin or fast wall cannot be crossed; up to EXTRA_PROJECTIONS more
// projections in concave corners; the contact (collider, normal, approach speed) is recorded. A particle
// whose start-of-substep position lay inside a wall (not of a container box) is pre-stabilised: its start
// position moves with the push, so it gains no velocity, and no impulse goes to a coupled body.
// Two variants (see `couplingVariant` in gpu/backend.ts): without coupled colliders this pass applies the
// correction first; with them the apply pass (couple/apply.wgsl) has done so and left the coupled
// colliders' wall-pressure shares as pending pushes in the contact record; this pass adds each coupled
// collider's push to them, takes back from them what other colliders push against them, and at the end
// hands them to the bodies' impulse accumulators (couple/impulse.wgsl): -m dx / dt at the particle (mirrors
// addPendingPush, opposePendingPushes and flushPendingPushes in couple/cpu.ts).


// Phases of the distance queries of one collider (see main).
const END: u32 = 0u;
const START: u32 = 1u;
const MARCH: u32 = 2u;
const PROJECT: u32 = 3u;
const CHECK: u32 = 4u;
const DONE: u32 = 5u;
const MISSED: u32 = 6u;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let own = sortedPredicted[i];
  // @uncoupled
  var correction = delta[i].xyz;
  let lengthSquared = dot(correction, correction);
  // WCSPH (sphMode 1) hands its whole drift dt v here, and MPS (mpsMode 1) the drift of its viscosity and
  // collisions and its clamped correction, unclamped as on the CPU (sph/cpu.ts, mps/cpu.ts).
  if (p.sphMode == 0u && p.mpsMode == 0u && lengthSquared > p.particleRadius * p.particleRadius) {
    correction = correction * (p.particleRadius / sqrt(lengthSquared));
  }
  var x = own.xyz + correction;
  // @end uncoupled
  // @coupled
  var x = own.xyz;
  // @end coupled
  if (p.colliderCount > 0u) {
    let startRecord = sortedPosition[i];
    var start = startRecord.xyz;
    var startMoved = false;
    // @coupled
    let mass = scene.materials[u32(startRecord.w)].mass;
    // @end coupled
    let v = sortedVelocity[i].xyz;
    // The contact's fields by themselves (SwiftShader loads and stores every field of a struct value): the
    // collider the last visit recorded, and what this pass records; the coupled variant's pending pushes.
    var contactCollider = contact[i].collider;
    var contactNormal = vec3<f32>(0.0);
    var contactApproach = 0.0;
    var touched = false;
    var approached = false;
    // @coupled
    var pendingPushes = contact[i].pending;
    // @end coupled
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
      var penetrating = false;
      if (c.shape == SHAPE_BOX && c.container == 1u) {
        let projected = clamp(l, c.a.xyz + vec3<f32>(localRadius), c.b.xyz - vec3<f32>(localRadius));
        push = projected - l;
        let depth = sqrt(dot(push, push));
        if (depth == 0.0) { continue; }
        normal = push / depth;
      } else {
        // Every other collider (left out of the `Boxes` variant, dispatched while all are box containers).
        // @shapes
        // One distance query per round of a loop (SwiftShader runs every query written in the shader, taken
        // or not): the distance at l, then, if the path is longer, at the start s, then the sphere-traced
        // march from s (MARCH), then the extra projections (PROJECT), then, if not known yet, the distance
        // at s for the pre-stabilisation (CHECK), as written out in collide/cpu.ts.
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
        var startDistance = 0.0;
        var startKnown = false;
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
            startDistance = d.x;
            startKnown = true;
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
              if (march < MAXIMUM_MARCH_STEPS && t < 1.0) {
                query = s + t * path;
              } else {
                project = true;
              }
            }
          } else if (phase == PROJECT) {
            let deficit = localRadius - d.x;
            round = round + 1u;
            var finished = false;
            if (deficit <= 1e-3 * localRadius) {
              finished = true;
            } else {
              f = f + deficit * d.yzw;
              query = f;
              finished = round >= EXTRA_PROJECTIONS;
            }
            if (finished) {
              if (startKnown) {
                phase = DONE;
              } else {
                phase = CHECK;
                query = s;
                normalWithin = 0.0;
              }
            }
          } else {
            startDistance = d.x;
            phase = DONE;
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
        penetrating = startDistance < 0.0;
        // @end shapes
      }
      let worldNormal = rotate(pose, normal);
      // Surface velocity over the substep at this particle: where local point l was at the start.
      let surfaceVelocity = (x - toWorld(startPose, l)) * p.inverseTimeStep;
      let worldPush = pose.scale.x * rotate(pose, push);
      x = x + worldPush;
      if (penetrating) {
        start = start + worldPush;
        startMoved = true;
      }
      // @coupled
      var free = PENDING_PUSHES;
      var merged = false;
      var entry = 0u;
      loop {
        let pending = pendingPushes[entry];
        if (pending.w >= 0.0 && u32(pending.w) != slot) {
          let against = dot(worldPush, pending.xyz);
          if (against < 0.0) {
            let keep = max(0.0, 1.0 + against / dot(pending.xyz, pending.xyz));
            pendingPushes[entry] = vec4<f32>(keep * pending.xyz, pending.w);
          }
        }
        if (c.coupled == 1u && !penetrating) {
          if (pending.w >= 0.0 && u32(pending.w) == slot) {
            pendingPushes[entry] = vec4<f32>(pending.xyz + worldPush, pending.w);
            merged = true;
          }
          if (pending.w < 0.0 && free == PENDING_PUSHES) { free = entry; }
        }
        continuing {
          entry = entry + 1u;
          break if entry >= PENDING_PUSHES;
        }
      }
      if (c.coupled == 1u && !penetrating && !merged) {
        if (free == PENDING_PUSHES) {
          // A third coupled collider: the oldest pending push is handed over first.
          let oldest = pendingPushes[0];
          let oldestSlot = u32(oldest.w);
          addBodyImpulse(oldestSlot, poseOf(oldestSlot, false), scene.colliders[oldestSlot].centerOfMass.xyz,
            (-mass * p.inverseTimeStep) * oldest.xyz, x);
          pendingPushes[0] = pendingPushes[1];
          free = 1u;
        }
        pendingPushes[free] = vec4<f32>(worldPush, f32(slot));
      }
      // @end coupled
      if (contactCollider != i32(slot)) {
        contactApproach = min(dot(v - surfaceVelocity, worldNormal), 0.0);
        approached = true;
      }
      contactCollider = i32(slot);
      contactNormal = worldNormal;
      touched = true;
      continuing {
        visit = visit + 1u;
        visited = visited + 1u;
        break if visited >= count;
      }
    }
    // @coupled
    var entry = 0u;
    loop {
      let pending = pendingPushes[entry];
      if (pending.w >= 0.0) {
        let pendingSlot = u32(pending.w);
        addBodyImpulse(pendingSlot, poseOf(pendingSlot, false), scene.colliders[pendingSlot].centerOfMass.xyz,
          (-mass * p.inverseTimeStep) * pending.xyz, x);
        pendingPushes[entry] = vec4<f32>(0.0, 0.0, 0.0, -1.0);
      }
      continuing {
        entry = entry + 1u;
        break if entry >= PENDING_PUSHES;
      }
    }
    // @end coupled
    // @coupled
    contact[i].pending = pendingPushes;
    // @end coupled
    if (touched) {
      contact[i].collider = contactCollider;
      contact[i].normal = vec4<f32>(contactNormal, 0.0);
      if (approached) { contact[i].approach = contactApproach; }
    }
    if (startMoved) { sortedPosition[i] = vec4<f32>(start, startRecord.w); }
  }
  sortedPredicted[i] = vec4<f32>(x, own.w);
}
