/** Where the coordinator reports what it does and what went wrong in the background. */
export interface CoordinatorLogger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
}

export const SILENT_COORDINATOR_LOGGER: CoordinatorLogger = { info() {}, warn() {} }

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
