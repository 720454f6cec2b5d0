import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { DuckDBInstance } from '@duckdb/node-api'
import { ArrowBatchWriter, DEFAULT_COMPRESSION, initArrowCodecs } from '@sluice/core/arrow'
import { Decimal, type Row, Timestamp, type Value } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { parquetMetadata } from 'hyparquet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NESTED_FIELD_ID_BASE } from '../iceberg/nested-schema.js'
import { readParquetById } from '../scan/lake-files.js'
import { lakeSourceOf } from '../scan/scan-snapshot.js'
import { type TableSpec, tableInfoOf } from '../testing/tables.js'
import { type TableFiles, type TempLakeFiles, tempLakeFiles } from '../testing/temp-lake-files.js'
import { ArrowDataFileWriter } from './arrow-data-file-writer.js'

/** Data files of tables with list, map and struct columns: both writers, field ids, metrics. */

const SPEC: TableSpec = {
  name: 'nested_files',
  columns: [
    ['id', notNull(DataTypes.BIGINT())],
    ['tiny', DataTypes.ARRAY(DataTypes.TINYINT())],
    [
      'attrs',
      DataTypes.MAP(
        DataTypes.STRING(),
        DataTypes.ROW([
          { name: 'amount', type: DataTypes.DECIMAL(10, 2), fieldId: 0 },
          { name: 'at', type: DataTypes.TIMESTAMP(9), fieldId: 0 },
        ]),
      ),
    ],
  ],
}
const INFO = tableInfoOf(SPEC)
const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)

function row(i: number): Row {
  return [
    BigInt(i),
    i % 3 === 0 ? null : [i, -i, null],
    i % 4 === 0
      ? map()
      : map(
          [`k${i}`, [new Decimal(BigInt(i * 101), 2), new Timestamp(1_700_000_000_000 + i, 123_456)]],
          ['n', null],
        ),
  ]
}

function flussBatch(rows: readonly Row[]): Uint8Array {
  const w = new ArrowBatchWriter(INFO.rowType, { compression: DEFAULT_COMPRESSION })
  for (const r of rows) w.addRow(r)
  return w.finish()
}

describe('data files with nested columns', () => {
  let lake: TempLakeFiles
  let table: TableFiles
  let db: DuckDBInstance

  beforeAll(async () => {
    await initArrowCodecs()
    lake = await tempLakeFiles()
    table = lake.table(INFO)
    db = await DuckDBInstance.create(':memory:')
  })
  afterAll(async () => {
    db.closeSync()
    await lake.close()
  })

  async function query(sql: string): Promise<Record<string, unknown>[]> {
    const c = await db.connect()
    try {
      return (await c.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[]
    } finally {
      c.closeSync()
    }
  }

  it('writes the same rows through the pass-through and row paths, with an id on every nested field', async () => {
    const rows = Array.from({ length: 9 }, (_, i) => row(i))
    const writer = new ArrowDataFileWriter(table.writeContext(), 1, [1])
    await writer.write({
      arrow: flussBatch(rows),
      rowType: INFO.rowType,
      baseOffset: 0,
      commitTimestampMs: 7,
    })
    const [file] = await writer.finish()
    const rowPath = table.newDataFileWriter(1)
    await rowPath.write(rows.map((r, i) => ({ row: r, offset: i, timestampMs: 7 })))
    const [reference] = await rowPath.finish()

    const path = fileURLToPath(file.filePath)
    const select = (p: string) =>
      `select id, tiny, attrs::varchar attrs from read_parquet('${p}', hive_partitioning=false) order by __offset`
    const read = await query(select(path))
    expect(read).toEqual(await query(select(fileURLToPath(reference.filePath))))
    expect(read[1]).toMatchObject({ tiny: [1, -1, null] })

    // Lake types inside: TINYINT elements as INT32, TIMESTAMP(9) at microseconds; Iceberg ids on
    // the list element, map key and value, and struct fields (not on the list/key_value groups).
    const schema = table.writeContext().schema
    const bytes = await readFile(path)
    const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    const ids = md.schema.slice(1).map(e => [e.name, e.field_id ?? null, e.type ?? null])
    const nested = (owner: number, k: number) => NESTED_FIELD_ID_BASE + owner * 1000 + k
    expect(ids).toEqual([
      ['id', 1, 'INT64'],
      ['tiny', 2, null],
      ['list', null, null],
      ['element', nested(1, 0), 'INT32'],
      ['attrs', 3, null],
      ['entries', null, null],
      ['key', nested(2, 0), 'BYTE_ARRAY'],
      ['value', nested(2, 1), null],
      ['amount', 4, 'INT64'],
      ['at', 5, 'INT64'],
      ['__bucket', schema.columns[3].fieldId, 'INT32'],
      ['__offset', schema.columns[4].fieldId, 'INT64'],
      ['__timestamp', schema.columns[5].fieldId, 'INT64'],
    ])
    // Metrics of primitive fields only: list, map and struct columns get no counts.
    for (const f of [file, reference]) {
      expect(f.valueCounts?.get(1)).toBe(9)
      expect(f.valueCounts?.has(2) || f.valueCounts?.has(3)).toBe(false)
    }

    // Our reader reads both back by field id, nested values included.
    const back = await readParquetById(lakeSourceOf(table.writeContext().io), file.filePath)
    expect(back.rows.map(r => r.slice(0, 3))).toEqual(
      rows.map(r => [r[0], r[1], r[2] === null ? null : lakeAttrs(r[2] as Map<Value, Value>)]),
    )
  })
})

/** TIMESTAMP(9) values truncated to microseconds, as the lake keeps them. */
function lakeAttrs(m: Map<Value, Value>): Map<Value, Value> {
  return new Map(
    [...m].map(([k, v]) => {
      if (v === null) return [k, null]
      const [amount, at] = v as [Decimal, Timestamp]
      return [k, [amount, new Timestamp(at.millis, Math.floor(at.nanoOfMillis / 1000) * 1000)]]
    }),
  )
}
