/**
 * Runs `total` operations from `clients` concurrent loops (each awaits its operation before the
 * next, as a synchronous client would) and records every operation's latency.
 */
export async function runConcurrent(
  clients: number,
  total: number,
  op: (i: number) => Promise<void>,
): Promise<{ seconds: number; latenciesMs: Float64Array }> {
  const latenciesMs = new Float64Array(total)
  let next = 0
  const loop = async () => {
    for (let i = next++; i < total; i = next++) {
      const t0 = performance.now()
      await op(i)
      latenciesMs[i] = performance.now() - t0
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, loop))
  return { seconds: (performance.now() - started) / 1000, latenciesMs }
}

/** The `p`-th percentile (nearest rank) of a typed array, sorted in place. */
export function percentileOf(xs: Float64Array, p: number): number {
  if (xs.length === 0) return Number.NaN
  xs.sort()
  return xs[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))]
}
