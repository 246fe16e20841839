/**
 * The options of `new FluidSimulation(...)` checked and resolved into the flat {@link FluidSettings} (ranges
 * and defaults from the option schema, core/schema.ts; docs/ARCHITECTURE.md, "Options"): what the facade's
 * constructor reads before it creates anything, so a bad value throws with nothing created.
 */
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { FluidBackend, FluidSettings } from '../components';
import { checkKnownKeys, checkNumber, checkVector3, type Vector3Input, withDefault } from '../core/checks';
import { FluidError } from '../core/errors';
import {
  BACKEND_CHOICES,
  checkChoice,
  checkOption,
  KERNEL_RADIUS_RANGE,
  MIRROR_MODES,
  PROJECTION_OPTIONS,
  SIMULATION_OPTIONS,
  SOLVERS,
} from '../core/schema';
import { resolveDiffuseOptions } from './diffuse/settings';
import { type MpsSettings, resolveMpsSettings } from './mps/settings';
import {
  type FluidSimulationOptions,
  type MirrorMode,
  PROJECTION_OPTION_NAMES,
  type ProjectionOptions,
  SIMULATION_OPTION_NAMES,
} from './options';
import { defaultThreads } from './parallel/pool';
import { resolveSphSettings } from './sph/settings';

/** Checks `projection.freeSurface` (or the live setting), a boolean. */
export function checkFreeSurface(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new FluidError(`${name} is ${String(value)}; it must be true or false`);
  return value;
}

/** Resolves and checks the `projection` option into the flat `projection*` settings. */
function resolveProjectionOptions(
  options: ProjectionOptions | false | undefined,
): Pick<
  FluidSettings,
  | 'projection'
  | 'projectionTolerance'
  | 'projectionMaxIterations'
  | 'projectionDensityRelaxation'
  | 'projectionFreeSurface'
> {
  const rules = PROJECTION_OPTIONS;
  if (options === false) {
    return {
      projection: false,
      projectionTolerance: rules.tolerance.default,
      projectionMaxIterations: rules.maxIterations.default,
      projectionDensityRelaxation: rules.densityRelaxation.default,
      projectionFreeSurface: false,
    };
  }
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new FluidError(`projection is ${String(options)}; it must be an object of projection options or false`);
  }
  const o = options ?? {};
  checkKnownKeys('projection', o, PROJECTION_OPTION_NAMES);
  return {
    projection: true,
    projectionTolerance: checkOption(
      'projection.tolerance',
      rules.tolerance,
      withDefault(o.tolerance, rules.tolerance.default),
    ),
    projectionMaxIterations: checkOption(
      'projection.maxIterations',
      rules.maxIterations,
      withDefault(o.maxIterations, rules.maxIterations.default),
    ),
    projectionDensityRelaxation: checkOption(
      'projection.densityRelaxation',
      rules.densityRelaxation,
      withDefault(o.densityRelaxation, rules.densityRelaxation.default),
    ),
    projectionFreeSurface: checkFreeSurface('projection.freeSurface', o.freeSurface ?? true),
  };
}

/** What the constructor needs besides the settings. */
export interface ResolvedSimulationOptions {
  /** The resolved settings. */
  readonly settings: FluidSettings;
  /** The MPS solver's settings when `solver` is `'mps'`. */
  readonly mpsSettings: MpsSettings | undefined;
  /** When the WebGPU backend mirrors particles to the components. */
  readonly mirror: MirrorMode;
  /** The engine the options named, if any. */
  readonly engine: AbstractEngine | undefined;
}

/**
 * Checks every option of `new FluidSimulation(options)` in a fixed order and resolves the settings; throws
 * {@link FluidError} naming the first invalid option and its allowed range.
 */
