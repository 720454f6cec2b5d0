import type { AppendWriter, Table } from '@sluice/client'
import type { Row } from '@sluice/core/row'

/**
 * Appends `rowsPerTick` rows every `tickMs` through one AppendWriter until stopped (the writer's
 * own batching sends them); a tick that finds the write buffer full waits for room, so the rate
 * drops rather than memory growing.
 */
export class SteadyWriter {
  readonly errors: unknown[] = []
  appended = 0
  #stopped = false
  #loop: Promise<void> | undefined
  #writer: AppendWriter | undefined

  constructor(
    private readonly table: Table,
    private readonly rows: readonly Row[],
    private readonly rowsPerTick: number,
    private readonly tickMs: number,
  ) {}

  start(): this {
    const writer = this.table.newAppend().createWriter()
    this.#writer = writer
    this.#loop = (async () => {
      let next = performance.now()
      while (!this.#stopped) {
        for (let k = 0; k < this.rowsPerTick; k++) {
          const wait = writer.append(this.rows[this.appended++ % this.rows.length])
          if (wait) await wait.catch(e => this.errors.push(e))
        }
        next += this.tickMs
        await new Promise(resolve => setTimeout(resolve, Math.max(0, next - performance.now())))
      }
    })().catch(e => {
      this.errors.push(e)
    })
    return this
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#loop
    await this.#writer?.close().catch(e => this.errors.push(e))
  }
}
