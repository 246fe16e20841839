/**
 * The content checks of a snapshot before it is restored: a save file is untrusted input, and a valid
 * checksum says only that nobody changed it by accident. Every value the restore would write is checked
 * with the checks a step runs on what game code edits (validate.ts, emit/cpu.ts), on a scratch copy of
 * the component stores, so a snapshot that fails changes nothing.
 */

import { FluidError } from '../../core/errors';
import type { SimulationContext } from '../context';
import { createColliderTable, createMaterialTable } from '../context';
import { checkEmittersAndDrains } from '../emit/cpu';
import { checkComponents } from '../validate';
import { savedLiveSettings } from './apply';
import { scratchComponents, writeComponentValues } from './components';
import type { DecodedSnapshot } from './format';

/** The stores each kind of entity must be a member of (what creating one adds), by its list in 'ORDR'. */
const KIND_STORES = [
  ['particles', ['Position', 'Velocity', 'Particle']],
  ['materials', ['FluidMaterial']],
  ['colliders', ['Collider']],
  ['emitters', ['Emitter']],
  ['drains', ['Drain']],
] as const;

/** Throws {@link FluidError} if an entity of a kind is not a member of a store that kind needs. */
function checkMemberships(decoded: DecodedSnapshot): void {
  const indexOf = new Map<number, number>();
  for (let k = 0; k < decoded.alive.length; k++) indexOf.set(decoded.alive[k], k);
  const stores = new Map(decoded.stores.map((store) => [store.name, store]));
  for (const [list, names] of KIND_STORES) {
    for (const name of names) {
      const members = stores.get(name)?.members;
      for (const eid of decoded[list]) {
        const k = indexOf.get(eid) as number;
        if (members === undefined || (members[k >> 3] & (1 << (k & 7))) === 0) {
          throw new FluidError(
            `snapshot section 'COMP': entity ${eid} is listed with the ${list} (section 'ORDR') but has no ${name} component`,
          );
        }
      }
    }
  }
}

/** Throws {@link FluidError} if a saved statistic is a number that is not finite, or an id list is out of range. */
function checkEventsAndStatistics(decoded: DecodedSnapshot): void {
  for (const [key, value] of decoded.stats) {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new FluidError(`snapshot section 'STAT': ${key} is ${value}; it must be a finite number`);
    }
  }
  for (const [name, ids] of [
    ['emitted', decoded.emitted],
    ['removed', decoded.removed],
  ] as const) {
    for (const eid of ids) {
      if (!(eid >= 1 && eid <= decoded.maxId)) {
        throw new FluidError(
          `snapshot section 'EVTS': the last step's ${name} ids hold ${eid}; allowed range is [1, ${decoded.maxId}] (the saved entity ids)`,
        );
      }
    }
  }
}

/**
 * A context that sees the snapshot's state instead of `ctx`'s: the saved live settings, scratch component
 * stores holding the saved values, and fresh material and collider tables listing the saved entities. The
 * checks read it (and write only its own tables); `ctx` is unchanged.
 */
function snapshotView(ctx: SimulationContext, decoded: DecodedSnapshot): SimulationContext {
  const components = scratchComponents(ctx, decoded.maxId + 1);
  writeComponentValues(components, decoded);
  const materials = createMaterialTable(ctx.settings.maxMaterials, ctx.entityCapacity);
  materials.entity.set(decoded.materials);
  materials.count = decoded.materials.length;
  for (let slot = 0; slot < decoded.materials.length; slot++) materials.slotOfEntity[decoded.materials[slot]] = slot;
  const colliders = createColliderTable(ctx.settings.maxColliders);
  colliders.entity.set(decoded.colliders);
  colliders.count = decoded.colliders.length;
  for (const field of decoded.fields) colliders.fields.push(field);
  // The solver's particle list and a feature object of its own (the multi-fluid check rewrites it).
  const multiFluid = { ...ctx.solver.multiFluid, features: { ...ctx.solver.multiFluid.features } };
  const solver = { ...ctx.solver, count: decoded.particles.length, entity: decoded.particles, multiFluid };
  const events = { ...ctx.events, emitters: Array.from(decoded.emitters), drains: Array.from(decoded.drains) };
  return {
    ...ctx,
    settings: savedLiveSettings(ctx, decoded),
    components,
    solver,
    materials,
    colliders,
    events,
    gpu: undefined,
  };
}

/**
 * Checks every value a restore of `decoded` would write, before anything changes: each entity of a kind
 * has the components of its kind; the materials, colliders (poses, shapes, field indices), emitters,
 * drains and every particle (position, velocity, material, lifetime, age, temperature, color) pass the
 * checks a step runs on values game code edits; the statistics are finite and the last step's ids are
 * saved entity ids. Throws {@link FluidError} naming the section, store, field and entity (`snapshot
 * section 'COMP': Position.x[12] is NaN; ...`). Call after `checkSnapshotFits` (the settings and limits).
 */
export function checkSnapshotContent(ctx: SimulationContext, decoded: DecodedSnapshot): void {
  checkMemberships(decoded);
  checkEventsAndStatistics(decoded);
  const view = snapshotView(ctx, decoded);
  try {
    checkComponents(view, true);
    checkEmittersAndDrains(view);
  } catch (error) {
    if (error instanceof FluidError) throw new FluidError(`snapshot section 'COMP': ${error.message}`);
    throw error;
  }
}
