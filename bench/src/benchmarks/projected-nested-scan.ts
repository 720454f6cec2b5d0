import { Timestamp, type Value } from '@sluice/core/row'
import { type DataType, DataTypes, parseTypeString } from '@sluice/core/types'
import { projectedScanBenchmark, type ScanShape } from './projected-scan.js'

const GROUP = 4

/** Six nested columns, four STRING and four DOUBLE columns, and the id. */
function columns(): [string, DataType][] {
  const cols: [string, DataType][] = [
    ['id', DataTypes.BIGINT()],
    ['tags', parseTypeString('ARRAY<STRING>')],
    ['attrs', parseTypeString('MAP<STRING, DOUBLE>')],
    ['point', parseTypeString('ROW<x INT, y DOUBLE, label STRING>')],
    ['events', parseTypeString('ARRAY<ROW<at TIMESTAMP_LTZ(3), v DOUBLE>>')],
    ['scores', parseTypeString('MAP<STRING, ARRAY<INT>>')],
    ['readings', parseTypeString('ARRAY<MAP<STRING, ROW<vs ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>>')],
  ]
  for (let i = 0; i < GROUP; i++) cols.push([`s_${String(i).padStart(2, '0')}`, DataTypes.STRING()])
  for (let i = 0; i < GROUP; i++) cols.push([`d_${String(i).padStart(2, '0')}`, DataTypes.DOUBLE()])
  return cols
}

const at = (ms: number) => Timestamp.fromNanos(BigInt(ms) * 1_000_000n)

function row(n: number): Value[] {
  const k = (n * 2654435761) >>> 0
  const r: Value[] = [
    BigInt(n),
    Array.from({ length: n % 4 }, (_, j) => `tag-${j}-${k % 1000}`),
    new Map<Value, Value>(Array.from({ length: n % 3 }, (_, j) => [`a${j}`, n * 0.25 + j])),
    n % 10 === 0 ? null : [n | 0, n / 8, `p-${k % 97}`],
    Array.from({ length: (n % 3) + 1 }, (_, j) => [at(1_700_000_000_000 + n * 10 + j), j * 1.5]),
    new Map<Value, Value>([[`s${n % 5}`, Array.from({ length: n % 4 }, (_, j) => (k + j) | 0)]]),
    [
      new Map<Value, Value>([
        ['m', [Array.from({ length: n % 3 }, (_, j) => j * 0.5), at(1_700_000_000_000 + n)]],
      ]),
    ],
  ]
  for (let i = 0; i < GROUP; i++) r.push(`v${i}-${(k + i * 40503) >>> 0}-${n % 97}`)
  for (let i = 0; i < GROUP; i++) r.push(n * 0.001 + i * 1.5)
  return r
}

/** The id and one nested column (a ROW of INT, DOUBLE and STRING). */
const NESTED: ScanShape = { rows: 30_000, columns, row, projected: ['id', 'point'] }

/**
 * A projected scan of one nested column: the byte bound of projected-scan (received ≤ 1.15 × the
 * projected columns' share × the full scan's bytes) on a table of ARRAY, MAP and ROW columns.
 */
export const projectedNestedScan = projectedScanBenchmark(NESTED, {
  name: 'projected-nested-scan',
  fullName: 'full scan (15 columns, 6 nested)',
  description:
    'LogScanner rows/s reading 30,000 rows of a 15-column table (id; ARRAY<STRING>, MAP<STRING, DOUBLE>, ROW<x INT, y DOUBLE, label STRING>, ARRAY<ROW<…>>, MAP<STRING, ARRAY<INT>>, ARRAY<MAP<STRING, ROW<ARRAY<FLOAT>, TIMESTAMP_LTZ(3)>>>; 4 STRING, 4 DOUBLE; ZSTD; 4 equal buckets; 1 tablet server in a LocalCluster) with the projection (id, point) pushed down (subject) vs the full scan (baseline); extras: bytes received, the share of the projected columns in the column bytes (their buffers and their children’s), and received / (share × full).',
})
