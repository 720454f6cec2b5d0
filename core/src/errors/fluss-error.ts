import { ERRORS, type ErrorName, type ErrorSpec, errorByCode } from './codes.js'

/**
 * An expected failure with a stable code. Everything that can go wrong for a reason outside the
 * program (bad input, missing table, lost leadership, storage trouble) is a FlussError; broken
 * invariants are assertion failures instead.
 */
export class FlussError extends Error {
  readonly spec: ErrorSpec

  constructor(name: ErrorName | ErrorSpec, message?: string, options?: { cause?: unknown }) {
    const spec = typeof name === 'string' ? ERRORS[name] : name
    super(message ?? spec.message, options)
    this.spec = spec
    this.name = `FlussError(${spec.name})`
  }

  get code(): number {
    return this.spec.code
  }

  get errorName(): ErrorName {
    return this.spec.name as ErrorName
  }

  get retriable(): boolean {
    return this.spec.retriable
  }

  get staleMetadata(): boolean {
    return this.spec.staleMetadata
  }

  /** The code to put on the Fluss wire (Sluice-only codes map to their nearest Fluss code). */
  get wireCode(): number {
    return this.spec.wireCode ?? this.spec.code
  }

  is(name: ErrorName): boolean {
    return this.spec.name === name
  }

  /** Rebuilds an error received over RPC. */
  static fromCode(code: number, message?: string | null): FlussError {
    return new FlussError(errorByCode(code), message ?? undefined)
  }
}

/** Wraps any thrown value: FlussErrors pass through, anything else becomes UNKNOWN_SERVER_ERROR. */
export function toFlussError(e: unknown): FlussError {
  if (e instanceof FlussError) return e
  const msg = e instanceof Error ? e.message : String(e)
  return new FlussError('UNKNOWN_SERVER_ERROR', msg, { cause: e })
}

export function isFlussError(e: unknown, name?: ErrorName): e is FlussError {
  return e instanceof FlussError && (name === undefined || e.is(name))
}

/** Invariant check: a failure is a bug, not an operating error. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`)
}
