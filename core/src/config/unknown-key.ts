import { ALL_OPTIONS, TABLE_PROPERTY_PREFIX } from './options.js'

/** The error text for an unregistered key that looks like ours, naming the nearest known key if any. */
export function unknownKeyMessage(key: string): string {
  if (key.startsWith(TABLE_PROPERTY_PREFIX)) {
    return `'${key}' is not a recognized Fluss table property in the current cluster version.`
  }
  const near = nearestKey(key)
  return `Unknown configuration key '${key}'.${near === undefined ? '' : ` Did you mean '${near}'?`}`
}

/** The registered key closest to `key` by edit distance, if it is close enough to be a typo. */
export function nearestKey(key: string): string | undefined {
  let best: string | undefined
  let limit = Math.max(2, Math.floor(key.length / 6)) + 1
  for (const { key: candidate } of ALL_OPTIONS) {
    const d = editDistance(key, candidate, limit)
    if (d < limit) [best, limit] = [candidate, d]
  }
  return best
}

/** Levenshtein distance, giving up (returning `limit`) once the result cannot be below `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    if (Math.min(...row) >= limit) return limit
    prev = row
  }
  return prev[b.length]
}
