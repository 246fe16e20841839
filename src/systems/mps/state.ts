/**
 * The MPS solver's state of a simulation context (`SimulationContext.mps`, its data in data.ts), created with
 * the default settings on first use, its settings, and their snapshot form.
 */

import type { SimulationContext } from '../context';
import { createMpsState, type MpsState, type MpsWarmStart } from './data';
import { MPS_SETTING_NAMES, type MpsSettings, mpsSnapshotKey, resolveMpsSettings } from './settings';

/** The MPS state of a context, created with the default settings on first use. */
export function mpsState(ctx: SimulationContext): MpsState {
  ctx.mps ??= createMpsState(
    {
      capacity: ctx.settings.capacity,
      entityCapacity: ctx.entityCapacity,
      particleRadius: ctx.settings.particleRadius,
      kernelRadius: ctx.settings.kernelRadius,
      pairCapacity: Math.max(1024, 2 * ctx.solver.neighbours.length),
      tableSize: ctx.solver.tableMask + 1,
    },
    resolveMpsSettings(),
  );
  return ctx.mps;
}

/**
 * Sets the MPS settings of a context from partial options (missing values: {@link MPS_DEFAULTS}). Throws
 * {@link FluidError} for a value outside its range, changing nothing.
 */
export function configureMps(ctx: SimulationContext, options: Partial<MpsSettings> = {}): MpsSettings {
  const resolved = resolveMpsSettings(options);
  const settings = mpsState(ctx).settings;
  Object.assign(settings, resolved);
  return settings;
}

/** The MPS settings of a context as snapshot entries (key from {@link mpsSnapshotKey}, value). */
export function mpsSnapshotSettings(ctx: SimulationContext): [string, number][] {
  const settings = mpsState(ctx).settings;
  return MPS_SETTING_NAMES.map((name): [string, number] => [mpsSnapshotKey(name), settings[name]]);
}

/**
 * The MPS options saved in a snapshot's settings, read by `setting(key)`: the numbers found under the
 * {@link mpsSnapshotKey} keys (a missing key is left out, so its default applies).
 */
export function mpsOptionsFromSnapshot(setting: (key: string) => unknown): Partial<MpsSettings> {
  const options: Partial<MpsSettings> = {};
  for (const name of MPS_SETTING_NAMES) {
    const value = setting(mpsSnapshotKey(name));
    if (typeof value === 'number') options[name] = value;
  }
  return options;
}

/**
 * The pressures the next solve starts from (`MpsState.pressureOfEntity`), for every entity id whose value
 * is not 0: live particles, and freed ids whose last value a particle created with that id would start from.
 */
export function mpsWarmStart(ctx: SimulationContext): MpsWarmStart {
  const pressureOfEntity = mpsState(ctx).pressureOfEntity;
  let count = 0;
  for (let eid = 0; eid < pressureOfEntity.length; eid++) if (pressureOfEntity[eid] !== 0) count++;
  const ids = new Uint32Array(count);
  const pressures = new Float64Array(count);
  count = 0;
  for (let eid = 0; eid < pressureOfEntity.length; eid++) {
    if (pressureOfEntity[eid] === 0) continue;
    ids[count] = eid;
    pressures[count++] = pressureOfEntity[eid];
  }
  return { ids, pressures };
}

/**
 * Restores a context's MPS settings (already resolved and checked) and warm-start pressures (ids below the
 * context's entity capacity; every other id starts from 0), as saved by {@link mpsSnapshotSettings} and
 * {@link mpsWarmStart}.
 */
export function restoreMpsState(ctx: SimulationContext, settings: MpsSettings, warmStart: MpsWarmStart): void {
  const state = mpsState(ctx);
  Object.assign(state.settings, settings);
  state.pressureOfEntity.fill(0);
  const { ids, pressures } = warmStart;
  for (let k = 0; k < ids.length; k++) state.pressureOfEntity[ids[k]] = pressures[k];
}
