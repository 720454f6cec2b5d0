/**
 * Offset-index bytes of remote segments, kept in memory for remote reads (least recently used out
 * first). Bounded by `maxBytes`; an index larger than the whole bound is used but not kept.
 * Concurrent loads of one segment share a single download.
 */
export class RemoteIndexCache {
  readonly #entries = new Map<string, Buffer>()
  readonly #loading = new Map<string, Promise<Buffer>>()
  #bytes = 0

  constructor(readonly maxBytes: number) {}

  get sizeInBytes(): number {
    return this.#bytes
  }

  async get(segmentId: string, load: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.#entries.get(segmentId)
    if (hit !== undefined) {
      this.#entries.delete(segmentId)
      this.#entries.set(segmentId, hit)
      return hit
    }
    let pending = this.#loading.get(segmentId)
    if (pending === undefined) {
      pending = load().finally(() => this.#loading.delete(segmentId))
      this.#loading.set(segmentId, pending)
      pending.then(bytes => this.#put(segmentId, bytes)).catch(() => {})
    }
    return pending
  }

  /** Forgets segments that left the manifest. */
  evict(segmentIds: Iterable<string>): void {
    for (const id of segmentIds) {
      const bytes = this.#entries.get(id)
      if (bytes === undefined) continue
      this.#entries.delete(id)
      this.#bytes -= bytes.length
    }
  }

  #put(segmentId: string, bytes: Buffer): void {
    if (bytes.length > this.maxBytes || this.#entries.has(segmentId)) return
    this.#entries.set(segmentId, bytes)
    this.#bytes += bytes.length
    for (const [id, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break
      this.#entries.delete(id)
      this.#bytes -= old.length
    }
  }
}
