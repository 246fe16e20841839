/**
 * Two-way coupling with Havok rigid bodies (CPU backend, Havok's wasm in Node): Havok integrates exactly
 * the impulses the bridge hands it, a body launched through a free blob of water in zero gravity keeps
 * the total momentum (Newton's third law), a box sunk into a pool raises the level by V / A, and a body
 * started overlapping the water pushes it out without an explosion. The floating boxes (Archimedes, frame
 * rates) are in coupling-float.test.ts.
 */
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FluidPlugin, type FluidSimulation } from '../src';
import { addBox, createPhysicsScene, fillPool, levelByCount, numberDensity } from './havokScene';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function physicsScene(framesPerSecond: number, gravity = -9.81) {
  const created = await createPhysicsScene(framesPerSecond, gravity);
  cleanups.push(() => created.engine.dispose());
  return created;
}

function fluidMomentum(simulation: FluidSimulation): [number, number, number] {
  const { Velocity } = simulation;
  const mass = simulation.components.FluidMaterial.particleMass;
  const material = simulation.components.Particle.material;
  const momentum: [number, number, number] = [0, 0, 0];
  for (const eid of simulation.particles()) {
    const m = mass[material[eid]];
    momentum[0] += m * Velocity.x[eid];
    momentum[1] += m * Velocity.y[eid];
    momentum[2] += m * Velocity.z[eid];
  }
  return momentum;
}

function hasNonFinite(simulation: FluidSimulation): boolean {
  const { Position, Velocity } = simulation;
  for (const eid of simulation.particles()) {
    if (!Number.isFinite(Position.x[eid] + Position.y[eid] + Position.z[eid])) return true;
    if (!Number.isFinite(Velocity.x[eid] + Velocity.y[eid] + Velocity.z[eid])) return true;
  }
  return false;
}

describe('Havok bridge', () => {
  it('Havok integrates exactly the linear and angular impulses handed to it, at 30 and 60 Hz', async () => {
    for (const framesPerSecond of [30, 60]) {
      const { scene } = await physicsScene(framesPerSecond, 0);
      const fluid = await FluidPlugin.create(scene, { particleRadius: 0.02, gravity: [0, 0, 0] });
      const size = [0.3, 0.2, 0.1] as const;
      const { aggregate } = addBox(scene, size, 500, [0, 1, 0]);
      // Havok's own mass and inertia (what it integrates with), checked against the box's.
      const properties = aggregate.body.getMassProperties();
      const mass = properties.mass as number;
      expect(mass).toBeCloseTo(500 * size[0] * size[1] * size[2], 6);
      const collider = await fluid.addRigidBody(aggregate);
      const coupling = fluid.simulation.components.BodyCoupling;
      coupling.impulseX[collider] = 0.6;
      coupling.impulseZ[collider] = -0.15;
      coupling.angularImpulseY[collider] = 0.004;
      // The plugin now steps the physics in pairs with the fluid (1/60 s each): one or two per frame.
      scene.render();
      expect(fluid.stepsLastFrame).toBe(60 / framesPerSecond);
      const velocity = aggregate.body.getLinearVelocity();
      const angular = aggregate.body.getAngularVelocity();
      // A box's inertia about y: m (w^2 + d^2) / 12.
      const inertia = (mass * (size[0] ** 2 + size[2] ** 2)) / 12;
      // Havok keeps the inverse mass and inertia in a compact form (1/3 kg^-1 becomes 0.33398): what it
      // integrates is within 0.5% of J / m and L / I, and nothing else (no time step, no damping) enters.
      expect(Math.abs(velocity.x - 0.6 / mass)).toBeLessThan(0.005 * (0.6 / mass));
      expect(Math.abs(velocity.z + 0.15 / mass)).toBeLessThan(0.005 * (0.15 / mass));
      expect(Math.abs(angular.y - 0.004 / inertia)).toBeLessThan(0.005 * (0.004 / inertia));
      // The impulses were taken: the accumulators are empty, nothing is applied twice.
      expect(coupling.impulseX[collider]).toBe(0);
      scene.render();
      expect(aggregate.body.getLinearVelocity().x).toBeCloseTo(velocity.x, 5);
      console.log(
        `${framesPerSecond} Hz: dv ${velocity.x.toFixed(5)} m/s for J/m ${(0.6 / mass).toFixed(5)}; ` +
          `omega ${angular.y.toFixed(4)} rad/s for L/I ${(0.004 / inertia).toFixed(4)}`,
      );
      fluid.dispose();
    }
  });

  it('refuses a scene without physics and a body that is not a physics body', async () => {
    const { scene } = await physicsScene(60);
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.02 });
    await expect(fluid.addRigidBody({} as never)).rejects.toThrow(/not a Babylon Physics V2/);
    const { aggregate } = addBox(scene, [0.1, 0.1, 0.1], 500, [0, 1, 0]);
    scene.disablePhysicsEngine();
    await expect(fluid.addRigidBody(aggregate)).rejects.toThrow(/no physics engine/);
  });
});

