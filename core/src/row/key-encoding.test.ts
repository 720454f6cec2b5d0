import { describe, expect, it } from 'vitest'
import { bucketForKey, icebergBucketForKey } from '../bucketing/index.js'
import { Schema, TableDescriptor, TableInfo } from '../metadata/index.js'
import { DataTypes } from '../types/data-type.js'
import { IcebergKeyDecoder } from './iceberg-key-decoder.js'
import { IcebergKeyEncoder } from './iceberg-key-encoder.js'
import { CompactedKeyDecoder, CompactedKeyEncoder } from './key-encoder.js'
import { keyEncoderFor, primaryKeyDecoderOf, primaryKeyEncoderOf } from './key-encoding.js'

/** A table (id INT, name STRING, v STRING) with primary key `pk`, bucketed by `bucketKeys`. */
function table(pk: string[], bucketKeys: string[], properties: Record<string, string> = {}): TableInfo {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('name', DataTypes.STRING())
    .column('v', DataTypes.STRING())
    .primaryKey(...pk)
    .build()
  const descriptor = TableDescriptor.builder()
    .schema(schema)
    .distributedBy(8, ...bucketKeys)
    .properties(properties)
    .build()
  return TableInfo.of({ databaseName: 'db', tableName: 't' }, 1, 1, descriptor, 0, 0)
}

const ICEBERG_V2 = { 'table.datalake.format': 'iceberg', 'table.kv.format-version': '2' }
const ROW = [42, 'ab', 'value']
const hex = (b: Buffer) => b.toString('hex')

describe('keyEncoderFor', () => {
  it('uses Fluss encoding and bucketing for tables without a lake format', () => {
    const enc = keyEncoderFor(table(['id', 'name'], ['id'], { 'table.kv.format-version': '2' }))
    expect(enc.key).toBeInstanceOf(CompactedKeyEncoder)
    expect(hex(enc.key.encodeKey(ROW))).toBe('2a026162')
    expect(hex(enc.bucketKey.encodeKey(ROW))).toBe('2a')
    expect(enc.bucketing).toBe(bucketForKey)
  })

  it('keys an Iceberg table whose bucket key is its primary key with the Iceberg encoder', () => {
    const info = table(['id'], ['id'], ICEBERG_V2)
    const enc = keyEncoderFor(info)
    expect(enc.key).toBeInstanceOf(IcebergKeyEncoder)
    expect(enc.bucketKey).toBe(enc.key)
    expect(hex(enc.key.encodeKey(ROW))).toBe('2a00000000000000')
    expect(enc.bucketing).toBe(icebergBucketForKey)
    expect(enc.bucketing(enc.bucketKey.encodeKey(ROW), 10)).toBe(6)
    // Tables created before kv format versions (version 1) encode the same way.
    const legacy = keyEncoderFor(table(['id'], ['id'], { 'table.datalake.format': 'iceberg' }))
    expect(legacy.key).toBeInstanceOf(IcebergKeyEncoder)
  })

  it('keys kv format version 2 tables with another bucket key compactly, bucketed by Iceberg', () => {
    // The bytes Fluss 0.9.1's KeyEncoder.ofPrimaryKeyEncoder gives for (42, "ab").
    const enc = keyEncoderFor(table(['id', 'name'], ['id'], ICEBERG_V2))
    expect(enc.key).toBeInstanceOf(CompactedKeyEncoder)
    expect(hex(enc.key.encodeKey(ROW))).toBe('2a026162')
    expect(enc.bucketKey).toBeInstanceOf(IcebergKeyEncoder)
    expect(hex(enc.bucketKey.encodeKey(ROW))).toBe('2a00000000000000')
    expect(enc.bucketing).toBe(icebergBucketForKey)
  })

  it('encodes prefix lookup keys compactly and buckets them with the lake encoder', () => {
    const info = table(['id', 'name'], ['id'], ICEBERG_V2)
    const lookupRowType = DataTypes.ROW([info.rowType.fields[0]])
    const enc = keyEncoderFor(info, lookupRowType, info.bucketKeys)
    expect(hex(enc.key.encodeKey([42]))).toBe('2a')
    expect(hex(enc.bucketKey.encodeKey([42]))).toBe('2a00000000000000')
    // The prefix is a byte prefix of the stored primary keys.
    const stored = keyEncoderFor(info).key.encodeKey(ROW)
    expect(stored.subarray(0, 1).equals(enc.key.encodeKey([42]))).toBe(true)
  })

  it('shares one encoder for bucket and prefix keys of a table without a lake format', () => {
    const info = table(['id', 'name'], ['id'])
    const lookupRowType = DataTypes.ROW([info.rowType.fields[0]])
    const enc = keyEncoderFor(info, lookupRowType, info.bucketKeys)
    expect(enc.bucketKey).toBe(enc.key)
  })

  it('refuses Iceberg keys of several columns as Fluss does', () => {
    const message = 'Key fields must have exactly one field for iceberg format, but got: [id, name]'
    // The bucket key is the composite primary key.
    expect(() => keyEncoderFor(table(['id', 'name'], ['id', 'name'], ICEBERG_V2))).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION', message }),
    )
    // Version 1 encodes the composite primary key with the lake encoder.
    const v1 = { 'table.datalake.format': 'iceberg', 'table.kv.format-version': '1' }
    expect(() => keyEncoderFor(table(['id', 'name'], ['id'], v1))).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION', message }),
    )
  })

  it('keeps Fluss encoding and bucketing for Lance tables', () => {
    const enc = keyEncoderFor(table(['id'], ['id'], { 'table.datalake.format': 'lance' }))
    expect(enc.key).toBeInstanceOf(CompactedKeyEncoder)
    expect(enc.bucketing).toBe(bucketForKey)
  })

  it('refuses Paimon tables clearly', () => {
    const paimon = table(['id'], ['id'], { 'table.datalake.format': 'paimon' })
    expect(() => keyEncoderFor(paimon)).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_CONFIG_EXCEPTION',
        message: expect.stringContaining('paimon'),
      }),
    )
  })
})

describe('primaryKeyEncoderOf / primaryKeyDecoderOf', () => {
  it('pairs each encoder with its decoder', () => {
    const lake = table(['id'], ['id'], ICEBERG_V2)
    const encoder = primaryKeyEncoderOf(lake.rowType, ['id'], lake.tableConfig, true)
    const decoder = primaryKeyDecoderOf(lake.rowType, ['id'], lake.tableConfig, true)
    expect(decoder).toBeInstanceOf(IcebergKeyDecoder)
    expect(decoder.decodeKey(encoder.encodeKey(ROW))).toEqual([42])
    const compact = table(['id', 'name'], ['id'], ICEBERG_V2)
    const pk = ['id', 'name']
    const decoder2 = primaryKeyDecoderOf(compact.rowType, pk, compact.tableConfig, false)
    expect(decoder2).toBeInstanceOf(CompactedKeyDecoder)
    const bytes = primaryKeyEncoderOf(compact.rowType, pk, compact.tableConfig, false).encodeKey(ROW)
    expect(decoder2.decodeKey(bytes)).toEqual([42, 'ab'])
    const paimon = table(['id'], ['id'], { 'table.datalake.format': 'paimon' })
    expect(() => primaryKeyDecoderOf(paimon.rowType, ['id'], paimon.tableConfig, true)).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
    )
  })
})
