import type { Clock } from '@sluice/core/util'

export type GatewayState = 'starting' | 'ready' | 'draining'

/**
 * Readiness of a gateway process: `starting` until its backend is connected, `ready`, then
 * `draining` once shutdown begins (/ready answers 503 and new requests are refused, while requests
 * in flight finish). Tracks in-flight requests so a server can wait for them.
 */
export class GatewayLifecycle {
  #state: GatewayState
  #inFlight = 0
  #idle: (() => void)[] = []
  readonly startedAtMs: number

  constructor(clock: Clock, state: GatewayState = 'ready') {
    this.#state = state
    this.startedAtMs = clock.nowMs()
  }

  get state(): GatewayState {
    return this.#state
  }

  get inFlight(): number {
    return this.#inFlight
  }

  markReady(): void {
    if (this.#state === 'starting') this.#state = 'ready'
  }

  startDraining(): void {
    this.#state = 'draining'
  }

  enter(): void {
    this.#inFlight++
  }

  leave(): void {
    this.#inFlight--
    if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve()
  }

  /** Resolves when no request is in flight, or after `timeoutMs`; true when all finished. */
  waitIdle(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true)
    return new Promise(resolve => {
      const timer = setTimeout(() => resolve(false), timeoutMs)
      timer.unref?.()
      this.#idle.push(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }
}
