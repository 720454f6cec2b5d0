/** Time as the coordinator sees it: injectable so tests drive leases and loops deterministically. */
export interface Clock {
  nowMs(): number
}

export type TimerCallback = () => void | Promise<void>

export interface TimerHandle {
  cancel(): void
}

/** Schedules callbacks; the only source of delays in the coordinator's background loops. */
export interface Timer {
  schedule(delayMs: number, callback: TimerCallback): TimerHandle
}

export const SYSTEM_CLOCK: Clock = { nowMs: () => Date.now() }

export const SYSTEM_TIMER: Timer = {
  schedule(delayMs, callback) {
    const handle = setTimeout(() => void callback(), delayMs)
    return { cancel: () => clearTimeout(handle) }
  },
}

/** Where the coordinator reports what it does and what went wrong in the background. */
export interface CoordinatorLogger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
}

export const SILENT_COORDINATOR_LOGGER: CoordinatorLogger = { info() {}, warn() {} }

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
