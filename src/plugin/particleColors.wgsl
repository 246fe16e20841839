// The views' per-particle colors on the WebGPU backend (see particleColors.ts): one vec4 (r, g, b, 1) per
// particle, in draw order (the order of the position buffer after a step, in which `info`, `velocity` and
// `solve` lie too), into a storage buffer the views bind as an instanced color vertex buffer. Mirrors the
// CPU feed (particleFeed.ts, writeParticleColor): the material's render color, the particle's `Color`
// (entity-indexed `attributes`, red, green, blue in y, z, w), or the speed and density color maps, whose
// stops (SPEED_STOPS, DENSITY_STOPS) are generated from the TypeScript arrays (colorMaps.ts).

// The color at `t` in [0, 1] along the speed map (as writeColorMap).
fn speedColor(t: f32) -> vec3<f32> {
  var stops = SPEED_STOPS;
  let segments = f32(SPEED_STOPS_COUNT - 1u);
  let position = clamp(t, 0.0, 1.0) * segments;
  let segment = u32(min(segments - 1.0, floor(position)));
  let f = position - f32(segment);
  return stops[segment] + f * (stops[segment + 1u] - stops[segment]);
}

// The color at `t` in [0, 1] along the diverging density map (as writeColorMap).
fn densityColor(t: f32) -> vec3<f32> {
  var stops = DENSITY_STOPS;
  let segments = f32(DENSITY_STOPS_COUNT - 1u);
  let position = clamp(t, 0.0, 1.0) * segments;
  let segment = u32(min(segments - 1.0, floor(position)));
  let f = position - f32(segment);
  return stops[segment] + f * (stops[segment + 1u] - stops[segment]);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= colorParams.count) { return; }
  let particle = info[i];
  let material = scene.materials[particle.material];
  var color = vec3<f32>(material.colorRed, material.colorGreen, material.colorBlue);
  if (colorParams.mode == COLOR_BY_COLOR) {
    color = attributes[particle.entity].yzw;
  } else if (colorParams.mode == COLOR_BY_SPEED) {
    color = speedColor(length(velocity[i].xyz) * colorParams.inverseSpeedRange);
  } else if (colorParams.mode == COLOR_BY_DENSITY) {
    // The density of the particle's last substep (solve.x), as the readback hands it to `Density`.
    let deviation = solve[i].x * material.inverseRestDensity - 1.0;
    color = densityColor(0.5 + 0.5 * deviation * colorParams.inverseDensityRange);
  }
  particleColors[i] = vec4<f32>(color, 1.0);
}
