import type { Timer, TimerHandle } from '@sluice/core/util'
import { type CoordinatorLogger, errorMessage } from './coordinator-logger.js'

/**
 * A background loop: runs `run` every `intervalMs` (measured from the end of the previous run, so
 * runs never overlap), until stopped. Failures are logged and the loop goes on.
 */
export class PeriodicTask {
  readonly #name: string
  readonly #intervalMs: number
  readonly #run: () => Promise<void>
  readonly #timer: Timer
  readonly #logger: CoordinatorLogger
  #handle: TimerHandle | undefined
  #running: Promise<void> | undefined
  #stopped = true

  constructor(
    name: string,
    intervalMs: number,
    run: () => Promise<void>,
    timer: Timer,
    logger: CoordinatorLogger,
  ) {
    this.#name = name
    this.#intervalMs = intervalMs
    this.#run = run
    this.#timer = timer
    this.#logger = logger
  }

  /** Starts the loop; the first run happens after `firstDelayMs` (default: at once). */
  start(firstDelayMs = 0): void {
    if (!this.#stopped) return
    this.#stopped = false
    this.#schedule(firstDelayMs)
  }

  /** Runs now (waiting for a run in progress first) and resolves when that run is done. */
  runNow(): Promise<void> {
    return this.#fire(false)
  }

  /** Stops the loop and waits for a run in progress. */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#handle?.cancel()
    this.#handle = undefined
    await this.#running
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return
    this.#handle?.cancel()
    this.#handle = this.#timer.schedule(delayMs, () => this.#fire(true))
  }

  #fire(reschedule: boolean): Promise<void> {
    const previous = this.#running ?? Promise.resolve()
    const run = previous.then(async () => {
      try {
        await this.#run()
      } catch (e) {
        this.#logger.warn(`${this.#name} failed`, { error: errorMessage(e) })
      }
    })
    this.#running = run
    return run.finally(() => {
      if (this.#running === run) this.#running = undefined
      if (reschedule) this.#schedule(this.#intervalMs)
    })
  }
}
