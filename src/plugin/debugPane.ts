/**
 * `FluidDebugPane`: a small DOM pane over a {@link FluidPlugin}'s canvas for tuning and watching the fluid while
 * a game runs. It shows the materials with sliders that write their `FluidMaterial` components live, the
 * solver's settings, the particle count, the step's timings (`stats.stepMilliseconds` and
 * `stats.systemMilliseconds`), the backend, and switches the render mode, the coloring, pause and time scale.
 *
 * Plain DOM in a shadow root (no Babylon GUI, no Inspector, no style sheet of the page touched or read). It
 * starts collapsed into one small button in a corner of the canvas and takes only its own input: pointer,
 * wheel and key events on it stop there, and collapsed it covers nothing of the canvas but that button.
 * Nothing is created on the GPU; the DOM is updated every few frames, and only while expanded.
 */

import type { Observer } from '@babylonjs/core/Misc/observable.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { FluidError } from '../core/errors';
import {
  MATERIAL_OPTIONS,
  MPS_OPTIONS,
  type OptionRule,
  PLUGIN_OPTIONS,
  SIMULATION_OPTIONS,
  SPH_OPTIONS,
} from '../core/schema';
import type { FluidColorBy } from './colorMaps';
import type { FluidPlugin } from './fluidPlugin';
import { type FluidRenderMode, supportsFluidRenderer } from './renderers';

/** The corner of the canvas the pane sits in. */
export type FluidDebugPaneCorner = 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';

/** Options of {@link FluidDebugPane}. */
export interface FluidDebugPaneOptions {
  /** Corner of the canvas (default `'top-right'`). */
  corner?: FluidDebugPaneCorner;
  /** Starts expanded (default false: collapsed into its button). */
  expanded?: boolean;
  /** Rendered frames between two updates of the figures while expanded (integer >= 1, default 10). */
  refreshInterval?: number;
  /** Names shown for material entity ids (default `material <id>`), e.g. `{ [water]: 'water' }`. */
  materialNames?: Readonly<Record<number, string>>;
  /**
   * Element the pane is added to (default the canvas's parent element, else `document.body`). The pane is
   * placed over the canvas's corner whatever the element (fixed positioning from the canvas's bounds).
   */
  container?: HTMLElement;
}

/** One slider: a live value with its range, written back on every move. */
interface Knob {
  /** Caption. */
  readonly label: string;
  /** Unit after the value (`''` for none). */
  readonly unit: string;
  readonly minimum: number;
  readonly maximum: number;
  readonly step: number;
  /** Digits after the decimal point in the readout. */
  readonly digits: number;
  read(): number;
  write(value: number): void;
}

/** A slider in the DOM with its knob. */
interface KnobControl {
  readonly knob: Knob;
  readonly input: HTMLInputElement;
  readonly value: HTMLSpanElement;
}

/** One row of the step timings. */
interface TimingRow {
  readonly row: HTMLDivElement;
  readonly milliseconds: HTMLSpanElement;
  readonly bar: HTMLDivElement;
}

/** Render modes in the order of the selector (the CPU-extracted surface views last). */
const RENDER_MODES: readonly FluidRenderMode[] = ['fluid', 'spheres', 'points', 'none', 'surface', 'splats'];
const COLORINGS: readonly FluidColorBy[] = ['material', 'speed', 'density', 'color'];
/** Events that stop at the pane, so that the scene and the page's own listeners never see them. */
const STOPPED_EVENTS: readonly string[] = (
  'pointerdown pointerup pointermove pointercancel wheel click dblclick contextmenu ' +
  'touchstart touchmove touchend keydown keyup keypress'
).split(' ');
/** Gap between the pane and the canvas's edges (CSS pixels). */
const MARGIN = 8;
/** Rescans of the material entities while expanded, in refreshes (materials are rarely added later). */
const MATERIAL_SCAN_REFRESHES = 12;

