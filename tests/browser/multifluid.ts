/**
 * The WebGPU backend refuses the fluid-fluid interaction features it does not implement yet (tension,
 * diffusion, temperature-dependent rest density, the number-density constraint, collider heat) with a
 * FluidError, at `addMaterial` / `addCollider` and at `step` after a component edit; a scene with two rest
 * densities alone still steps.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';

/** Result of the `multiFluidRefusal` scenario: each refusal's error as `Name: message` ('' if none). */
export interface MultiFluidRefusalResult {
  /** `addMaterial({ interfaceTension: 1 })`. */
  addMaterial: string;
  /** `addMaterial({ numberDensity: true })`. */
  numberDensity: string;
  /** `addCollider({ ..., heatTransfer: 1 })`. */
  addCollider: string;
  /** `step()` after `FluidMaterial.diffusivity` was set to 0.001 by game code. */
  stepAfterEdit: string;
  /** Steps of a water and oil (rest density 800) scene that ran without error. */
  plainSteps: number;
  /** Whether the snapshot after the three refused calls equals the one before them, byte for byte. */
  refusalsChangedNothing: boolean;
}

function errorOf(action: () => void): string {
  try {
    action();
    return '';
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

/** Runs the refusals on a WebGPU simulation. */
export async function multiFluidRefusal(engine: WebGPUEngine): Promise<MultiFluidRefusalResult> {
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 1024, backend: 'webgpu', engine });
  await simulation.ready();
  const water = simulation.addMaterial({});
  const oil = simulation.addMaterial({ restDensity: 800 });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.4, 0.6, 0.2], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water });
  simulation.spawnBlock({ min: [0.2, 0, 0], max: [0.4, 0.2, 0.2], material: oil });
  const before = simulation.snapshot();
  const addMaterial = errorOf(() => simulation.addMaterial({ interfaceTension: 1 }));
  const numberDensity = errorOf(() => simulation.addMaterial({ numberDensity: true }));
  const addCollider = errorOf(() =>
    simulation.addCollider({ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], heatTransfer: 1 }),
  );
  const after = simulation.snapshot();
  const refusalsChangedNothing = before.length === after.length && before.every((byte, k) => byte === after[k]);
  let plainSteps = 0;
  for (let frame = 0; frame < 3; frame++) {
    simulation.step();
    plainSteps++;
  }
  simulation.components.FluidMaterial.diffusivity[water] = 0.001;
  const stepAfterEdit = errorOf(() => simulation.step());
  simulation.dispose();
  return { addMaterial, numberDensity, addCollider, stepAfterEdit, plainSteps, refusalsChangedNothing };
}