describe('fluid and body together', () => {
  it('a box thrown through a free blob of water in zero gravity: total momentum is conserved', async () => {
    const { scene } = await physicsScene(60, 0);
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.01, gravity: [0, 0, 0] });
    const simulation = fluid.simulation;
    // No viscosity or vorticity confinement: XSPH is not momentum-conserving between particles of
    // different volume, and confinement adds momentum by design.
    const water = simulation.addMaterial({ viscosity: 0, vorticity: 0 });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.2, 0.3], material: water });
    const { aggregate, mass } = addBox(scene, [0.1, 0.1, 0.1], 1000, [-0.12, 0.1, 0.15]);
    await fluid.addRigidBody(aggregate);
    aggregate.body.setLinearVelocity(new Vector3(1, 0, 0));
    const coupling = simulation.components.BodyCoupling;
    const collider = [...fluid.simulation.components.BodyCoupling.coupled.keys()].find(
      (id) => coupling.coupled[id] === 1,
    ) as number;
    const total = (): [number, number, number] => {
      const fluidPart = fluidMomentum(simulation);
      const body = aggregate.body.getLinearVelocity();
      // Impulses the fluid gave that Havok has not applied yet count with the body.
      return [
        fluidPart[0] + mass * body.x + coupling.impulseX[collider],
        fluidPart[1] + mass * body.y + coupling.impulseY[collider],
        fluidPart[2] + mass * body.z + coupling.impulseZ[collider],
      ];
    };
    const initial = total();
    let largestError = 0;
    let bodyLoss = 0;
    for (let frame = 0; frame < 45; frame++) {
      scene.render();
      const now = total();
      const error = Math.hypot(now[0] - initial[0], now[1] - initial[1], now[2] - initial[2]);
      largestError = Math.max(largestError, error);
      bodyLoss = Math.max(bodyLoss, mass * (1 - aggregate.body.getLinearVelocity().x));
    }
    expect(hasNonFinite(simulation)).toBe(false);
    // The body really handed momentum to the water (it slowed down by more than 20%)...
    expect(bodyLoss).toBeGreaterThan(0.2 * initial[0]);
    // ...and the total stayed within 2% of the initial momentum.
    expect(largestError).toBeLessThan(0.02 * initial[0]);
    console.log(
      `momentum: initial ${initial[0].toFixed(4)} kg m/s, body gave away up to ${bodyLoss.toFixed(4)}, ` +
        `largest drift of the total ${largestError.toExponential(2)} (${((100 * largestError) / initial[0]).toFixed(3)}%)`,
    );
  });

  it('a box twice as dense as water sinks to the floor and raises the mean level by V / A', async () => {
    const { scene } = await physicsScene(60);
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.01 });
    const width = 0.48;
    fillPool(scene, fluid.simulation, width, 0.2);
    // The level by volume above a plane over the box's top (at most 0.141 m once it rests on the floor):
    // the particles above it at the settled pool's packing (measured below it), over the pool's area.
    const area = width * width;
    const plane = 0.16;
    const density = numberDensity(fluid.simulation, 0.04, plane, area);
    const before = levelByCount(fluid.simulation, plane, density, area);
    const size = [0.2, 0.12, 0.2] as const;
    const { mesh, aggregate } = addBox(scene, size, 2000, [width / 2, 0.3, width / 2]);
    await fluid.addRigidBody(aggregate);
    for (let frame = 0; frame < 180; frame++) scene.render();
    let rise = 0;
    let bottom = 0;
    const frames = 60;
    for (let frame = 0; frame < frames; frame++) {
      scene.render();
      rise += (levelByCount(fluid.simulation, plane, density, area) - before) / frames;
      bottom += (mesh.position.y - size[1] / 2) / frames;
    }
    const expected = (size[0] * size[1] * size[2]) / (width * width);
    console.log(
      `sinking box: bottom at ${(1000 * bottom).toFixed(1)} mm, level rise ${(1000 * rise).toFixed(2)} mm for V/A ${(1000 * expected).toFixed(2)} mm (${((100 * (rise - expected)) / expected).toFixed(1)}%), speed ${aggregate.body.getLinearVelocity().length().toFixed(4)} m/s`,
    );
    expect(hasNonFinite(fluid.simulation)).toBe(false);
    // On the floor: a flat box may keep one layer of particles under it (they have nowhere to go sideways
    // once it rests on them), so its bottom is within one particle diameter (2 cm) plus 1 mm of the floor,
    // and it is at rest.
    expect(bottom).toBeLessThan(2 * fluid.simulation.settings.particleRadius + 0.001);
    expect(aggregate.body.getLinearVelocity().length()).toBeLessThan(0.02);
    expect(Math.abs(rise - expected)).toBeLessThan(0.1 * expected);
  });

  it('a body created overlapping the water pushes it out without NaN or explosion', async () => {
    const { scene } = await physicsScene(60);
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.01 });
    const width = 0.48;
    fillPool(scene, fluid.simulation, width, 0.2);
    // Half of the box is under water from the start: about 1,150 particles are inside it.
    const { mesh, aggregate, mass } = addBox(scene, [0.2, 0.12, 0.2], 500, [width / 2, 0.2, width / 2]);
    await fluid.addRigidBody(aggregate);
    let fastest = 0;
    let fastestBody = 0;
    let highestBody = 0;
    for (let frame = 0; frame < 120; frame++) {
      scene.render();
      const { Velocity } = fluid.simulation;
      for (const eid of fluid.simulation.particles()) {
        fastest = Math.max(fastest, Math.hypot(Velocity.x[eid], Velocity.y[eid], Velocity.z[eid]));
      }
      fastestBody = Math.max(fastestBody, aggregate.body.getLinearVelocity().length());
      highestBody = Math.max(highestBody, mesh.position.y);
    }
    expect(hasNonFinite(fluid.simulation)).toBe(false);
    // The displaced water has to go somewhere: squeezed against the box, it pushes the box up and splashes.
    // But nothing blows up: particles stay near the solver's speed limit and below twice the pool's depth,
    // the box never jumps clear of the water (its center stays below the surface plus half its height), and
    // after 2 s water and box are calm again.
    const { Position, Velocity } = fluid.simulation;
    let meanSpeed = 0;
    let highest = 0;
    for (const eid of fluid.simulation.particles()) {
      meanSpeed += Math.hypot(Velocity.x[eid], Velocity.y[eid], Velocity.z[eid]) / fluid.simulation.particleCount;
      highest = Math.max(highest, Position.y[eid]);
    }
    // The solver clamps speeds to maxSpeed before the constraint solve; its corrections may add a little.
    expect(fastest).toBeLessThan(1.25 * fluid.simulation.settings.maxSpeed);
    expect(highestBody).toBeLessThan(0.2 + 0.06);
    expect(highest).toBeLessThan(0.4);
    // The default 2 x 3 iterations leave a jitter of about 0.08 m/s in any settled pool (physics.test.ts).
    expect(meanSpeed).toBeLessThan(0.15);
    expect(aggregate.body.getLinearVelocity().length()).toBeLessThan(0.1);
    console.log(
      `overlapping start: fastest particle ${fastest.toFixed(3)} m/s (limit ${fluid.simulation.settings.maxSpeed.toFixed(2)}), ` +
        `fastest body ${fastestBody.toFixed(3)} m/s (mass ${mass.toFixed(2)} kg), body center at most ${highestBody.toFixed(3)} m, after 2 s: highest particle ${highest.toFixed(3)} m, mean speed ${meanSpeed.toFixed(4)} m/s`,
    );
  });
});