const STYLE = `
:host { all: initial; display: block; position: fixed; z-index: 1000; font: 12px/1.35 system-ui, sans-serif; color: #dde6ef; }
.toggle { display: block; margin: 0; padding: 4px 10px; border: 1px solid #3d4c5e; border-radius: 4px;
  background: rgba(16, 21, 28, 0.78); color: #dde6ef; font: inherit; cursor: pointer; }
.toggle:hover { background: rgba(30, 42, 56, 0.9); }
.body { width: 250px; margin-top: 4px; padding: 6px 8px 8px; overflow-y: auto; box-sizing: border-box;
  background: rgba(16, 21, 28, 0.82); border: 1px solid #3d4c5e; border-radius: 4px; }
.body[hidden] { display: none; }
h3 { margin: 8px 0 3px; font-size: 11px; font-weight: 600; letter-spacing: 0.04em; text-transform: uppercase;
  color: #9fb4c8; }
h3:first-child { margin-top: 0; }
.row { display: flex; justify-content: space-between; gap: 8px; }
.value { color: #ffffff; font-variant-numeric: tabular-nums; }
.knob { margin: 2px 0 4px; }
.knob input { width: 100%; margin: 1px 0 0; accent-color: #7fc4ff; }
select { font: inherit; background: #2a3a4c; color: #dde6ef; border: 1px solid #3d4c5e; border-radius: 3px; }
.material { display: flex; align-items: center; gap: 6px; margin: 6px 0 2px; font-weight: 600; }
.swatch { width: 10px; height: 10px; border-radius: 2px; border: 1px solid #00000055; }
.timing { position: relative; display: flex; justify-content: space-between; padding: 0 2px; }
.timing .bar { position: absolute; left: 0; top: 1px; bottom: 1px; background: #2f5578; border-radius: 2px; z-index: -1; }
.timings { position: relative; z-index: 0; }
.note { color: #9fb4c8; font-size: 11px; }
`;

/**
 * A debug pane for a {@link FluidPlugin}, over a corner of its canvas:
 *
 * ```ts
 * const fluid = await FluidPlugin.create(scene, { particleRadius: 0.02 });
 * const water = fluid.simulation.addMaterial({});
 * const pane = new FluidDebugPane(fluid, { materialNames: { [water]: 'water' } });
 * ```
 *
 * Collapsed by default into a small button; a click expands it. It shows every material of the simulation
 * with sliders that write the entity's `FluidMaterial` components (acting on the next step, on both
 * backends), the solver's live settings, the particle count, fps, the last step's time and each system's
 * share of it (on the WebGPU backend the CPU time to record the step's passes), the backend and the render
 * mode, coloring, pause and time scale (switchable). The backend is shown, not switched: it is chosen when
 * the plugin is created.
 *
 * Input: pointer, wheel, touch and key events on the pane stop there (`stopPropagation`), so a click on the
 * pane never reaches Babylon or the page's listeners, and a click anywhere else on the canvas reaches Babylon
 * as before; collapsed, the pane is only its button. Controls give up the focus after a mouse click, so the
 * game's keys work again at once.
 *
 * Disposed with the plugin (found at the next rendered frame) or its scene, or by {@link FluidDebugPane.dispose}.
 * Needs a browser DOM: throws {@link FluidError} without `document` (Node) or for a disposed plugin.
 */
export class FluidDebugPane {
  /** The plugin shown. */
  readonly plugin: FluidPlugin;
  /** The pane's host element (its content lives in an open shadow root). */
  readonly element: HTMLDivElement;

  private readonly shadow: ShadowRoot;
  private readonly toggleButton: HTMLButtonElement;
  private readonly body: HTMLDivElement;
  private readonly canvas: HTMLCanvasElement | null;
  private readonly corner: FluidDebugPaneCorner;
  private readonly refreshInterval: number;
  private readonly materialNames: Readonly<Record<number, string>>;
  private readonly scene: Scene;
  private readonly afterRenderObserver: Observer<Scene>;
  private readonly sceneDisposeObserver: Observer<Scene>;
  private readonly stopEvent = (event: Event): void => event.stopPropagation();

