import type { Decimal, Timestamp, Value } from '@sluice/core/row'
import { baseType, type IcebergValue, toBoundBytes } from '../iceberg/conversions.js'
import type { LakeColumn } from '../iceberg/schema.js'

/**
 * Column metrics of a data or delete file, computed from the values as they are written, so they
 * are exact: value counts, null counts, and lower/upper bounds only where the bound is certain.
 *
 * Bounds are kept for boolean, int, long, date, time, timestamp(tz), decimal and for strings whose
 * min/max fit STRING_BOUND_BYTES_MAX UTF-8 bytes (no truncation, so no guessing). Float and
 * double columns get no bounds (NaN and signed zeros make them error-prone), nor do binary and
 * fixed columns; engines treat a missing bound as "unknown".
 */

export const STRING_BOUND_BYTES_MAX = 64

type Kind = 'none' | 'number' | 'bigint' | 'string' | 'boolean' | 'decimal' | 'time' | 'timestamp'

/** The column's Iceberg primitive type name, or '' for a list, map or struct column. */
function primitiveOf(column: LakeColumn): string {
  return typeof column.icebergType === 'string' ? column.icebergType : ''
}

function kindOf(column: LakeColumn): Kind {
  switch (baseType(primitiveOf(column))) {
    case 'int':
    case 'date':
      return 'number'
    case 'long':
      return 'bigint'
    case 'string':
      return 'string'
    case 'boolean':
      return 'boolean'
    case 'decimal':
      return 'decimal'
    case 'time':
      return 'time'
    case 'timestamp':
    case 'timestamptz':
      return 'timestamp'
    default:
      return 'none'
  }
}

/** UTF-8 (code point) order of two strings, from their UTF-16 form without encoding them. */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const xs = x >= 0xd800 && x <= 0xdfff
    const ys = y >= 0xd800 && y <= 0xdfff
    if (xs && !ys && y >= 0xe000) return 1
    if (ys && !xs && x >= 0xe000) return -1
    return x - y
  }
  return a.length - b.length
}

/** Strings longer than this (in UTF-16 units, so at least as many UTF-8 bytes) end bound tracking. */
const STRING_TRACK_CHARS_MAX = STRING_BOUND_BYTES_MAX

function lessDecimal(a: Decimal, b: Decimal): boolean {
  if (a.scale === b.scale) return a.unscaled < b.unscaled
  const s = Math.max(a.scale, b.scale)
  return a.unscaled * 10n ** BigInt(s - a.scale) < b.unscaled * 10n ** BigInt(s - b.scale)
}

function lessTimestamp(a: Timestamp, b: Timestamp): boolean {
  return a.millis < b.millis || (a.millis === b.millis && a.nanoOfMillis < b.nanoOfMillis)
}

/**
 * Min and max are kept in the values' own form (cheap comparisons on the hot path) and turned into
 * Iceberg values only when the bounds are read: timestamps and times in micros (truncated as the
 * Arrow writer truncates them), decimals rescaled to the column's scale.
 */
export class ColumnStats {
  kind: Kind
  private readonly scale: number
  nulls = 0
  values = 0
  min: Exclude<Value, null> | undefined
  max: Exclude<Value, null> | undefined

  constructor(readonly column: LakeColumn) {
    this.kind = kindOf(column)
    const m = /^decimal\(\d+,\s*(\d+)\)$/.exec(primitiveOf(column))
    this.scale = m === null ? 0 : Number(m[1])
  }

  add(v: Value): void {
    this.values++
    if (v === null) {
      this.nulls++
      return
    }
    switch (this.kind) {
      case 'none':
        return
      case 'string':
        if ((v as string).length > STRING_TRACK_CHARS_MAX) {
          this.kind = 'none'
          this.min = this.max = undefined
          return
        }
        if (this.min === undefined || compareUtf8(v as string, this.min as string) < 0) this.min = v
        if (this.max === undefined || compareUtf8(v as string, this.max as string) > 0) this.max = v
        return
      case 'decimal':
        if (this.min === undefined || lessDecimal(v as Decimal, this.min as Decimal)) this.min = v
        if (this.max === undefined || lessDecimal(this.max as Decimal, v as Decimal)) this.max = v
        return
      case 'timestamp':
        if (this.min === undefined || lessTimestamp(v as Timestamp, this.min as Timestamp)) this.min = v
        if (this.max === undefined || lessTimestamp(this.max as Timestamp, v as Timestamp)) this.max = v
        return
      default:
        if (this.min === undefined || v < this.min) this.min = v
        if (this.max === undefined || v > this.max) this.max = v
    }
  }

  private icebergValue(v: Exclude<Value, null>): IcebergValue {
    switch (this.kind) {
      case 'bigint':
        return BigInt(v as bigint | number)
      case 'time':
        return BigInt(v as number) * 1000n
      case 'timestamp':
        return (v as Timestamp).toMicros()
      case 'decimal': {
        const d = v as Decimal
        if (d.scale <= this.scale) return d.unscaled * 10n ** BigInt(this.scale - d.scale)
        return d.unscaled / 10n ** BigInt(d.scale - this.scale)
      }
      default:
        return v as IcebergValue
    }
  }

  private bound(v: Exclude<Value, null> | undefined): Uint8Array | undefined {
    if (v === undefined || this.kind === 'none') return undefined
    const bytes = toBoundBytes(primitiveOf(this.column), this.icebergValue(v))
    return this.kind === 'string' && bytes.length > STRING_BOUND_BYTES_MAX ? undefined : bytes
  }

  get lowerBound(): Uint8Array | undefined {
    return this.bound(this.min)
  }

  get upperBound(): Uint8Array | undefined {
    return this.bound(this.max)
  }
}

export interface FileMetrics {
  readonly valueCounts: Map<number, number>
  readonly nullValueCounts: Map<number, number>
  readonly lowerBounds: Map<number, Uint8Array>
  readonly upperBounds: Map<number, Uint8Array>
}

export function fileMetrics(stats: readonly ColumnStats[]): FileMetrics {
  const m: FileMetrics = {
    valueCounts: new Map(),
    nullValueCounts: new Map(),
    lowerBounds: new Map(),
    upperBounds: new Map(),
  }
  for (const s of stats) {
    // Iceberg keeps metrics of primitive (leaf) fields only: list, map and struct columns get none.
    if (primitiveOf(s.column) === '') continue
    const id = s.column.fieldId
    m.valueCounts.set(id, s.values)
    m.nullValueCounts.set(id, s.nulls)
    const lower = s.lowerBound
    const upper = s.upperBound
    if (lower !== undefined) m.lowerBounds.set(id, lower)
    if (upper !== undefined) m.upperBounds.set(id, upper)
  }
  return m
}
