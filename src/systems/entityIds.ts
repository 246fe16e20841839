/**
 * Entity ids with delayed reuse: every entity of a simulation (particle, material, collider, emitter, drain) is
 * created and removed here, so an id that game code still holds after a removal does not name another entity
 * at once.
 *
 * bitecs reuses the id freed last first. Here a new entity gets a fresh id (the highest id so far plus one) as
 * long as ids below the entity capacity remain; only when all of them have been handed out is a freed id
 * reused, the one freed longest ago first. So an id is reused only after every id below the entity capacity
 * has been handed out at least once, and then only after every id freed before it.
 *
 * The order is kept by steering bitecs's entity index before `addEntity`: the id chosen is placed at
 * `dense[aliveCount]`, the slot `addEntity` takes its recycled id from (a fresh id is written there, the dead id
 * it displaces moves to the end of `dense`; a reused id swaps places with it). A ring of the freed ids, oldest
 * first, allocated once with the entity capacity, holds the reuse order. Each creation and removal is O(1) and
 * allocates nothing (beyond `dense` growing up to the capacity once).
 *
 * `dense` holds ids 1 to `maxId` once each and `sparse[id]` is the place of each in `dense` (restoreFreedIds
 * sets it for the freed ids after a restore). The ring holds the ids freed here; game code that adds or removes
 * entities of the world with bitecs's own calls is tolerated: an id it takes back is dropped from the ring
 * when its turn comes, an id it frees is reused after the queued ones (a snapshot lists it after them, and a
 * restore queues every freed id in the listed order).
 */
import { addEntity, type createEntityIndex, entityExists, removeEntity, type World } from 'bitecs';
import { FluidCapacityError, FluidError } from '../core/errors';

/** The bitecs entity index a simulation's world is created with (ids alive and ids freed). */
export type EntityIndex = ReturnType<typeof createEntityIndex>;

/** The entity index of a world and the order in which its freed ids will be reused. */
export interface EntityIds {
  /** The entity index the world was created with. */
  readonly index: EntityIndex;
  /** Every id handed out is below this bound (ids start at 1): the simulation's entity capacity. */
  readonly capacity: number;
  /** Ring of the freed ids, the one freed longest ago at `head`; `capacity` entries, each id at most once. */
  readonly freed: Uint32Array;
  /** By id: 1 while the id is in `freed`. */
  readonly queued: Uint8Array;
  /** Position in `freed` of the id reused next. */
  head: number;
  /** Number of ids in the ring. */
  freedCount: number;
}

/** What creating and removing an entity needs: the world and its {@link EntityIds} (a simulation context). */
export interface EntityOwner {
  /** The world whose entities are created and removed. */
  readonly world: World;
  /** The world's entity index and reuse order. */
  readonly entityIds: EntityIds;
}

/** Creates the reuse order of the world created with `index`, whose ids stay below `capacity`; none freed. */
export function createEntityIds(index: EntityIndex, capacity: number): EntityIds {
  return {
    index,
    capacity,
    freed: new Uint32Array(capacity),
    queued: new Uint8Array(capacity),
    head: 0,
    freedCount: 0,
  };
}

/** True if `eid` is a freed id of `index` (handed out once, not alive now). */
function isFreed(index: EntityIndex, eid: number): boolean {
  const place = index.sparse[eid];
  return place !== undefined && place >= index.aliveCount && place < index.dense.length && index.dense[place] === eid;
}

/**
 * The id freed longest ago, taken off the ring, or 0 if none. Ids game code took back with its own `addEntity`
 * on the world are dropped on the way.
 */
function takeOldestFreed(ids: EntityIds): number {
  while (ids.freedCount > 0) {
    const eid = ids.freed[ids.head];
    ids.head = ids.head + 1 === ids.capacity ? 0 : ids.head + 1;
    ids.freedCount--;
    ids.queued[eid] = 0;
    if (isFreed(ids.index, eid)) return eid;
  }
  return 0;
}

/**
 * Adds an entity to the world of `owner` and returns its id: a fresh id while ids below the entity capacity
 * remain, else the id freed longest ago. Throws {@link FluidCapacityError} (and adds nothing) when every id
 * below the capacity is alive.
 */
