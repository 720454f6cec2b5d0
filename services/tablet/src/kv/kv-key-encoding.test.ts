import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { KvRecordBatchBuilder } from '@sluice/core/kvbatch'
import { Schema, TableDescriptor, TableInfo } from '@sluice/core/metadata'
import {
  CompactedRowEncoder,
  decodeCompactedRow,
  decodeValue,
  keyEncoderFor,
  type Row,
} from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { TestingKvBucket } from '../testing/kv.js'
import { kvKeyEncoding } from './kv-key-encoding.js'

const ICEBERG = { 'table.datalake.format': 'iceberg', 'table.kv.format-version': '2' }

function lakeTable(pk: string[], properties: Record<string, string> = ICEBERG): TableInfo {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.BIGINT())
    .column('name', DataTypes.STRING())
    .column('v', DataTypes.STRING())
    .primaryKey(...pk)
    .build()
  const descriptor = TableDescriptor.builder().schema(schema).distributedBy(4).properties(properties).build()
  return TableInfo.of({ databaseName: 'db', tableName: 'lake' }, 1, 1, descriptor, 0, 0)
}

/** A KV batch keyed as a client keys it (the table's `keyEncoderFor` selection). */
function batch(info: TableInfo, rows: readonly (Row | { delete: Row })[]): Buffer {
  const keys = keyEncoderFor(info).key
  const values = new CompactedRowEncoder(info.rowType)
  const builder = new KvRecordBatchBuilder({ schemaId: 1, writeLimitBytes: 1 << 20 })
  for (const r of rows) {
    if (Array.isArray(r)) builder.append(keys.encodeKey(r), values.encode(r))
    else builder.append(keys.encodeKey((r as { delete: Row }).delete), null)
  }
  return Buffer.from(builder.build())
}

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

async function lookupRows(info: TableInfo, keyRows: Row[]): Promise<(Row | null)[]> {
  const keys = keyRows.map(r => keyEncoderFor(info).key.encodeKey(r))
  const values = await bucket.kv.lookup(keys)
  return values.map(v => (v === null ? null : decodeCompactedRow(decodeValue(v).row, info.rowType)))
}

describe('kvKeyEncoding', () => {
  it('re-keys the changelog with the Iceberg encoder when the KV store is rebuilt', async () => {
    const info = lakeTable(['id'])
    bucket = await TestingKvBucket.open(info.schema, ICEBERG, kvKeyEncoding(info))
    await bucket.kv.putAsLeader(
      batch(info, [
        [1n, 'a', 'one'],
        [2n, 'b', 'two'],
        [3n, 'c', 'three'],
      ]),
    )
    await bucket.kv.putAsLeader(batch(info, [{ delete: [2n, null, null] }, [3n, 'c', 'THREE']]))
    await bucket.acknowledge()
    await bucket.kv.close()
    await rm(join(bucket.dir, 'kv'), { recursive: true, force: true })
    await bucket.reopenKv()
    const probe: Row[] = [
      [1n, null, null],
      [2n, null, null],
      [3n, null, null],
    ]
    expect(await lookupRows(info, probe)).toEqual([[1n, 'a', 'one'], null, [3n, 'c', 'THREE']])
    // An update after recovery finds the old row under the same key (-U/+U, not a second +I).
    const put = await bucket.kv.putAsLeader(batch(info, [[1n, 'a', 'uno']]))
    expect(put.changelogRecords).toBe(2)
    // Rebuilt with Fluss's compacted keys instead, the rows are stored under keys clients never send.
    await bucket.kv.close()
    await rm(join(bucket.dir, 'kv'), { recursive: true, force: true })
    await bucket.reopenKv({ primaryKeyEncoder: undefined, primaryKeyDecoder: undefined })
    expect(await lookupRows(info, probe)).toEqual([null, null, null])
  })

  it('decodes Iceberg keys for insert-if-not-exists lookups', async () => {
    const info = lakeTable(['id'])
    bucket = await TestingKvBucket.open(info.schema, ICEBERG, kvKeyEncoding(info))
    const key = keyEncoderFor(info).key.encodeKey([7n, null, null])
    await bucket.kv.insertIfNotExists([key])
    await bucket.acknowledge()
    expect(await lookupRows(info, [[7n, null, null]])).toEqual([[7n, null, null]])
  })

  it('keys tables whose bucket key differs from the primary key compactly', async () => {
    const schema = lakeTable(['id', 'name']).schema
    const descriptor = TableDescriptor.builder()
      .schema(schema)
      .distributedBy(4, 'id')
      .properties(ICEBERG)
      .build()
    const prefixTable = TableInfo.of({ databaseName: 'db', tableName: 'lake' }, 1, 1, descriptor, 0, 0)
    const encoding = kvKeyEncoding(prefixTable)
    const encoder = encoding.primaryKeyEncoder(prefixTable.rowType, prefixTable.physicalPrimaryKeys)
    expect(encoder.encodeKey([42n, 'ab', null]).toString('hex')).toBe('2a026162')
    const decoder = encoding.primaryKeyDecoder(prefixTable.rowType, prefixTable.physicalPrimaryKeys)
    expect(decoder.decodeKey(Buffer.from('2a026162', 'hex'))).toEqual([42n, 'ab'])
  })

  it('opens tables whose keys cannot be encoded, refusing only when a key is encoded or decoded', async () => {
    const info = lakeTable(['id', 'name'])
    bucket = await TestingKvBucket.open(info.schema, ICEBERG, kvKeyEncoding(info))
    const refused = expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' })
    await expect(async () => bucket.kv.insertIfNotExists([Buffer.from('01', 'hex')])).rejects.toThrow(refused)
    const encoder = kvKeyEncoding(info).primaryKeyEncoder(info.rowType, info.physicalPrimaryKeys)
    expect(() => encoder.encodeKey([1n, 'a', null])).toThrow(refused)
  })
})
