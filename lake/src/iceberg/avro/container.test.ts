import avro from 'avsc'
import { describe, expect, it } from 'vitest'
import { readManifestList } from '../manifest-list-reader.js'
import { readAvroFile, writeAvroFile } from './container.js'

const SCHEMA = {
  type: 'record',
  name: 'r',
  fields: [
    { name: 'id', type: 'long', 'field-id': 1 },
    { name: 'opt', type: ['null', { type: 'long' }], default: null, 'field-id': 2 },
    { name: 'b', type: ['null', 'bytes'], default: null, 'field-id': 3 },
  ],
}

describe('Avro container files', () => {
  it('round-trips 64-bit longs exactly and writes the schema with its field ids', () => {
    const records = [
      { id: 2n ** 62n + 1n, opt: null, b: Buffer.from([1, 2]) },
      { id: 5, opt: -(2n ** 63n), b: null },
    ]
    for (const codec of ['deflate', 'null'] as const) {
      const bytes = writeAvroFile(SCHEMA as never, records, { codec, metadata: { 'format-version': '2' } })
      const file = readAvroFile(bytes)
      expect(file.metadata['format-version']).toBe('2')
      expect(file.metadata['avro.codec']).toBe(codec)
      expect(file.schema).toEqual(SCHEMA)
      expect(file.records.map(r => ({ ...(r as object) }))).toEqual([
        { id: 2n ** 62n + 1n, opt: null, b: Buffer.from([1, 2]) },
        { id: 5n, opt: -(2n ** 63n), b: null },
      ])
    }
  })

  it('is readable by avsc itself', async () => {
    const bytes = writeAvroFile(SCHEMA as never, [{ id: 7, opt: 8, b: null }])
    const decoder = new avro.streams.BlockDecoder()
    const out: unknown[] = []
    await new Promise((resolve, reject) => {
      decoder
        .on('data', r => out.push(r))
        .on('end', resolve)
        .on('error', reject)
      decoder.end(Buffer.from(bytes))
    })
    expect(out).toEqual([{ id: 7, opt: 8, b: null }])
  })

  it('refuses corrupt files with CORRUPT_MESSAGE', () => {
    const good = writeAvroFile(SCHEMA as never, [{ id: 1, opt: null, b: null }])
    const corrupt = { name: 'FlussError(CORRUPT_MESSAGE)' }
    expect(() => readAvroFile(new Uint8Array([1, 2, 3, 4, 5]))).toThrow(expect.objectContaining(corrupt))
    expect(() => readAvroFile(good.subarray(0, good.length - 3))).toThrow(expect.objectContaining(corrupt))
    const badSync = Uint8Array.from(good)
    badSync[badSync.length - 1] ^= 0xff
    expect(() => readAvroFile(badSync)).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/sync marker/) }),
    )
    const deflated = writeAvroFile(SCHEMA as never, [], { codec: 'deflate' })
    const text = Buffer.from(deflated).toString('latin1').replace('deflate', 'xsnappy')
    expect(() => readAvroFile(Buffer.from(text, 'latin1'))).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/codec/) }),
    )
  })

  it('reads manifest lists by field id whatever the writer named the fields', () => {
    const athenaStyle = {
      type: 'record',
      name: 'manifest_file',
      fields: [
        { name: 'manifest_path', type: 'string', 'field-id': 500 },
        { name: 'manifest_length', type: 'long', 'field-id': 501 },
        { name: 'partition_spec_id', type: 'int', 'field-id': 502 },
        { name: 'content', type: 'int', 'field-id': 517 },
        { name: 'sequence_number', type: 'long', 'field-id': 515 },
        { name: 'min_sequence_number', type: 'long', 'field-id': 516 },
        { name: 'added_snapshot_id', type: 'long', 'field-id': 503 },
        { name: 'added_data_files_count', type: 'int', 'field-id': 504 },
        { name: 'existing_data_files_count', type: 'int', 'field-id': 505 },
        { name: 'deleted_data_files_count', type: 'int', 'field-id': 506 },
        { name: 'added_rows_count', type: 'long', 'field-id': 512 },
        { name: 'existing_rows_count', type: 'long', 'field-id': 513 },
        { name: 'deleted_rows_count', type: 'long', 'field-id': 514 },
      ],
    }
    const bytes = writeAvroFile(athenaStyle as never, [
      {
        manifest_path: 's3://b/m.avro',
        manifest_length: 100,
        partition_spec_id: 0,
        content: 0,
        sequence_number: 3,
        min_sequence_number: 2,
        added_snapshot_id: 6838723292707092922n,
        added_data_files_count: 4,
        existing_data_files_count: 5,
        deleted_data_files_count: 0,
        added_rows_count: 40,
        existing_rows_count: 50,
        deleted_rows_count: 0,
      },
    ])
    const [m] = readManifestList(bytes)
    expect(m).toMatchObject({
      addedSnapshotId: 6838723292707092922n,
      addedFilesCount: 4,
      existingFilesCount: 5,
      sequenceNumber: 3,
      partitions: null,
    })
  })
})