  private readonly figures: Record<
    'fps' | 'particles' | 'step' | 'stepsPerFrame' | 'dropped' | 'backend' | 'solver',
    HTMLSpanElement
  >;
  private readonly renderModeSelect: HTMLSelectElement;
  private readonly colorBySelect: HTMLSelectElement;
  private readonly pausedBox: HTMLInputElement;
  private readonly materialsSection: HTMLDivElement;
  private readonly timingsSection: HTMLDivElement;
  private readonly timingRows = new Map<string, TimingRow>();
  private knobs: KnobControl[] = [];
  private materialIds: number[] = [];
  private frame = 0;
  private refreshesSinceScan = 0;
  private isExpanded = false;
  private disposed = false;

  /** Creates the pane over the plugin's canvas (see the class comment); collapsed unless `options.expanded`. */
  constructor(plugin: FluidPlugin, options: FluidDebugPaneOptions = {}) {
    if (typeof document === 'undefined') {
      throw new FluidError('FluidDebugPane needs a browser DOM (document is undefined); it cannot run in Node');
    }
    if (plugin.isDisposed) throw new FluidError('FluidDebugPane: the plugin is disposed');
    const interval = options.refreshInterval ?? 10;
    if (!Number.isInteger(interval) || interval < 1) {
      throw new FluidError(`FluidDebugPane refreshInterval is ${String(interval)}; it must be an integer >= 1`);
    }
    this.plugin = plugin;
    this.scene = plugin.scene;
    this.corner = options.corner ?? 'top-right';
    if (!['top-left', 'top-right', 'bottom-left', 'bottom-right'].includes(this.corner)) {
      throw new FluidError(
        `FluidDebugPane corner is ${String(this.corner)}; it must be 'top-left', 'top-right', 'bottom-left' or 'bottom-right'`,
      );
    }
    this.refreshInterval = interval;
    this.materialNames = options.materialNames ?? {};
    const rendering = this.scene.getEngine().getRenderingCanvas();
    this.canvas = rendering instanceof HTMLCanvasElement ? rendering : null;

    this.element = document.createElement('div');
    this.element.className = 'fluid-debug-pane';
    this.element.dataset.fluidDebugPane = '';
    this.shadow = this.element.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = STYLE;
    this.shadow.append(style);
    for (const type of STOPPED_EVENTS) this.element.addEventListener(type, this.stopEvent, { passive: true });

    this.toggleButton = this.create('button', 'toggle');
    this.toggleButton.type = 'button';
    this.toggleButton.title = 'fluid debug pane';
    this.toggleButton.textContent = 'fluid \u25b8';
    this.toggleButton.setAttribute('aria-expanded', 'false');
    this.toggleButton.addEventListener('click', () => {
      this.expanded = !this.expanded;
      this.toggleButton.blur();
    });
    this.body = this.create('div', 'body');
    this.body.hidden = true;
    this.shadow.append(this.toggleButton, this.body);

    // Figures.
    this.section('fluid');
    this.figures = {
      backend: this.figure('backend'),
      solver: this.figure('solver'),
      particles: this.figure('particles'),
      fps: this.figure('fps'),
      step: this.figure('step'),
      stepsPerFrame: this.figure('steps last frame'),
      dropped: this.figure('dropped time'),
    };
    // View and scheduling.
    this.section('view');
    const engine = this.scene.getEngine();
    this.renderModeSelect = this.select(
      'render mode',
      RENDER_MODES,
      (mode) => mode !== 'fluid' || supportsFluidRenderer(engine),
      (mode) => {
        plugin.renderMode = mode;
      },
    );
    this.colorBySelect = this.select(
      'color by',
      COLORINGS,
      () => true,
      (coloring) => {
        plugin.colorBy = coloring;
      },
    );
    this.pausedBox = this.create('input');
    this.pausedBox.type = 'checkbox';
    this.pausedBox.dataset.control = 'paused';
    this.pausedBox.addEventListener('change', () => {
      plugin.paused = this.pausedBox.checked;
      this.pausedBox.blur();
    });
    const pausedRow = this.create('label', 'row');
    pausedRow.append('paused', this.pausedBox);
    this.body.append(pausedRow);
    const timeScale: KnobRange = ['time scale', '', PLUGIN_OPTIONS.timeScale, 0, 2, 0.05, 2];
    this.body.append(this.knob(propertyKnob(plugin, 'timeScale', timeScale), 'timeScale'));
    // Solver and materials: rebuilt by scans.
    this.section('solver');
    this.materialsSection = this.create('div');
    this.body.append(this.materialsSection);
    this.section('step timings');
    this.timingsSection = this.create('div', 'timings');
    this.body.append(this.timingsSection);

    (options.container ?? this.canvas?.parentElement ?? document.body).append(this.element);
    this.place();
    this.afterRenderObserver = this.scene.onAfterRenderObservable.add(() => this.onFrame());
    this.sceneDisposeObserver = this.scene.onDisposeObservable.add(() => this.dispose());
    if (options.expanded) this.expanded = true;
  }

