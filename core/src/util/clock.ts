/** Wall-clock time, injectable so tests can move it (also backwards) and drive leases and loops. */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number
}

export const SYSTEM_CLOCK: Clock = { nowMs: () => Date.now() }

export type TimerCallback = () => void | Promise<void>

export interface TimerHandle {
  cancel(): void
}

/** Schedules callbacks: the source of delays of background loops, injectable like the clock. */
export interface Timer {
  schedule(delayMs: number, callback: TimerCallback): TimerHandle
}

/**
 * The timer of `setTimeout`. With `unref`, a pending callback does not keep the process alive (for
 * components that may be left running by a caller that forgot to stop them).
 */
export function systemTimer(options: { readonly unref?: boolean } = {}): Timer {
  return {
    schedule(delayMs, callback) {
      const handle = setTimeout(() => void callback(), delayMs)
      if (options.unref === true) handle.unref()
      return { cancel: () => clearTimeout(handle) }
    },
  }
}

export const SYSTEM_TIMER: Timer = systemTimer()
