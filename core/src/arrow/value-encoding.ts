import type { Decimal, Timestamp } from '../row/value.js'
import { ColumnKind as K } from './arrow-type.js'
import { setInt64Number, setInt64Scaled } from './int64.js'

/**
 * Fixed-width encodings of temporal and decimal values, as Fluss's `arrow/writers` do them:
 * TIME is milliseconds of the day scaled to the unit, TIMESTAMP seconds truncate toward zero,
 * sub-millisecond digits come from the nano-of-millisecond, DECIMAL is a 128-bit two's complement.
 */

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n

/** Writes TIME(p) value `msOfDay` for row `i` of a column of `kind`. */
export function encodeTime(view: DataView, i: number, kind: number, msOfDay: number): void {
  if (kind === K.TIME_SECOND) view.setInt32(i * 4, Math.trunc(msOfDay / 1000), true)
  else if (kind === K.TIME_MILLI) view.setInt32(i * 4, msOfDay, true)
  else setInt64Number(view, i * 8, msOfDay * (kind === K.TIME_MICRO ? 1000 : 1_000_000))
}

/** Writes a timestamp for row `i` of a column of `kind`; false when it overflows the unit's int64. */
export function encodeTimestamp(view: DataView, i: number, kind: number, ts: Timestamp): boolean {
  const at = i * 8
  switch (kind) {
    case K.TIMESTAMP_SECOND:
      setInt64Number(view, at, Math.trunc(ts.millis / 1000))
      return true
    case K.TIMESTAMP_MILLI:
      setInt64Number(view, at, ts.millis)
      return true
    case K.TIMESTAMP_MICRO:
      return setInt64Scaled(view, at, ts.millis, 1000, Math.floor(ts.nanoOfMillis / 1000))
    default:
      return setInt64Scaled(view, at, ts.millis, 1_000_000, ts.nanoOfMillis)
  }
}

/** Writes an unscaled decimal (|u| < 10^38) as a little-endian 128-bit integer for row `i`. */
export function encodeInt128(view: DataView, i: number, u: bigint): void {
  const at = i * 16
  if (u >= INT64_MIN && u <= INT64_MAX) {
    view.setBigInt64(at, u, true)
    const high = u < 0n ? -1 : 0
    view.setInt32(at + 8, high, true)
    view.setInt32(at + 12, high, true)
  } else {
    view.setBigUint64(at, BigInt.asUintN(64, u), true)
    view.setBigInt64(at + 8, u >> 64n, true)
  }
}

/** The unscaled value of `d` at `scale`, or null when digits would be lost. */
export function rescaleDecimal(d: Decimal, scale: number): bigint | null {
  if (d.scale === scale) return d.unscaled
  if (d.scale < scale) return d.unscaled * 10n ** BigInt(scale - d.scale)
  const factor = 10n ** BigInt(d.scale - scale)
  return d.unscaled % factor === 0n ? d.unscaled / factor : null
}