  /** True while the pane is open; false while it is collapsed into its button. */
  get expanded(): boolean {
    return this.isExpanded;
  }

  /** Opens or collapses the pane (opening rescans the materials and updates every figure at once). */
  set expanded(expanded: boolean) {
    if (this.disposed || expanded === this.isExpanded) return;
    this.isExpanded = expanded;
    this.body.hidden = !expanded;
    this.toggleButton.textContent = expanded ? 'fluid \u25be' : 'fluid \u25b8';
    this.toggleButton.setAttribute('aria-expanded', String(expanded));
    if (expanded) {
      this.scanMaterials();
      this.refresh();
    }
    this.place();
  }

  /** True once {@link FluidDebugPane.dispose} ran (or the plugin or scene was disposed). */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * Updates every figure and slider from the plugin now (otherwise every `refreshInterval` frames while
   * expanded). Sliders being dragged keep their value. Harmless after dispose.
   */
  refresh(): void {
    if (this.disposed) return;
    const plugin = this.plugin;
    const simulation = plugin.simulation;
    const stats = simulation.stats;
    const settings = simulation.settings;
    const fps = this.scene.getEngine().getFps();
    const figures = this.figures;
    figures.backend.textContent = plugin.backend;
    figures.solver.textContent = `${settings.solver}, ${stats.solverSubsteps} substeps`;
    figures.particles.textContent = `${simulation.particleCount} / ${settings.capacity}`;
    figures.fps.textContent = Number.isFinite(fps) ? fps.toFixed(0) : '-';
    figures.step.textContent = `${stats.stepMilliseconds.toFixed(2)} ms`;
    figures.stepsPerFrame.textContent = String(plugin.stepsLastFrame);
    figures.dropped.textContent = `${plugin.droppedTime.toFixed(2)} s`;
    if (this.renderModeSelect.value !== plugin.renderMode) this.renderModeSelect.value = plugin.renderMode;
    if (this.colorBySelect.value !== plugin.colorBy) this.colorBySelect.value = plugin.colorBy;
    this.pausedBox.checked = plugin.paused;
    const focused = this.shadow.activeElement;
    for (const control of this.knobs) {
      if (control.input !== focused) control.input.value = String(control.knob.read());
      this.showValue(control);
    }
    this.refreshTimings(stats.systemMilliseconds, stats.stepMilliseconds);
  }

