/**
 * The readback's staging buffers (gpu/backend.ts): at most three MAP_READ buffers, one more created only when
 * a readback finds every one busy, each with its CPU copy (reused: a readback's views stay valid until its
 * buffer is reused) and its entries for the coupled bodies; and the packing of one readback's copies into a
 * staging buffer (`StagingCopy`).
 */
import { type BodyEntries, createBodyEntries } from './impulses';

/** Most staging buffers: a readback beyond this many in flight gets none (`WebGpuSolver.readback`: undefined). */
const MAX_STAGING_BUFFERS = 3;

/** The staging buffers of one solver; see the file comment. Index `k` of each array is buffer `k`. */
export class StagingBuffers {
  /** The staging buffers themselves. */
  readonly buffers: GPUBuffer[] = [];
  /** CPU copies of the staging buffers, reused: a readback's views stay valid until its buffer is reused. */
  readonly copies: ArrayBuffer[] = [];
  /** Whether a readback holds the buffer (from recording its copies until its copy is taken). */
  readonly busy: boolean[] = [];
  /** Per staging buffer, the decoded impulses of its last readback (see `GpuReadback.bodyImpulses`). */
  readonly bodies: BodyEntries[] = [];
  private readonly bytes: number;
  private readonly maxColliders: number;

  /** Buffers of `bytes` bytes, with body entries for `maxColliders` colliders. */
  constructor(bytes: number, maxColliders: number) {
    this.bytes = bytes;
    this.maxColliders = maxColliders;
  }

  /**
   * A free staging buffer's index, marked busy; when every one is busy, a new one (created on `device`, with
   * its CPU copy and body entries) up to three, else -1.
   */
  acquire(device: GPUDevice): number {
    let index = this.busy.indexOf(false);
    if (index < 0) {
      if (this.buffers.length >= MAX_STAGING_BUFFERS) return -1;
      this.buffers.push(
        device.createBuffer({ size: this.bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
      );
      this.copies.push(new ArrayBuffer(this.bytes));
      this.busy.push(false);
      this.bodies.push(createBodyEntries(this.maxColliders));
      index = this.buffers.length - 1;
    }
    this.busy[index] = true;
    return index;
  }

  /**
   * After buffer `index` was mapped: copies its first `bytes` into its CPU copy, unmaps it and frees it;
   * returns the CPU copy.
   */
  takeCopy(index: number, bytes: number): ArrayBuffer {
    const staging = this.buffers[index];
    const mapped = this.copies[index];
    new Uint8Array(mapped, 0, bytes).set(new Uint8Array(staging.getMappedRange(0, bytes)));
    staging.unmap();
    this.busy[index] = false;
    return mapped;
  }

  /** Bytes of GPU memory the staging buffers hold. */
  get gpuBytes(): number {
    let bytes = 0;
    for (const buffer of this.buffers) bytes += buffer.size;
    return bytes;
  }

  /** Destroys every staging buffer. */
  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
  }
}

/**
 * The copies of one readback into a staging buffer, packed one after the other in the order they are
 * recorded, and where each landed (byte offset and length, by buffer name).
 */
export class StagingCopy {
  /** Bytes recorded so far: the staging bytes to map. */
  bytes = 0;
  private readonly layout: Record<string, [number, number]> = {};
  private readonly encoder: GPUCommandEncoder;
  private readonly staging: GPUBuffer;
  private readonly source: (name: string) => GPUBuffer;

  /** Copies recorded in `encoder` into `staging`, from the buffers `source` names. */
  constructor(encoder: GPUCommandEncoder, staging: GPUBuffer, source: (name: string) => GPUBuffer) {
    this.encoder = encoder;
    this.staging = staging;
    this.source = source;
  }

  /** Records the copy of the first `bytes` of buffer `name` (nothing, and no entry, when `bytes` is 0). */
  copy(name: string, bytes: number): void {
    if (bytes === 0) return;
    this.encoder.copyBufferToBuffer(this.source(name), 0, this.staging, this.bytes, bytes);
    this.layout[name] = [this.bytes, bytes];
    this.bytes += bytes;
  }

  /** Where buffer `name`'s copy lies (byte offset, bytes), or undefined when it was not copied. */
  at(name: string): readonly [number, number] | undefined {
    return this.layout[name];
  }
}