export function createEntity(owner: EntityOwner): number {
  const ids = owner.entityIds;
  const index = ids.index;
  const slot = index.aliveCount;
  let chosen: number;
  if (index.maxId + 1 < ids.capacity) {
    chosen = index.maxId + 1;
    if (slot < index.dense.length) {
      // bitecs would recycle dense[slot]: move that freed id to the end and put the fresh id in its place.
      const displaced = index.dense[slot];
      index.sparse[displaced] = index.dense.length;
      index.dense.push(displaced);
      index.dense[slot] = chosen;
      index.sparse[chosen] = slot;
      index.maxId = chosen;
    }
    // Otherwise no id is freed and bitecs hands out maxId + 1 itself.
  } else {
    chosen = takeOldestFreed(ids);
    if (chosen !== 0) {
      // Swap the chosen id into dense[slot], where bitecs takes its recycled id from.
      const place = index.sparse[chosen];
      const displaced = index.dense[slot];
      index.dense[place] = displaced;
      index.sparse[displaced] = place;
      index.dense[slot] = chosen;
      index.sparse[chosen] = slot;
    } else if (slot < index.dense.length) {
      // Only ids game code freed with its own removeEntity are left: bitecs's next one.
      chosen = index.dense[slot];
    } else {
      throw new FluidCapacityError(`every entity id below the entity capacity ${ids.capacity} is in use`);
    }
  }
  const eid = addEntity(owner.world);
  if (eid !== chosen) throw new FluidError(`entity ids: bitecs handed out ${eid} instead of ${chosen}`);
  return eid;
}

/**
 * Removes the entity `eid` from the world of `owner` (bitecs clears its components and queries) and queues its
 * id for reuse after every id freed before it. Does nothing if `eid` is not alive.
 */
export function destroyEntity(owner: EntityOwner, eid: number): void {
  if (!entityExists(owner.world, eid)) return;
  removeEntity(owner.world, eid);
  const ids = owner.entityIds;
  // An id still queued (game code's addEntity took it back since) keeps its place in the queue.
  if (eid >= ids.capacity || ids.queued[eid] === 1) return;
  let tail = ids.head + ids.freedCount;
  if (tail >= ids.capacity) tail -= ids.capacity;
  ids.freed[tail] = eid;
  ids.queued[eid] = 1;
  ids.freedCount++;
}

/**
 * Every freed id of the entity index, in the order they will be reused once the id space is used up, the next
 * one first (a new array; for snapshots): the queue, then ids game code freed with its own removeEntity.
 */
export function freedIdsInReuseOrder(ids: EntityIds): Uint32Array {
  const index = ids.index;
  const result = new Uint32Array(index.dense.length - index.aliveCount);
  let count = 0;
  for (let k = 0; k < ids.freedCount; k++) {
    let place = ids.head + k;
    if (place >= ids.capacity) place -= ids.capacity;
    const eid = ids.freed[place];
    if (isFreed(index, eid)) result[count++] = eid;
  }
  for (let place = index.aliveCount; place < index.dense.length; place++) {
    const eid = index.dense[place];
    if (eid >= ids.capacity || ids.queued[eid] === 0) result[count++] = eid;
  }
  return result;
}

/**
 * Sets the reuse order to `freedInOrder` (the next one to be reused first) after a restore has rebuilt the
 * entity index with exactly those ids freed, at the end of `dense` after the live ones: records their places
 * in `sparse` and queues them in that order.
 */
export function restoreFreedIds(ids: EntityIds, freedInOrder: ArrayLike<number>): void {
  const index = ids.index;
  if (freedInOrder.length >= ids.capacity || index.aliveCount + freedInOrder.length !== index.dense.length) {
    throw new FluidError(
      `entity ids: ${freedInOrder.length} freed ids do not fit the entity index (${index.dense.length} ids, ${index.aliveCount} alive)`,
    );
  }
  ids.queued.fill(0);
  for (let k = 0; k < freedInOrder.length; k++) {
    const eid = freedInOrder[k];
    if (eid < 1 || eid >= ids.capacity || ids.queued[eid] === 1 || index.dense[index.aliveCount + k] !== eid) {
      throw new FluidError(`entity ids: freed id ${eid} is out of range, listed twice or not in the entity index`);
    }
    ids.freed[k] = eid;
    ids.queued[eid] = 1;
    index.sparse[eid] = index.aliveCount + k;
  }
  ids.head = 0;
  ids.freedCount = freedInOrder.length;
}