  /** Removes the pane and its observers; the plugin is untouched. Safe to call twice. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.scene.onAfterRenderObservable.remove(this.afterRenderObserver);
    this.scene.onDisposeObservable.remove(this.sceneDisposeObserver);
    for (const type of STOPPED_EVENTS) this.element.removeEventListener(type, this.stopEvent);
    this.element.remove();
    this.knobs = [];
    this.timingRows.clear();
  }

  /** After each rendered frame: follows the plugin's disposal, the canvas's place and, expanded, the figures. */
  private onFrame(): void {
    if (this.plugin.isDisposed) {
      this.dispose();
      return;
    }
    if (++this.frame % this.refreshInterval !== 0) return;
    this.place();
    if (!this.isExpanded) return;
    if (++this.refreshesSinceScan >= MATERIAL_SCAN_REFRESHES) this.scanMaterials();
    this.refresh();
  }

  /** Puts the pane in its corner of the canvas (fixed positioning from the canvas's bounds). */
  private place(): void {
    const style = this.element.style;
    const bounds = this.canvas?.getBoundingClientRect();
    const root = document.documentElement;
    const left = bounds ? bounds.left : 0;
    const top = bounds ? bounds.top : 0;
    const right = bounds ? root.clientWidth - bounds.right : 0;
    const bottom = bounds ? root.clientHeight - bounds.bottom : 0;
    const height = bounds ? bounds.height : root.clientHeight;
    const [vertical, horizontal] = this.corner.split('-');
    style.top = vertical === 'top' ? `${top + MARGIN}px` : '';
    style.bottom = vertical === 'bottom' ? `${bottom + MARGIN}px` : '';
    style.left = horizontal === 'left' ? `${left + MARGIN}px` : '';
    style.right = horizontal === 'right' ? `${right + MARGIN}px` : '';
    // Expanded, the body scrolls within the canvas's height (less the button and the margins).
    this.body.style.maxHeight = `${Math.max(120, height - 2 * MARGIN - 32)}px`;
  }

  /** Reads the simulation's material entities and rebuilds the solver and material sliders if they changed. */
  private scanMaterials(): void {
    this.refreshesSinceScan = 0;
    const found = Array.from(this.plugin.simulation.materials());
    if (found.length === this.materialIds.length && found.every((id, k) => id === this.materialIds[k])) return;
    this.materialIds = found;
    this.buildSliders();
  }

  /** The solver's sliders, then one group of sliders per material. */
  private buildSliders(): void {
    const section = this.materialsSection;
    this.knobs = this.knobs.filter((control) => !section.contains(control.input));
    section.replaceChildren();
    for (const [knob, key] of this.solverKnobs()) section.append(this.knob(knob, key));
    const store = this.plugin.simulation.components.FluidMaterial;
    if (this.materialIds.length === 0) {
      const note = this.create('div', 'note');
      note.textContent = 'no materials yet';
      section.append(note);
    }
    for (const id of this.materialIds) {
      const heading = this.create('div', 'material');
      const swatch = this.create('span', 'swatch');
      const channel = (value: number) => Math.round(255 * Math.min(1, Math.max(0, value)));
      swatch.style.background = `rgb(${channel(store.colorRed[id])}, ${channel(store.colorGreen[id])}, ${channel(store.colorBlue[id])})`;
      heading.append(swatch, this.materialNames[id] ?? `material ${id}`);
      section.append(heading);
      for (const [knob, key] of this.materialKnobs(id)) section.append(this.knob(knob, `${key}:${id}`));
    }
  }