export function resolveSimulationOptions(options: FluidSimulationOptions): ResolvedSimulationOptions {
  if (typeof options !== 'object' || options === null) throw new FluidError('options must be an object');
  checkKnownKeys('new FluidSimulation(options)', options, SIMULATION_OPTION_NAMES);
  const rules = SIMULATION_OPTIONS;
  /** A constant-default option of the schema, checked. */
  const option = (
    name: 'particleRadius' | 'capacity' | 'maxMaterials' | 'maxColliders' | 'maxEmitters' | 'timeStep' | 'substeps',
  ) => checkOption(name, rules[name], withDefault(options[name], rules[name].default));
  const particleRadius = option('particleRadius');
  const kernelRadius = checkNumber(
    'kernelRadius',
    withDefault(options.kernelRadius, KERNEL_RADIUS_RANGE.default * particleRadius),
    KERNEL_RADIUS_RANGE.min * particleRadius,
    KERNEL_RADIUS_RANGE.max * particleRadius,
  );
  const capacity = option('capacity');
  const maxMaterials = option('maxMaterials');
  const maxColliders = option('maxColliders');
  const maxEmitters = option('maxEmitters');
  const gravity = checkVector3('gravity', withDefault<Vector3Input>(options.gravity, [0, -9.81, 0]), rules.gravity.max);
  const timeStep = option('timeStep');
  const substeps = option('substeps');
  // One kernel radius per substep, at most the largest allowed speed (a tiny timeStep alone must not fail).
  const defaultMaxSpeed = Math.min(kernelRadius / (timeStep / substeps), rules.maxSpeed.max);
  const maxSpeed = checkOption('maxSpeed', rules.maxSpeed, withDefault(options.maxSpeed, defaultMaxSpeed));
  const requested = checkChoice('backend', BACKEND_CHOICES, withDefault<string>(options.backend, 'cpu'));
  const solver = checkChoice('solver', SOLVERS, withDefault<string>(options.solver, 'pbf'));
  const sphSettings = resolveSphSettings(options.sph, kernelRadius);
  // Checked before anything is created: a bad value throws here.
  const mpsSettings = solver === 'mps' ? resolveMpsSettings(withDefault(options.mps, {})) : undefined;
  const mirror = checkChoice('mirror', MIRROR_MODES, withDefault<string>(options.mirror, 'every-frame'));
  const engine = options.engine;
  const computeCapable = engine?.isWebGPU === true && engine.getCaps().supportComputeShaders === true;
  if (requested === 'webgpu' && !computeCapable) {
    throw new FluidError(
      `backend is 'webgpu' but engine is ${engine === undefined ? 'missing' : 'not a WebGPUEngine with compute shaders'}; pass a WebGPUEngine as engine, or use backend 'auto' or 'cpu'`,
    );
  }
  const diffuse = resolveDiffuseOptions(options.diffuse);
  const whiteWater = diffuse.diffuseCapacity > 0;
  if (whiteWater && solver === 'mps') {
    throw new FluidError(
      "diffuse.capacity is set but white water runs with solver 'pbf' or 'sph' only; remove diffuse",
    );
  }
  const backend: FluidBackend = requested === 'cpu' || !computeCapable ? 'cpu' : 'webgpu';
  const projection = resolveProjectionOptions(options.projection);
  const iterations = checkOption(
    'iterations',
    rules.iterations,
    withDefault(options.iterations, projection.projection ? 2 : 3),
  );
  // The threads serve the CPU backend's loops only; on WebGPU one thread keeps the solver's arrays unshared.
  const threads = checkOption(
    'threads',
    rules.threads,
    withDefault(options.threads, backend === 'cpu' ? defaultThreads() : 1),
  );
  const webAssembly = options.webAssembly ?? true;
  if (typeof webAssembly !== 'boolean') {
    throw new FluidError(`webAssembly is ${String(webAssembly)}; it must be true or false`);
  }
  const settings: FluidSettings = {
    particleRadius,
    kernelRadius,
    capacity,
    maxMaterials,
    maxColliders,
    maxEmitters,
    gravity,
    timeStep,
    substeps,
    iterations,
    maxSpeed,
    threads,
    webAssembly,
    backend,
    solver,
    ...projection,
    ...sphSettings,
    ...diffuse,
  };
  return { settings, mpsSettings, mirror, engine };
}
