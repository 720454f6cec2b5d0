/**
 * Calls `stop` (with what caused it) on SIGTERM and SIGINT and, for a server started by a local
 * cluster (`SLUICE_EXIT_WITH_PARENT=1`), when the parent goes away: its end of our stdin closes.
 * `stop` may be called more than once.
 */
export function stopOnSignalsOrParentExit(stop: (cause: string) => unknown): void {
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  if (process.env.SLUICE_EXIT_WITH_PARENT === '1') {
    process.stdin.on('end', () => void stop('parent exit'))
    process.stdin.on('error', () => void stop('parent exit'))
    process.stdin.resume()
  }
}
