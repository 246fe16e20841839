/**
 * Phase change: boiling (Müller, Solenthaler, Keiser and Gross 2005, section 4.4). Bubbles form first at
 * cavitation sites on solid surfaces in contact with the liquid; the paper picks 5 sites at the bottom of
 * its glass, and water particles close to a site that reach 100 degrees Celsius turn into air particles
 * with probability 0.005 per time step and particle. Here the cavitation sites are the heated surfaces
 * themselves: every point within the kernel radius h of a collider that exchanges heat (`heatTransfer`
 * > 0) and is at least as hot as the liquid's `boilingTemperature` (a burner's plate, a heated floor). A
 * particle of a material with `boilingTemperature` T_b > 0, `boilingProbability` p > 0 and an
 * `airMaterial` whose `Temperature` has reached T_b there turns into that material (vapour) with
 * probability p per step: its `Particle.material` and `Color` change, its position, velocity and
 * temperature stay (same place in the list: no capacity question). The draw uses the simulation's seeded
 * generator (the emitters' mulberry32, `events.randomState`, saved by snapshots), only for particles that
 * qualify: the run is deterministic, and a scene where nothing boils draws nothing.
 *
 * The vapour then rises (the air material's lower rest density and its artificial buoyancy, eq. 17, see
 * air.ts) and leaves at the free surface (the deletion of air.ts): the liquid's particle count falls.
 *
 * Step-end system, after `publish` and before `trappedAir` (which then treats the new vapour as air):
 * it reads the published temperatures and the collider poses of the step's end.
 */
import { fluidSideDistance, fluidSidePoint } from '../collide/cpu';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import { nextRandom } from '../emit/cpu';

/** Whether the particle at place `i` lies within h of a heat-exchanging collider at least `hot` kelvin. */
function atCavitationSite(ctx: SimulationContext, i: number, hot: number): boolean {
  const s = ctx.solver;
  const h = ctx.settings.kernelRadius;
  const collider = ctx.components.Collider;
  const table = ctx.colliders;
  const local = s.multiFluid.local;
  const f = table.frames;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    if (!(collider.heatTransfer[eid] > 0) || !(collider.temperature[eid] >= hot)) continue;
    // Pose at the end of the step: world = scale R local + t (row-major R).
    const o = slot * COLLIDER_FRAME_STRIDE;
    const scale = f[o + 12];
    const inverseScale = 1 / scale;
    const wx = s.positionX[i] - f[o + 9];
    const wy = s.positionY[i] - f[o + 10];
    const wz = s.positionZ[i] - f[o + 11];
    const lx = (f[o] * wx + f[o + 3] * wy + f[o + 6] * wz) * inverseScale;
    const ly = (f[o + 1] * wx + f[o + 4] * wy + f[o + 7] * wz) * inverseScale;
    const lz = (f[o + 2] * wx + f[o + 5] * wy + f[o + 8] * wz) * inverseScale;
    fluidSidePoint[0] = lx;
    fluidSidePoint[1] = ly;
    fluidSidePoint[2] = lz;
    fluidSideDistance(ctx, eid, fluidSidePoint, local, 0);
    if (Math.max(0, local[0] * scale) < h) return true;
  }
  return false;
}

/**
 * Step-end system `boiling` of the CPU system list: turns liquid particles at cavitation sites at their
 * boiling temperature into vapour (see the file comment). Returns at once when no material boils.
 */
export function boilingSystem(ctx: SimulationContext): void {
  ctx.stats.boiledCount = 0;
  if (!ctx.solver.multiFluid.features.boiling) return;
  const s = ctx.solver;
  const n = s.count;
  const { Particle, Temperature, Color, FluidMaterial: store } = ctx.components;
  const entity = s.entity;
  let boiled = 0;
  for (let i = 0; i < n; i++) {
    const eid = entity[i];
    const m = Particle.material[eid];
    const boilingTemperature = store.boilingTemperature[m];
    if (!(boilingTemperature > 0) || !(Temperature[eid] >= boilingTemperature)) continue;
    const probability = store.boilingProbability[m];
    const vapour = store.airMaterial[m];
    if (!(probability > 0) || vapour < 0) continue;
    if (!atCavitationSite(ctx, i, boilingTemperature)) continue;
    if (!(nextRandom(ctx) < probability)) continue;
    Particle.material[eid] = vapour;
    Color.red[eid] = store.colorRed[vapour];
    Color.green[eid] = store.colorGreen[vapour];
    Color.blue[eid] = store.colorBlue[vapour];
    boiled++;
  }
  ctx.stats.boiledCount = boiled;
}
