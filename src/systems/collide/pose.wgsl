// Collider poses of the current substep (see writeScene in gpu/backend.ts) and frame changes.

fn poseOf(slot: u32, start: bool) -> Pose {
  return scene.poses[(state.substep * scene.params.colliderCount + slot) * 2u + select(0u, 1u, start)];
}

// World to local: R^T (x - t) / s.
fn toLocal(pose: Pose, x: vec3<f32>) -> vec3<f32> {
  let w = x - vec3<f32>(pose.row0.w, pose.row1.w, pose.row2.w);
  return (pose.row0.xyz * w.x + pose.row1.xyz * w.y + pose.row2.xyz * w.z) * pose.scale.y;
}

// Local direction to world: R v.
fn rotate(pose: Pose, v: vec3<f32>) -> vec3<f32> {
  return vec3<f32>(dot(pose.row0.xyz, v), dot(pose.row1.xyz, v), dot(pose.row2.xyz, v));
}

// Local point to world: s R l + t.
fn toWorld(pose: Pose, l: vec3<f32>) -> vec3<f32> {
  return pose.scale.x * rotate(pose, l) + vec3<f32>(pose.row0.w, pose.row1.w, pose.row2.w);
}
