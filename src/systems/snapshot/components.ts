/**
 * The snapshot's component values written into component stores: the world's (snapshot/apply.ts, on
 * restore) or a scratch copy of them that the content checks read (snapshot/content.ts), so both see the
 * same values, stored with the same precision.
 */

import type { FluidComponents } from '../../components';
import type { SimulationContext } from '../context';
import { type DecodedSnapshot, type StoreArray, storeFields, writtenEntities } from './format';

/** The entities of a kind (materials, colliders, emitters, drains), which every store writes. */
export function kindEntities(decoded: DecodedSnapshot): Set<number> {
  const kinds = new Set<number>();
  for (const list of [decoded.materials, decoded.colliders, decoded.emitters, decoded.drains]) {
    for (const eid of list) kinds.add(eid);
  }
  return kinds;
}

/**
 * Writes the snapshot's component values into `components` (stores of the world's layout): each saved
 * store's values for its written entities; a store the snapshot does not have gives the entities of every
 * kind the store's initial value (that of entity 0, which bitecs never hands out); a field the snapshot
 * does not have, its initial value. Particles of a snapshot written before `Temperature` and `Color`
 * existed get their material's initial values, as `createParticle` gives them. Memberships (bitecs
 * components) are the caller's.
 */
export function writeComponentValues(components: FluidComponents, decoded: DecodedSnapshot): void {
  const kinds = kindEntities(decoded);
  const kindList = Uint32Array.from(kinds);
  const saved = new Map(decoded.stores.map((store) => [store.name, store]));
  const record = components as unknown as Record<string, object>;
  for (const name of Object.keys(record)) {
    const decodedStore = saved.get(name);
    const entities =
      decodedStore === undefined ? kindList : writtenEntities(decoded.alive, decodedStore.members, kinds);
    const values = new Map(decodedStore?.fields.map((field) => [field.key, field.values]));
    for (const [key, array] of storeFields(record[name])) {
      const source = values.get(key);
      if (source === undefined) {
        const initial = array[0];
        for (let k = 0; k < entities.length; k++) array[entities[k]] = initial;
      } else {
        for (let k = 0; k < entities.length; k++) array[entities[k]] = source[k];
      }
    }
  }
  const { Temperature, Color, FluidMaterial, Particle } = components;
  for (const eid of decoded.particles) {
    const material = Particle.material[eid];
    if (!saved.has('Temperature')) Temperature[eid] = FluidMaterial.initialTemperature[material];
    if (!saved.has('Color')) {
      Color.red[eid] = FluidMaterial.colorRed[material];
      Color.green[eid] = FluidMaterial.colorGreen[material];
      Color.blue[eid] = FluidMaterial.colorBlue[material];
    }
  }
}

/** A zeroed array like `array` (same element type) of `length` entries, entry 0 holding `array[0]`. */
function scratchArray(array: StoreArray, length: number): StoreArray {
  const copy = new (array.constructor as new (length: number) => StoreArray)(length);
  copy[0] = array[0];
  return copy;
}

/**
 * Scratch component stores of the world's layout for entity ids below `length`: the same stores and
 * fields with the same element types (so a value is stored as the world would store it), each entry 0
 * holding the store's initial value. Allocated per call: for a restore, never per step.
 */
export function scratchComponents(ctx: SimulationContext, length: number): FluidComponents {
  const record = ctx.components as unknown as Record<string, object>;
  const result: Record<string, unknown> = {};
  for (const name of Object.keys(record)) {
    const fields = storeFields(record[name]);
    if (fields.length === 1 && fields[0][0] === '') {
      result[name] = scratchArray(fields[0][1], length);
      continue;
    }
    const store: Record<string, StoreArray> = {};
    for (const [key, array] of fields) store[key] = scratchArray(array, length);
    result[name] = store;
  }
  return result as unknown as FluidComponents;
}
