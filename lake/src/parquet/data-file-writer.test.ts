import { readFile, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { DuckDBInstance } from '@duckdb/node-api'
import { Decimal, type Row, Timestamp } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { parquetMetadata } from 'hyparquet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromBoundBytes } from '../iceberg/conversions.js'
import { BUCKET_FIELD_ID, OFFSET_FIELD_ID, TIMESTAMP_FIELD_ID } from '../iceberg/schema.js'
import { FileContent } from '../iceberg/types.js'
import { PARTITIONED_PK_TABLE, type TableSpec, tableInfoOf } from '../testing/tables.js'
import { type TableFiles, type TempLakeFiles, tempLakeFiles } from '../testing/temp-lake-files.js'

const ALL_TYPES: TableSpec = {
  name: 'all_types',
  columns: [
    ['id', notNull(DataTypes.BIGINT())],
    ['flag', DataTypes.BOOLEAN()],
    ['tiny', DataTypes.TINYINT()],
    ['small', DataTypes.SMALLINT()],
    ['i', DataTypes.INT()],
    ['f', DataTypes.FLOAT()],
    ['d', DataTypes.DOUBLE()],
    ['c', DataTypes.CHAR(3)],
    ['s', DataTypes.STRING()],
    ['b', DataTypes.BYTES()],
    ['fx', DataTypes.BINARY(4)],
    ['dec', DataTypes.DECIMAL(10, 2)],
    ['dec_wide', DataTypes.DECIMAL(30, 4)],
    ['day', DataTypes.DATE()],
    ['t', DataTypes.TIME(3)],
    ['ts', DataTypes.TIMESTAMP(9)],
    ['ltz', DataTypes.TIMESTAMP_LTZ(3)],
  ],
}

function row(i: number): Row {
  return [
    BigInt(i),
    i % 2 === 0,
    i - 3,
    i * 100,
    i * 1000,
    i / 4,
    i / 8,
    `c${i}`,
    i === 2 ? null : `name-${i}`,
    new Uint8Array([i, 1]),
    new Uint8Array([i, i, i, i]),
    new Decimal(BigInt(i * 101), 2),
    new Decimal(10n ** 25n + BigInt(i), 4),
    19_000 + i,
    3_600_000 + i,
    new Timestamp(1_700_000_000_000 + i, 123_456),
    new Timestamp(1_700_000_000_000 + i * 1000),
  ]
}

describe('Parquet data files', () => {
  let lake: TempLakeFiles
  let table: TableFiles
  let db: DuckDBInstance

  beforeAll(async () => {
    lake = await tempLakeFiles()
    table = lake.table(tableInfoOf(ALL_TYPES))
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

  it('writes every column with its field id, exact counts, sizes and UTC-adjusted micros', async () => {
    const writer = table.newDataFileWriter(1)
    await writer.write(
      [0, 1, 2, 3, 4].map(i => ({ row: row(i), offset: 10 + i, timestampMs: 1_700_000_100_000 + i })),
    )
    const [file] = await writer.finish()
    const path = fileURLToPath(file.filePath)
    expect(file.filePath).toMatch(/\/lake\/fluss\/all_types\/data\/__bucket=1\/[0-9a-f-]{36}\.parquet$/)
    expect(file).toMatchObject({
      content: FileContent.DATA,
      fileFormat: 'PARQUET',
      recordCount: 5,
      partition: [1],
      sortOrderId: 1,
    })
    expect(file.fileSizeInBytes).toBe((await stat(path)).size)

    const schema = await query(
      `select name, type, field_id, repetition_type, logical_type from parquet_schema('${path}') where field_id is not null`,
    )
    const ids = Object.fromEntries(schema.map(r => [r.name, Number(r.field_id)]))
    expect(ids).toMatchObject({
      id: 1,
      flag: 2,
      tiny: 3,
      ltz: 17,
      __bucket: BUCKET_FIELD_ID,
      __offset: OFFSET_FIELD_ID,
      __timestamp: TIMESTAMP_FIELD_ID,
    })
    const byName = Object.fromEntries(schema.map(r => [r.name, r]))
    expect(byName.id.repetition_type).toBe('REQUIRED')
    expect(byName.s.repetition_type).toBe('OPTIONAL')
    expect(byName.tiny.type).toBe('INT32')
    expect(byName.fx.type).toBe('FIXED_LEN_BYTE_ARRAY')
    expect(byName.t.logical_type).toMatch(/TimeType.*MICROS=MicroSeconds/)
    expect(byName.ts.logical_type).toMatch(/isAdjustedToUTC=0.*MICROS=MicroSeconds/)
    expect(byName.ltz.logical_type).toMatch(/isAdjustedToUTC=1.*MICROS=MicroSeconds/)
    expect(byName.__timestamp.logical_type).toMatch(/isAdjustedToUTC=1.*MICROS=MicroSeconds/)

    const bytes = await readFile(path)
    const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    expect(Number(md.num_rows)).toBe(file.recordCount)
    expect(md.schema.slice(1).every(e => typeof e.field_id === 'number')).toBe(true)
    const icebergSchema = JSON.parse(
      md.key_value_metadata?.find(kv => kv.key === 'iceberg.schema')?.value ?? '{}',
    )
    expect(icebergSchema.fields.map((f: { id: number }) => f.id)).toEqual(
      md.schema.slice(1).map(e => e.field_id),
    )

    const buckets = await query(
      `select distinct __bucket from read_parquet('${path}', hive_partitioning=false)`,
    )
    expect(buckets).toEqual([{ __bucket: file.partition[0] }])
    const rows = await query(
      `select id, tiny, c, s, dec, ts::varchar as ts, __bucket, __offset from read_parquet('${path}', hive_partitioning=false) order by id`,
    )
    expect(rows[2]).toEqual({
      id: '2',
      tiny: -1,
      c: 'c2',
      s: null,
      dec: '2.02',
      ts: '2023-11-14 22:13:20.002123',
      __bucket: 1,
      __offset: '12',
    })
  })

  it('records metrics only where certain, and they decode to the real min and max', async () => {
    const writer = table.newDataFileWriter(0)
    await writer.write([3, 1, 4, 2].map(i => ({ row: row(i), offset: i, timestampMs: 5_000 + i })))
    const [file] = await writer.finish()
    expect(file.sortOrderId).toBe(0)
    expect(file.valueCounts?.get(1)).toBe(4)
    expect(file.nullValueCounts?.get(9)).toBe(1)
    const bound = (id: number, type: string) => [
      fromBoundBytes(type, file.lowerBounds?.get(id) as Uint8Array),
      fromBoundBytes(type, file.upperBounds?.get(id) as Uint8Array),
    ]
    expect(bound(1, 'long')).toEqual([1n, 4n])
    expect(bound(3, 'int')).toEqual([-2, 1])
    expect(bound(9, 'string')).toEqual(['name-1', 'name-4'])
    expect(bound(12, 'decimal(10, 2)')).toEqual([101n, 404n])
    expect(bound(15, 'time')).toEqual([3_600_001_000n, 3_600_004_000n])
    expect(bound(16, 'timestamp')).toEqual([1_700_000_000_001_123n, 1_700_000_000_004_123n])
    expect(bound(OFFSET_FIELD_ID, 'long')).toEqual([1n, 4n])
    expect(bound(TIMESTAMP_FIELD_ID, 'timestamptz')).toEqual([5_001_000n, 5_004_000n])
    for (const noBounds of [6, 7, 10, 11]) expect(file.lowerBounds?.has(noBounds)).toBe(false)
  })

  it('rolls files at the target size and deletes them on abort', async () => {
    const small = lake.table(tableInfoOf(ALL_TYPES), { targetFileBytes: 64 * 1024, arrowBatchRows: 100 })
    const writer = small.newDataFileWriter(0)
    await writer.write(
      Array.from({ length: 3000 }, (_, i) => ({ row: row(i % 200), offset: i, timestampMs: i })),
    )
    const files = await writer.finish()
    expect(files.length).toBeGreaterThan(1)
    expect(files.reduce((n, f) => n + f.recordCount, 0)).toBe(3000)
    await writer.abort()
    for (const f of files) expect(await lake.io.size(f.filePath)).toBeUndefined()
  })

  it('refuses bad rows whole, with INVALID_REQUEST', async () => {
    const writer = table.newDataFileWriter(0)
    await expect(writer.write([{ row: [1n], offset: 0, timestampMs: 0 }])).rejects.toMatchObject({
      name: 'FlussError(INVALID_REQUEST)',
    })
    const bad = row(1)
    bad[4] = 'not an int'
    await expect(writer.write([{ row: bad, offset: 0, timestampMs: 0 }])).rejects.toMatchObject({
      name: 'FlussError(INVALID_REQUEST)',
    })
    await expect(writer.write([{ row: row(1), offset: -1, timestampMs: 0 }])).rejects.toMatchObject({
      name: 'FlussError(INVALID_REQUEST)',
    })
    expect(await writer.finish()).toEqual([])
  })
})

describe('equality delete files', () => {
  let lake: TempLakeFiles
  let table: TableFiles

  beforeAll(async () => {
    lake = await tempLakeFiles()
    table = lake.table(tableInfoOf(PARTITIONED_PK_TABLE))
  })
  afterAll(() => lake.close())

  it('hold only the primary-key columns with their field ids and equality ids', async () => {
    const file = await table.writeEqualityDeleteFile(3, [
      ['2024-01-01', 7n],
      ['2024-01-01', 9n],
    ])
    expect(file).toMatchObject({
      content: FileContent.EQUALITY_DELETES,
      recordCount: 2,
      equalityIds: [1, 2],
      partition: ['2024-01-01', 3],
    })
    expect(file.filePath).toContain('/data/dt=2024-01-01/__bucket=3/')
    const bytes = await readFile(fileURLToPath(file.filePath))
    const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    expect(md.schema.slice(1).map(e => [e.name, e.field_id, e.repetition_type])).toEqual([
      ['dt', 1, 'REQUIRED'],
      ['id', 2, 'REQUIRED'],
    ])
    expect(md.key_value_metadata?.find(kv => kv.key === 'delete-field-ids')?.value).toBe('1,2')
    expect(fromBoundBytes('long', file.upperBounds?.get(2) as Uint8Array)).toBe(9n)
  })

  it('data files hold one partition: a row of another partition is refused', async () => {
    const writer = table.newDataFileWriter(0)
    await writer.write([{ row: ['2024-01-01', 1n, 'a'], offset: 0, timestampMs: 0 }])
    await expect(
      writer.write([{ row: ['2024-01-02', 2n, 'b'], offset: 1, timestampMs: 0 }]),
    ).rejects.toMatchObject({
      name: 'FlussError(INVALID_REQUEST)',
    })
    const [file] = await writer.finish()
    expect(file).toMatchObject({ recordCount: 1, partition: ['2024-01-01', 0] })
  })

  it('refuse empty key lists, null keys and keys of several partitions', async () => {
    const invalid = { name: 'FlussError(INVALID_REQUEST)' }
    await expect(table.writeEqualityDeleteFile(0, [])).rejects.toMatchObject(invalid)
    await expect(table.writeEqualityDeleteFile(0, [['a', null]])).rejects.toMatchObject(invalid)
    await expect(
      table.writeEqualityDeleteFile(0, [
        ['a', 1n],
        ['b', 2n],
      ]),
    ).rejects.toMatchObject(invalid)
  })
})
