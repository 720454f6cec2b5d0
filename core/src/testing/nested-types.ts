import { Decimal, type Row, Timestamp, type Value } from '../row/value.js'
import { type DataType, DataTypes, notNull, type RowField, type RowType } from '../types/data-type.js'

/**
 * Test data with nested columns, shared by the Arrow and row-format tests: ARRAY, MAP and ROW
 * columns nested several levels deep (Fluss 0.9's example `ARRAY<MAP<STRING, ROW<values
 * ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>>` among them), with nulls at every level, empty arrays and
 * maps, NOT NULL fields inside nullable rows, and flat columns around them.
 */

function fields(...named: [string, DataType][]): RowField[] {
  return named.map(([name, type], i) => ({ name, type, fieldId: 100 + i }))
}

export const POINT = DataTypes.ROW(fields(['x', notNull(DataTypes.INT())], ['label', DataTypes.STRING()]))
export const SAMPLE = DataTypes.ROW(
  fields(['values', DataTypes.ARRAY(DataTypes.FLOAT())], ['ts', DataTypes.TIMESTAMP_LTZ(3)]),
)

export const NESTED_TYPES: RowType = DataTypes.ROW(
  [
    ['id', notNull(DataTypes.INT())],
    ['tags', DataTypes.ARRAY(DataTypes.STRING())],
    ['scores', DataTypes.MAP(DataTypes.STRING(), DataTypes.DOUBLE())],
    ['point', POINT],
    ['samples', DataTypes.ARRAY(DataTypes.MAP(DataTypes.STRING(), SAMPLE))],
    ['matrix', notNull(DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.BIGINT())))],
    ['by_id', DataTypes.MAP(DataTypes.INT(), DataTypes.ARRAY(POINT))],
    ['money', DataTypes.ARRAY(DataTypes.DECIMAL(20, 4))],
    ['note', DataTypes.STRING()],
  ].map(([name, type], fieldId) => ({ name: name as string, type: type as DataType, fieldId })),
)

const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)

export const NESTED_ROWS: Row[] = [
  [
    1,
    ['a', 'bb', 'héllo wörld ✓'],
    map(['math', 1.5], ['art', -0]),
    [7, 'seven'],
    [map(['m1', [[1, 2.5], new Timestamp(1_700_000_000_000)]], ['m2', null]), null, map()],
    [[1n, 2n], [], [-(2n ** 63n)]],
    map([1, [[1, 'one'], null]], [2, []], [3, null]),
    [new Decimal(12_345_678_901_234_567n, 4), null],
    'first',
  ],
  [2, null, null, null, null, [], null, null, null],
  [3, [], map(), [-1, null], [], [[null, 5n], null], map([-7, [[0, '']]]), [], 'x'.repeat(300)],
  [
    4,
    [null, '', null],
    map(['only', null]),
    [0, '日本語 🎉'],
    [map(['z', [null, null]], ['y', [[], new Timestamp(-1)]])],
    [[3n]],
    map(),
    [new Decimal(-1n, 4), new Decimal(0n, 4)],
    null,
  ],
]
