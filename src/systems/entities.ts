/**
 * Creating and removing particle entities: one place for the solver's dense list, used by the public spawn
 * calls and by the emit-and-drain system; the ids come from entityIds.ts (delayed reuse).
 */
import { addComponent } from 'bitecs';
import type { SimulationContext } from './context';
import { createEntity, destroyEntity } from './entityIds';

/**
 * Adds one particle entity at (x, y, z) with velocity (vx, vy, vz), of material entity `material`, living
 * `lifetime` seconds (0: forever), at the end of the solver's dense list. The caller checks the capacity.
 */
export function createParticle(
  ctx: SimulationContext,
  x: number,
  y: number,
  z: number,
  vx: number,
  vy: number,
  vz: number,
  material: number,
  lifetime: number,
): number {
  const { Position, Velocity, Particle, Density } = ctx.components;
  const eid = createEntity(ctx);
  addComponent(ctx.world, eid, Position);
  addComponent(ctx.world, eid, Velocity);
  addComponent(ctx.world, eid, Particle);
  addComponent(ctx.world, eid, Density);
  const { Temperature, Color, FluidMaterial } = ctx.components;
  addComponent(ctx.world, eid, Temperature);
  addComponent(ctx.world, eid, Color);
  Temperature[eid] = FluidMaterial.initialTemperature[material];
  Color.red[eid] = FluidMaterial.colorRed[material];
  Color.green[eid] = FluidMaterial.colorGreen[material];
  Color.blue[eid] = FluidMaterial.colorBlue[material];
  Position.x[eid] = x;
  Position.y[eid] = y;
  Position.z[eid] = z;
  Velocity.x[eid] = vx;
  Velocity.y[eid] = vy;
  Velocity.z[eid] = vz;
  Particle.material[eid] = material;
  Particle.age[eid] = 0;
  Particle.lifetime[eid] = lifetime;
  Density[eid] = 0;
  const s = ctx.solver;
  s.entity[s.count] = eid;
  s.placeOfEntity[eid] = s.count;
  // No density error yet (the projection's density relaxation reads it, see projection/cpu.ts).
  s.constraint[s.count] = 0;
  s.count++;
  ctx.gpu?.solver.queueAppend(eid);
  return eid;
}

/** Removes the particle entity `eid` (a live particle): the last particle of the dense list takes its place. */
export function destroyParticle(ctx: SimulationContext, eid: number): void {
  const s = ctx.solver;
  const place = s.placeOfEntity[eid];
  const last = s.count - 1;
  const moved = s.entity[last];
  s.entity[place] = moved;
  s.placeOfEntity[moved] = place;
  s.constraint[place] = s.constraint[last];
  s.placeOfEntity[eid] = -1;
  s.count--;
  destroyEntity(ctx, eid);
}