  /** Sliders of the solver's live settings (`simulation.settings`, WCSPH's `sph*` keys, MPS's settings). */
  private solverKnobs(): [Knob, string][] {
    const simulation = this.plugin.simulation;
    const settings = simulation.settings;
    const solver = settings.solver;
    const substeps = solver === 'pbf' ? 'substeps' : 'substeps (least)';
    const knobs: [Knob, string][] = [
      [propertyKnob(settings, 'substeps', [substeps, '', SIMULATION_OPTIONS.substeps, 1, 8, 1, 0]), 'substeps'],
    ];
    if (solver === 'pbf') {
      const range: KnobRange = ['iterations', '', SIMULATION_OPTIONS.iterations, 1, 10, 1, 0];
      knobs.push([propertyKnob(settings, 'iterations', range), 'iterations']);
    }
    if (solver === 'sph') {
      const speed: KnobRange = ['speed of sound', 'm/s', SPH_OPTIONS.speedOfSound, 5, 60, 1, 0];
      const viscosity: KnobRange = ['viscosity', 'Pa s', SPH_OPTIONS.viscosity, 0, 50, 0.5, 1];
      knobs.push(
        [propertyKnob(settings, 'sphSpeedOfSound', speed), 'sphSpeedOfSound'],
        [propertyKnob(settings, 'sphViscosity', viscosity), 'sphViscosity'],
      );
    }
    const mps = simulation.mpsSettings;
    if (mps) {
      const viscosity: KnobRange = ['kinematic viscosity', 'm²/s', MPS_OPTIONS.kinematicViscosity, 0, 0.05, 0.0005, 4];
      knobs.push([propertyKnob(mps, 'kinematicViscosity', viscosity), 'mpsKinematicViscosity']);
    }
    return knobs;
  }

  /**
   * Sliders of one material's `FluidMaterial` components (the PBF ones only with that solver; WCSPH's own
   * viscosity with that one; the interface tension where the material has one, with either).
   */
  private materialKnobs(id: number): [Knob, string][] {
    const store = this.plugin.simulation.components.FluidMaterial;
    type Field =
      | 'restDensity'
      | 'viscosity'
      | 'vorticity'
      | 'artificialPressureStrength'
      | 'interfaceTension'
      | 'dynamicViscosity';
    const field = (key: Field, range: KnobRange): [Knob, string] => [
      knobOf(
        range,
        () => store[key][id],
        (value) => {
          store[key][id] = value;
        },
      ),
      key,
    ];
    const knobs = [field('restDensity', ['rest density', 'kg/m³', MATERIAL_OPTIONS.restDensity, 50, 3000, 10, 0])];
    const solver = this.plugin.simulation.settings.solver;
    const tension = (): void => {
      if (store.interfaceTension[id] > 0) {
        knobs.push(
          field('interfaceTension', ['interface tension', 'N/m', MATERIAL_OPTIONS.interfaceTension, 0, 5, 0.05, 2]),
        );
      }
    };
    if (solver === 'sph') {
      // -1: the simulation's sph.viscosity (the slider's left end).
      knobs.push(field('dynamicViscosity', ['viscosity', 'Pa s', MATERIAL_OPTIONS.dynamicViscosity, -1, 50, 0.5, 1]));
      tension();
    }
    if (solver !== 'pbf') return knobs;
    knobs.push(
      field('viscosity', ['viscosity', '', MATERIAL_OPTIONS.viscosity, 0, 0.5, 0.005, 3]),
      field('vorticity', ['vorticity', 'm/s', MATERIAL_OPTIONS.vorticity, 0, 0.2, 0.005, 3]),
      field('artificialPressureStrength', [
        'artificial pressure',
        '',
        MATERIAL_OPTIONS.artificialPressureStrength,
        0,
        0.5,
        0.01,
        2,
      ]),
    );
    tension();
    return knobs;
  }

  /** A slider row for `knob`; `key` names it in `data-control` (tests and styling find it by that). */
  private knob(knob: Knob, key: string): HTMLDivElement {
    const wrapper = this.create('div', 'knob');
    const caption = this.create('div', 'row');
    const value = this.create('span', 'value');
    caption.append(knob.label, value);
    const input = this.create('input');
    input.type = 'range';
    input.min = String(knob.minimum);
    input.max = String(knob.maximum);
    input.step = String(knob.step);
    input.value = String(knob.read());
    input.dataset.control = key;
    const control: KnobControl = { knob, input, value };
    input.addEventListener('input', () => {
      knob.write(Number(input.value));
      this.showValue(control);
    });
    input.addEventListener('change', () => input.blur());
    this.showValue(control);
    this.knobs.push(control);
    wrapper.append(caption, input);
    return wrapper;
  }

