import type { AppendResult, Table } from '@sluice/client'
import { sleep } from '@sluice/core/util'

/** Appends rows with per-row acknowledgements until stopped; records what was acknowledged and when. */
export class AckingWriter {
  readonly acked = new Map<number, AppendResult & { appendedAtMs: number; atMs: number }>()
  readonly failed: unknown[] = []
  #next = 0
  #stopped = false
  #loop: Promise<void> | undefined
  readonly #pending = new Set<Promise<unknown>>()

  constructor(private readonly table: Table) {}

  get appended(): number {
    return this.#next
  }

  start(): this {
    const writer = this.table.newAppend().createWriter()
    this.#loop = (async () => {
      while (!this.#stopped) {
        for (let k = 0; k < 10 && !this.#stopped; k++) {
          const id = this.#next++
          const appendedAtMs = Date.now()
          let appended: Promise<AppendResult>
          try {
            appended = writer.appendWithResult([BigInt(id), `row-${id}`])
          } catch (e) {
            this.failed.push(e)
            this.#stopped = true
            break
          }
          const p = appended.then(
            r => this.acked.set(id, { ...r, appendedAtMs, atMs: Date.now() }),
            e => this.failed.push(e),
          )
          this.#pending.add(p)
          p.finally(() => this.#pending.delete(p))
        }
        await sleep(10)
        while (this.#pending.size > 500) await sleep(20)
      }
      await writer.close().catch(e => this.failed.push(e))
      await Promise.all(this.#pending)
    })()
    return this
  }

  /** Rows appended after `t` that are acknowledged. */
  ackedAfter(t: number): number {
    return [...this.acked.values()].filter(r => r.appendedAtMs > t).length
  }

  /** The longest time without any acknowledgement, from `t` on. */
  longestAckPauseMs(t: number): number {
    const times = [t, ...[...this.acked.values()].map(r => r.atMs).filter(at => at >= t)].sort(
      (a, b) => a - b,
    )
    let longest = 0
    for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i] - times[i - 1])
    return longest
  }

  /** When the first row appended after `t` was acknowledged. */
  firstAckAfter(t: number): number {
    return Math.min(...[...this.acked.values()].filter(r => r.appendedAtMs > t).map(r => r.atMs))
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#loop
  }
}
