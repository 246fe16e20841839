import { describe, expect, it } from 'vitest';
import { neighbourSystem } from '../src/systems/neighbours/cpu';
import { contextWithParticles, random } from './helpers';

/** Neighbour pairs as "a-b" strings of entity ids (a < b), from the solver's half lists. */
function pairsFromLists(positions: number[]): { pairs: Set<string>; counts: Map<number, number> } {
  const context = contextWithParticles(positions);
  neighbourSystem(context);
  const s = context.solver;
  const pairs = new Set<string>();
  const counts = new Map<number, number>();
  for (let i = 0; i < s.count; i++) {
    counts.set(s.entity[i], s.neighbourCount[i]);
    for (let k = s.neighbourStart[i]; k < s.neighbourStart[i + 1]; k++) {
      const a = s.entity[i];
      const b = s.entity[s.neighbours[k]];
      const key = a < b ? `${a}-${b}` : `${b}-${a}`;
      expect(pairs.has(key)).toBe(false); // every pair exactly once
      pairs.add(key);
    }
    // The sort keeps the solver arrays consistent with the entity order.
    const eid = s.entity[i];
    expect(s.predictedX[i]).toBe(positions[3 * (eid - 1)]);
  }
  return { pairs, counts };
}

function bruteForcePairs(positions: number[], h: number): Set<string> {
  const n = positions.length / 3;
  const pairs = new Set<string>();
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const dx = positions[3 * i] - positions[3 * j];
      const dy = positions[3 * i + 1] - positions[3 * j + 1];
      const dz = positions[3 * i + 2] - positions[3 * j + 2];
      if (dx * dx + dy * dy + dz * dz < h * h) pairs.add(`${i + 1}-${j + 1}`);
    }
  return pairs;
}

function cluster(rand: () => number, count: number, center: number[], size: number, out: number[]): void {
  for (let k = 0; k < count; k++) {
    out.push(center[0] + (rand() - 0.5) * size, center[1] + (rand() - 0.5) * size, center[2] + (rand() - 0.5) * size);
  }
}

describe('neighbour search (hash grid, counting sort, half lists)', () => {
  const h = 0.1; // contextWithParticles uses h = 4 r with r = 0.025

  it('equals brute force on a random set around the origin (negative coordinates, dense grid mode)', () => {
    const rand = random(1);
    const positions: number[] = [];
    cluster(rand, 1500, [0, 0, 0], 0.8, positions);
    const { pairs } = pairsFromLists(positions);
    expect(pairs).toEqual(bruteForcePairs(positions, h));
    expect(pairs.size).toBeGreaterThan(1000);
  });

  it('equals brute force on far-apart clusters (hashed mode, coordinates up to 1e5 m)', () => {
    const rand = random(2);
    const positions: number[] = [];
    cluster(rand, 400, [-1e5, 3, 2.5e4], 0.5, positions);
    cluster(rand, 400, [7e4, -9e4, -3], 0.5, positions);
    cluster(rand, 400, [-0.05, -0.05, -0.05], 0.4, positions);
    const { pairs } = pairsFromLists(positions);
    expect(pairs).toEqual(bruteForcePairs(positions, h));
    expect(pairs.size).toBeGreaterThan(1000);
  });

  it('counts each particle once per neighbour, both sides of a pair', () => {
    const rand = random(3);
    const positions: number[] = [];
    cluster(rand, 600, [-2, 5, -7], 0.5, positions);
    const { pairs, counts } = pairsFromLists(positions);
    const expected = new Map<number, number>();
    for (const key of pairs) {
      const [a, b] = key.split('-').map(Number);
      expected.set(a, (expected.get(a) ?? 0) + 1);
      expected.set(b, (expected.get(b) ?? 0) + 1);
    }
    for (const [eid, count] of counts) expect(count).toBe(expected.get(eid) ?? 0);
  });

  it('handles particles exactly on cell boundaries and coincident particles', () => {
    const positions: number[] = [];
    for (let i = -3; i <= 3; i++) for (let j = -3; j <= 3; j++) positions.push(i * 0.1, j * 0.05, 0);
    positions.push(0, 0, 0, 0, 0, 0);
    const { pairs } = pairsFromLists(positions);
    expect(pairs).toEqual(bruteForcePairs(positions, h));
  });
});
