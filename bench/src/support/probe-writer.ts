import type { AppendWriter, Table } from '@sluice/client'

/**
 * Appends a small row every `intervalMs` through one AppendWriter and records when each was
 * acknowledged, so that a benchmark can ask when the first row appended after some moment was
 * acknowledged (the failover time after a kill). At most `maxPending` rows wait for their ack.
 */
export class ProbeWriter {
  readonly errors: unknown[] = []
  #writer: AppendWriter | undefined
  #next = 0
  #pending = 0
  #stopped = false
  #loop: Promise<void> | undefined
  #waiters: { fromMs: number; resolve: (ackedAtMs: number) => void }[] = []

  constructor(
    private readonly table: Table,
    private readonly row: (id: number) => unknown[],
    private readonly intervalMs = 5,
    private readonly maxPending = 500,
  ) {}

  start(): this {
    const writer = this.table.newAppend().createWriter()
    this.#writer = writer
    this.#loop = (async () => {
      while (!this.#stopped) {
        if (this.#pending < this.maxPending) this.#appendOne(writer)
        await new Promise(resolve => setTimeout(resolve, this.intervalMs))
      }
    })()
    return this
  }

  #appendOne(writer: AppendWriter): void {
    const appendedAtMs = Date.now()
    this.#pending++
    writer.appendWithResult(this.row(this.#next++)).then(
      () => {
        this.#pending--
        const ackedAtMs = Date.now()
        this.#waiters = this.#waiters.filter(w => {
          if (appendedAtMs < w.fromMs) return true
          w.resolve(ackedAtMs)
          return false
        })
      },
      e => {
        this.#pending--
        this.errors.push(e)
      },
    )
  }

  /** When the first row appended at or after `fromMs` is acknowledged (rejects after `timeoutMs`). */
  firstAckAfter(fromMs: number, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter(w => w.resolve !== done)
        reject(
          new Error(
            `no row appended after the mark was acknowledged within ${timeoutMs} ms (${this.errors.length} write errors, last: ${String(this.errors.at(-1))})`,
          ),
        )
      }, timeoutMs)
      const done = (ackedAtMs: number) => {
        clearTimeout(timer)
        resolve(ackedAtMs)
      }
      this.#waiters.push({ fromMs, resolve: done })
    })
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#loop
    await this.#writer?.close().catch(e => this.errors.push(e))
  }
}
