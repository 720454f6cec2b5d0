import { readFile, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { DuckDBInstance } from '@duckdb/node-api'
import { ArrowBatchWriter, DEFAULT_COMPRESSION, initArrowCodecs } from '@sluice/core/arrow'
import { Decimal, type Row, Timestamp } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { parquetMetadata } from 'hyparquet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromBoundBytes } from '../iceberg/conversions.js'
import { BUCKET_FIELD_ID, OFFSET_FIELD_ID, TIMESTAMP_FIELD_ID } from '../iceberg/schema.js'
import { type TableSpec, tableInfoOf } from '../testing/tables.js'
import { type TableFiles, type TempLakeFiles, tempLakeFiles } from '../testing/temp-lake-files.js'
import { ArrowDataFileWriter } from './arrow-data-file-writer.js'

const SPEC: TableSpec = {
  name: 'pass_through',
  columns: [
    ['id', notNull(DataTypes.BIGINT())],
    ['tiny', DataTypes.TINYINT()],
    ['c', DataTypes.CHAR(3)],
    ['s', DataTypes.STRING()],
    ['dec', DataTypes.DECIMAL(10, 2)],
    ['day', DataTypes.DATE()],
    ['t', DataTypes.TIME(3)],
    ['ts', DataTypes.TIMESTAMP(9)],
    ['ltz', DataTypes.TIMESTAMP_LTZ(3)],
  ],
}
const INFO = tableInfoOf(SPEC)

function row(i: number): Row {
  return [
    BigInt(i),
    i - 3,
    `c${i % 10}`,
    i === 2 ? null : `name-${i}`,
    new Decimal(BigInt(i * 101), 2),
    19_000 + i,
    3_600_000 + i,
    new Timestamp(1_700_000_000_000 + i, 123_456),
    new Timestamp(1_700_000_000_000 + i * 1000),
  ]
}

function flussBatch(rows: readonly Row[]): Uint8Array {
  const w = new ArrowBatchWriter(INFO.rowType, { compression: DEFAULT_COMPRESSION })
  for (const r of rows) w.addRow(r)
  return w.finish()
}

describe('pass-through data files (log tables)', () => {
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

  it('reads back exactly like the row path, with field ids, types, counts and certain bounds', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => row(i))
    const writer = new ArrowDataFileWriter(table.writeContext(), 2, [2])
    await writer.write({
      arrow: flussBatch(rows.slice(0, 6)),
      rowType: INFO.rowType,
      baseOffset: 100,
      commitTimestampMs: 5000,
    })
    await writer.write({
      arrow: flussBatch(rows.slice(6)),
      rowType: INFO.rowType,
      baseOffset: 106,
      commitTimestampMs: 5007,
    })
    const [file] = await writer.finish()
    const rowPath = table.newDataFileWriter(2)
    await rowPath.write(rows.map((r, i) => ({ row: r, offset: 100 + i, timestampMs: i < 6 ? 5000 : 5007 })))
    const [reference] = await rowPath.finish()

    expect(file).toMatchObject({ recordCount: 10, partition: [2], sortOrderId: 1 })
    const path = fileURLToPath(file.filePath)
    expect(file.fileSizeInBytes).toBe((await stat(path)).size)
    const select = (p: string) =>
      `select * exclude (ts, ltz, __timestamp), ts::varchar ts, ltz::varchar ltz, __timestamp::varchar __timestamp from read_parquet('${p}', hive_partitioning=false) order by __offset`
    expect(await query(select(path))).toEqual(await query(select(fileURLToPath(reference.filePath))))

    const schema = await query(
      `select name, type, field_id, logical_type from parquet_schema('${path}') where field_id is not null`,
    )
    const byName = Object.fromEntries(schema.map(r => [r.name, r]))
    expect(Number(byName.__offset.field_id)).toBe(OFFSET_FIELD_ID)
    expect(byName.tiny.type).toBe('INT32')
    expect(byName.t.logical_type).toMatch(/MICROS=MicroSeconds/)
    expect(byName.ts.logical_type).toMatch(/isAdjustedToUTC=0.*MICROS=MicroSeconds/)
    expect(byName.ltz.logical_type).toMatch(/isAdjustedToUTC=1.*MICROS=MicroSeconds/)
    const bytes = await readFile(path)
    const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    expect(md.schema.slice(1).map(e => e.field_id)).toEqual(
      table.writeContext().schema.columns.map(c => c.fieldId),
    )

    expect(file.valueCounts?.get(1)).toBe(10)
    expect(file.nullValueCounts?.get(4)).toBe(1)
    const bound = (id: number, type: string) => [
      fromBoundBytes(type, file.lowerBounds?.get(id) as Uint8Array),
      fromBoundBytes(type, file.upperBounds?.get(id) as Uint8Array),
    ]
    expect(bound(BUCKET_FIELD_ID, 'int')).toEqual([2, 2])
    expect(bound(OFFSET_FIELD_ID, 'long')).toEqual([100n, 109n])
    expect(bound(TIMESTAMP_FIELD_ID, 'timestamptz')).toEqual([5_000_000n, 5_007_000n])
    expect(file.lowerBounds?.has(1)).toBe(false)
  })

  it('rolls files at the target size, deletes them on abort, and refuses damaged batches', async () => {
    const small = lake.table(INFO, { targetFileBytes: 64 * 1024 })
    const writer = new ArrowDataFileWriter(small.writeContext(), 0, [0])
    const batch = flussBatch(Array.from({ length: 500 }, (_, i) => row(i % 100)))
    for (let b = 0; b < 6; b++) {
      await writer.write({ arrow: batch, rowType: INFO.rowType, baseOffset: b * 500, commitTimestampMs: b })
    }
    const files = await writer.finish()
    expect(files.length).toBeGreaterThan(1)
    expect(files.reduce((n, f) => n + f.recordCount, 0)).toBe(3000)
    await writer.abort()
    for (const f of files) expect(await lake.io.size(f.filePath)).toBeUndefined()
    await expect(
      writer.write({
        arrow: batch.subarray(0, 100),
        rowType: INFO.rowType,
        baseOffset: 0,
        commitTimestampMs: 0,
      }),
    ).rejects.toMatchObject({ errorName: 'CORRUPT_RECORD_EXCEPTION' })
    expect(() => new ArrowDataFileWriter(small.writeContext(), 0, [])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
  })
})