  private showValue(control: KnobControl): void {
    const { knob } = control;
    control.value.textContent = `${knob.read().toFixed(knob.digits)}${knob.unit ? ` ${knob.unit}` : ''}`;
  }

  /** A selector row whose change calls `apply`; `enabled` greys out choices the engine cannot show. */
  private select<T extends string>(
    label: string,
    choices: readonly T[],
    enabled: (choice: T) => boolean,
    apply: (choice: T) => void,
  ): HTMLSelectElement {
    const row = this.create('label', 'row');
    const select = this.create('select');
    select.dataset.control = label.replace(/ (\w)/g, (_match, letter: string) => letter.toUpperCase());
    for (const choice of choices) {
      const option = this.create('option');
      option.value = choice;
      option.textContent = choice;
      option.disabled = !enabled(choice);
      select.append(option);
    }
    select.addEventListener('change', () => {
      const choice = choices.find((known) => known === select.value);
      if (choice !== undefined) apply(choice);
      select.blur();
    });
    row.append(label, select);
    this.body.append(row);
    return select;
  }

  /** A section heading. */
  private section(title: string): void {
    const heading = this.create('h3');
    heading.textContent = title;
    this.body.append(heading);
  }

  /** A figure row; returns its value element. */
  private figure(label: string): HTMLSpanElement {
    const row = this.create('div', 'row');
    const value = this.create('span', 'value');
    value.dataset.figure = label.replace(/ (\w)/g, (_match, letter: string) => letter.toUpperCase());
    row.append(label, value);
    this.body.append(row);
    return value;
  }

  /** The per-system timings of the last step, slowest first, as bars relative to the whole step. */
  private refreshTimings(systems: Readonly<Record<string, number>>, total: number): void {
    const entries = Object.entries(systems).sort((a, b) => b[1] - a[1]);
    for (const [name, milliseconds] of entries) {
      let row = this.timingRows.get(name);
      if (!row) {
        const element = this.create('div', 'timing');
        const bar = this.create('div', 'bar');
        const value = this.create('span', 'value');
        element.append(bar, name, value);
        row = { row: element, milliseconds: value, bar };
        this.timingRows.set(name, row);
      }
      row.milliseconds.textContent = milliseconds.toFixed(2);
      row.bar.style.width = `${total > 0 ? Math.min(100, (100 * milliseconds) / total) : 0}%`;
      this.timingsSection.append(row.row);
    }
    for (const [name, row] of this.timingRows) {
      if (!(name in systems)) {
        row.row.remove();
        this.timingRows.delete(name);
      }
    }
  }

  private create<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
    const element = document.createElement(tag);
    if (className) element.className = className;
    return element;
  }
}

/**
 * What a slider shows and allows: caption, unit, the option schema's rule, the practical minimum, maximum and
 * step, and the digits of its readout.
 */
type KnobRange = [
  label: string,
  unit: string,
  rule: OptionRule,
  minimum: number,
  maximum: number,
  step: number,
  digits: number,
];

/**
 * A slider over `read`/`write`: the range's practical minimum..maximum widened to hold the current value,
 * within the schema's rule; integer rules write rounded values.
 */
function knobOf(range: KnobRange, read: () => number, write: (value: number) => void): Knob {
  const [label, unit, rule, minimum, maximum, step, digits] = range;
  const value = read();
  return {
    label,
    unit,
    minimum: Math.max(rule.min, Math.min(minimum, value)),
    maximum: Math.min(rule.max, Math.max(maximum, value)),
    step,
    digits,
    read,
    write: rule.integer ? (next) => write(Math.round(next)) : write,
  };
}

/** A slider over the numeric property `key` of `target` (live settings objects). */
function propertyKnob<K extends string>(target: Record<K, number>, key: K, range: KnobRange): Knob {
  return knobOf(
    range,
    () => target[key],
    (value) => {
      target[key] = value;
    },
  );
}
