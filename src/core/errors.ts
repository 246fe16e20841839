/** Base class of every error the simulation throws on bad input or bad state. */
export class FluidError extends Error {
  /** Creates an error with a message naming the offending value and the allowed range. */
  constructor(message: string) {
    super(message);
    this.name = 'FluidError';
  }
}

/** Thrown when an operation would exceed a capacity fixed at creation. Nothing is changed. */
export class FluidCapacityError extends FluidError {
  /** Creates the error with the capacity that would be exceeded. */
  constructor(message: string) {
    super(message);
    this.name = 'FluidCapacityError';
  }
}
