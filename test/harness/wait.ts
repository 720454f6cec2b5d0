import { randomUUID } from 'node:crypto'

/** Polls `fn` until it returns a truthy value (returned) or the deadline passes (throws). */
export async function waitUntil<T>(
  fn: () => T | Promise<T>,
  options: { timeoutMs: number; intervalMs?: number; what?: string },
): Promise<NonNullable<T>> {
  const deadline = Date.now() + options.timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v) return v as NonNullable<T>
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `; last error: ${last.message}` : ''
      throw new Error(
        `timed out after ${options.timeoutMs} ms waiting for ${options.what ?? 'condition'}${why}`,
      )
    }
    await new Promise(r => setTimeout(r, options.intervalMs ?? 100))
  }
}

/** A unique, valid Fluss name for a test's database or table. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`
}
