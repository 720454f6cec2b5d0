import type { Clock } from '@sluice/core/util'

/**
 * The record of one write made under an `Idempotency-Key`. `in_progress` while the write runs,
 * `partial` when it failed part-way (the acknowledged rows are kept, so a retry writes only the
 * others), `done` with the response to replay.
 */
export interface IdempotencyEntry {
  /** Hash of the request (method, path, query, content type, body); a reuse must match it. */
  readonly fingerprint: string
  readonly state: 'in_progress' | 'partial' | 'done'
  /** Row indexes acknowledged so far. */
  readonly acknowledgedRows: readonly number[]
  /** The response to replay once `done`. */
  readonly response?: { readonly status: number; readonly body: unknown }
}

/**
 * Where Idempotency-Key entries live. The default is per process (per Lambda instance); a shared
 * implementation (e.g. DynamoDB) makes keys hold across instances.
 */
export interface IdempotencyStore {
  get(key: string): IdempotencyEntry | undefined
  put(key: string, entry: IdempotencyEntry): void
  delete(key: string): void
}

/** A bounded in-memory store: at most `maxEntries`, each kept `ttlMs` after its last change. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, { entry: IdempotencyEntry; expiresAtMs: number }>()

  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  get size(): number {
    return this.#entries.size
  }

  get(key: string): IdempotencyEntry | undefined {
    const held = this.#entries.get(key)
    if (held === undefined) return undefined
    if (held.expiresAtMs <= this.clock.nowMs()) {
      this.#entries.delete(key)
      return undefined
    }
    return held.entry
  }

  put(key: string, entry: IdempotencyEntry): void {
    this.#entries.delete(key)
    this.#evict()
    this.#entries.set(key, { entry, expiresAtMs: this.clock.nowMs() + this.ttlMs })
  }

  delete(key: string): void {
    this.#entries.delete(key)
  }

  /** Drops expired entries from the oldest end, then the oldest ones while the store is full. */
  #evict(): void {
    const now = this.clock.nowMs()
    for (const [key, held] of this.#entries) {
      if (held.expiresAtMs > now && this.#entries.size < this.maxEntries) break
      this.#entries.delete(key)
    }
  }
}
