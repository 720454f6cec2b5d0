import { Decimal, Timestamp, type Value } from '@sluice/core/row'
import { type Canonical, type ColumnSpec, parseType, type TableSpec, toCanonical } from './canonical.js'

/**
 * The nested-types dataset of the compatibility suite: ARRAY, MAP and ROW columns, Fluss 0.9's own
 * example (`ARRAY<MAP<STRING, ROW<values ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>>`), a
 * `MAP<STRING, ARRAY<ROW<…>>>`, and a ROW holding every other leaf type (BYTES, DATE, TIME, CHAR,
 * DECIMAL, a MAP with INT keys, TIMESTAMP_LTZ(9)). Rows carry nulls at every depth: a null column,
 * null elements, null map values, null ROW fields, and empty arrays and maps.
 */
export const NESTED_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', type: 'INT', nullable: false },
  { name: 'tags', type: 'ARRAY<STRING>' },
  { name: 'attrs', type: 'MAP<STRING, BIGINT>' },
  { name: 'point', type: 'ROW<x INT, y DOUBLE, label STRING>' },
  { name: 'readings', type: 'ARRAY<MAP<STRING, ROW<`values` ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>>' },
  { name: 'by_key', type: 'MAP<STRING, ARRAY<ROW<n INT, amount DECIMAL(20, 4), at TIMESTAMP(9)>>>' },
  {
    name: 'misc',
    type: 'ROW<payload BYTES, born DATE, t TIME, code CHAR(3), price DECIMAL(10, 2), flags MAP<INT, BOOLEAN>, ltz TIMESTAMP_LTZ(9)>',
  },
]

export const NESTED_NAMES = NESTED_COLUMNS.map(c => c.name)
const TYPES = NESTED_COLUMNS.map(c => parseType(c.type, c.nullable ?? true))

const ms = (n: number) => Timestamp.fromNanos(BigInt(n) * 1_000_000n)

/** null for every `every`-th row (shifted by `shift`), else `v()`. */
const sometimes = (i: number, every: number, shift: number, v: () => Value): Value =>
  (i + shift) % every === 0 ? null : v()

/** The SDK values of row `i` of version `salt`. */
export function nestedValues(i: number, salt = 0): Value[] {
  const k = i + salt * 1000
  const tags = sometimes(i, 7, 1, () =>
    Array.from({ length: k % 4 }, (_, j) => (j === 1 && k % 3 === 0 ? null : `t${k}-${j}-ü`)),
  )
  const attrs = sometimes(i, 6, 2, () => {
    const m = new Map<Value, Value>()
    for (let j = 0; j < k % 3; j++) m.set(`a${j}`, j === 1 ? null : BigInt(k) * 1_000_003n - 2n ** 40n)
    return m
  })
  const point = sometimes(i, 5, 3, () => [k, k / 8, k % 4 === 0 ? null : `p${k}`])
  const readings = sometimes(i, 9, 4, () =>
    Array.from({ length: (k % 3) + 1 }, (_, j) =>
      j === 2
        ? null
        : new Map<Value, Value>([
            [`s${j}`, [Array.from({ length: j + (k % 2) }, (_, e) => (k + e) * 0.5), ms(k * 1000 + j)]],
            [`n${j}`, k % 5 === 0 ? null : [null, ms(-k * 1000)]],
          ]),
    ),
  )
  const byKey = sometimes(i, 8, 5, () => {
    const m = new Map<Value, Value>()
    for (let j = 0; j < (k % 3) + 1; j++) {
      m.set(
        `k${j}`,
        Array.from({ length: j }, (_, e) =>
          e === 1
            ? null
            : [
                k + e,
                new Decimal(BigInt(k) * 10n ** 14n + BigInt(e), 4),
                Timestamp.fromNanos(BigInt(k) * 1_000_000_007n),
              ],
        ),
      )
    }
    return m
  })
  const misc = sometimes(i, 4, 0, () => [
    k % 3 === 0 ? null : new Uint8Array([k & 0xff, 0, 0x80, (k >> 8) & 0xff]),
    k - 500,
    ((k * 1237) % 86_400) * 1000,
    `c${k % 10}${k % 7}`,
    new Decimal(BigInt(k * 101 - 5000), 2),
    new Map<Value, Value>([
      [k, true],
      [-k - 1, k % 2 === 0 ? null : false],
    ]),
    Timestamp.fromNanos(BigInt(k) * 86_400_000_000_123n),
  ])
  return [i, tags, attrs, point, readings, byKey, misc]
}

/** The canonical text of row `i` (see canonical.ts), as every driver writes and reads it. */
export function nestedRow(i: number, salt = 0): Canonical[] {
  return nestedValues(i, salt).map((v, c) => toCanonical(v, TYPES[c]))
}

/** A nested-types table; `primaryKey` makes it a primary-key table on `id`. */
export function nestedTable(options: {
  buckets: number
  primaryKey?: boolean
  properties?: Record<string, string>
  columns?: readonly ColumnSpec[]
}): TableSpec {
  return {
    columns: options.columns ?? NESTED_COLUMNS,
    ...(options.primaryKey ? { primaryKey: ['id'] } : {}),
    buckets: options.buckets,
    properties: options.properties ?? {},
  }
}
