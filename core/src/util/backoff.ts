/**
 * Delay before the retry that follows failed attempt `attempt` (1-based): `initialMs` doubled
 * per further attempt, at most `maxMs`. The exponent stops growing at 30, so the delay stays a
 * finite number (also for an `initialMs` of 0).
 */
export function exponentialBackoffMs(
  attempt: number,
  initialMs: number,
  maxMs: number = Number.POSITIVE_INFINITY,
): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30)
  return Math.min(maxMs, initialMs * 2 ** exponent)
}

/**
 * `delayMs` with its upper half jittered: uniformly between half of it and all of it (rounded), so
 * that callers that failed together do not all retry at the same instant.
 */
export function halfJitteredMs(delayMs: number, random: () => number = Math.random): number {
  return Math.round(delayMs / 2 + (delayMs / 2) * random())
}
