/**
 * Just enough of the DOM for Babylon's WebGPUEngine in plain Node: a fake canvas whose 'webgpu' context
 * hands out an offscreen texture of the canvas size (Babylon renders into it; nothing is presented), and
 * the few window/document globals Babylon reads. Nothing here loads anything over the network: script
 * loads (glslang/twgsl, only needed for GLSL shaders) fail loudly instead.
 */

type Listener = (...args: unknown[]) => void;

/** A GPUCanvasContext stand-in: configure() keeps the config, getCurrentTexture() one texture per size. */
class FakeCanvasContext {
  private config: GPUCanvasConfiguration | undefined;
  private texture: GPUTexture | undefined;
  private textureKey = '';

  constructor(readonly canvas: FakeCanvas) {}

  configure(config: GPUCanvasConfiguration): void {
    this.config = config;
    this.dropTexture();
  }

  unconfigure(): void {
    this.config = undefined;
    this.dropTexture();
  }

  getConfiguration(): GPUCanvasConfiguration | null {
    return this.config ?? null;
  }

  getCurrentTexture(): GPUTexture {
    const config = this.config;
    if (!config) throw new Error('fake canvas context: getCurrentTexture() before configure()');
    const width = Math.max(1, this.canvas.width);
    const height = Math.max(1, this.canvas.height);
    const key = `${width}x${height}`;
    if (!this.texture || this.textureKey !== key) {
      this.dropTexture();
      this.texture = config.device.createTexture({
        label: 'fake-canvas',
        size: [width, height],
        format: config.format,
        usage: (config.usage ?? GPUTextureUsage.RENDER_ATTACHMENT) | GPUTextureUsage.RENDER_ATTACHMENT,
        viewFormats: config.viewFormats ? [...config.viewFormats] : [],
      });
      this.textureKey = key;
    }
    return this.texture;
  }

  private dropTexture(): void {
    this.texture?.destroy();
    this.texture = undefined;
    this.textureKey = '';
  }
}

/** An HTMLCanvasElement stand-in with no layout: client size = backing size. */
export class FakeCanvas {
  private context: FakeCanvasContext | undefined;
  readonly style: Record<string, string> = {};
  readonly tagName = 'CANVAS';
  readonly nodeName = 'CANVAS';
  id = 'fakeCanvas';

  constructor(
    public width = 64,
    public height = 64,
  ) {}

  get clientWidth(): number {
    return this.width;
  }
  get clientHeight(): number {
    return this.height;
  }

  getContext(kind: string): FakeCanvasContext | null {
    if (kind !== 'webgpu') return null;
    this.context ??= new FakeCanvasContext(this);
    return this.context;
  }

  getBoundingClientRect() {
    return {
      x: 0,
      y: 0,
      left: 0,
      top: 0,
      right: this.width,
      bottom: this.height,
      width: this.width,
      height: this.height,
    };
  }
  addEventListener(_type: string, _listener: Listener): void {}
  removeEventListener(_type: string, _listener: Listener): void {}
  setAttribute(_name: string, _value: string): void {}
  getAttribute(_name: string): string | null {
    return null;
  }
  focus(): void {}
  getRootNode() {
    return globalThis.document;
  }
}

function noNetwork(what: string): never {
  throw new Error(`node-webgpu harness: refusing to load ${what} (no network, no DOM)`);
}

/** Installs the window/document globals Babylon touches, where Node has none. */
export function installDomStubs(): void {
  const g = globalThis as Record<string, unknown>;
  const noop = () => {};
  const documentStub = {
    addEventListener: noop,
    removeEventListener: noop,
    createElement: (tag: string) => noNetwork(`a <${tag}> element`),
    getElementsByTagName: () => [],
    querySelector: () => null,
    body: undefined,
    hidden: false,
    visibilityState: 'visible',
  };
  g.document ??= documentStub;
  g.window ??= globalThis;
  const w = g.window as Record<string, unknown>;
  w.addEventListener ??= noop;
  w.removeEventListener ??= noop;
  w.devicePixelRatio ??= 1;
  g.requestAnimationFrame ??= (callback: (time: number) => void) => setTimeout(() => callback(performance.now()), 16);
  g.cancelAnimationFrame ??= (handle: ReturnType<typeof setTimeout>) => clearTimeout(handle);
  // Babylon fetches scripts and wasm (glslang, twgsl) only for GLSL shaders; make any fetch fail loudly.
  g.fetch = (input: unknown) => noNetwork(`'${String(input)}' with fetch`);
}

/**
 * dawn.node's set-like objects (GPUSupportedFeatures, WGSLLanguageFeatures) have has/keys/size only;
 * Babylon calls `features.forEach`. Adds the rest of the read-only Set interface from keys().
 */
export function completeSetLikes(globals: Record<string, unknown>): void {
  for (const name of ['GPUSupportedFeatures', 'WGSLLanguageFeatures']) {
    const proto = (globals[name] as { prototype?: Record<PropertyKey, unknown> } | undefined)?.prototype;
    if (!proto) continue;
    type SetLike = { keys(): IterableIterator<string> };
    const patches: Record<PropertyKey, unknown> = {
      forEach(this: SetLike, callback: (value: string, key: string, set: unknown) => void, thisArg?: unknown) {
        for (const key of [...this.keys()]) callback.call(thisArg, key, key, this);
      },
      values(this: SetLike) {
        return this.keys();
      },
      *entries(this: SetLike) {
        for (const key of [...this.keys()]) yield [key, key];
      },
      [Symbol.iterator](this: SetLike) {
        return this.keys();
      },
    };
    for (const key of Reflect.ownKeys(patches)) {
      if (!(key in proto))
        Object.defineProperty(proto, key, { value: patches[key], configurable: true, writable: true });
    }
  }
}
