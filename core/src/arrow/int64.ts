/**
 * Exact 64-bit integer arithmetic on plain numbers, for the hot paths of the Arrow encoder and
 * reader (timestamps, int64 metadata fields) where a BigInt per value would dominate the cost.
 * A 64-bit value is handled as a signed high word and an unsigned low word.
 */

const TWO_32 = 4294967296

/** Writes a safe integer as a little-endian int64. */
export function setInt64Number(view: DataView, pos: number, value: number): void {
  view.setUint32(pos, value >>> 0, true)
  view.setInt32(pos + 4, Math.floor(value / TWO_32), true)
}

/**
 * Writes `base * factor + add` as a little-endian int64, exactly, for a safe integer `base`,
 * a factor of at most 1e6 and 0 <= add < factor. Returns false when the result does not fit in
 * an int64 (nothing is written then).
 */
export function setInt64Scaled(
  view: DataView,
  pos: number,
  base: number,
  factor: number,
  add: number,
): boolean {
  const baseHigh = Math.floor(base / TWO_32)
  const low = (base - baseHigh * TWO_32) * factor + add
  const carry = Math.floor(low / TWO_32)
  const high = baseHigh * factor + carry
  if (high < -2147483648 || high > 2147483647) return false
  view.setUint32(pos, low - carry * TWO_32, true)
  view.setInt32(pos + 4, high, true)
  return true
}

/**
 * Reads a little-endian int64 as a number; returns NaN when it is outside the safe integer range
 * (callers treat that as corrupt input).
 */
export function getInt64Number(view: DataView, pos: number): number {
  const high = view.getInt32(pos + 4, true)
  if (high >= 0x200000 || high < -0x200000) return NaN
  return high * TWO_32 + view.getUint32(pos, true)
}

/** Floor division state reused by `splitInt64` to avoid allocating a result per value. */
export interface Int64Split {
  quotient: number
  remainder: number
}

/**
 * Splits the little-endian int64 at `pos` into floor(value / divisor) and the non-negative
 * remainder, exactly, for divisor 1e3 or 1e6. Returns false when the quotient is not a safe integer.
 */
export function splitInt64(view: DataView, pos: number, divisor: number, out: Int64Split): boolean {
  const high = view.getInt32(pos + 4, true)
  const low = view.getUint32(pos, true)
  const perHigh = Math.floor(TWO_32 / divisor)
  const restPerHigh = TWO_32 - perHigh * divisor
  const t = high * restPerHigh + low
  let r = t % divisor
  if (r < 0) r += divisor
  const q = high * perHigh + (t - r) / divisor
  if (!Number.isSafeInteger(q)) return false
  out.quotient = q
  out.remainder = r
  return true
}
