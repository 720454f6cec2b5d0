import { describe, expect, it } from 'vitest'
import { parseFlussOffsets } from './fluss-offsets.js'
import { formatFlussOffsets, mergeFlussOffsets, operationOf } from './summary.js'
import { type DataFile, FileContent } from './types.js'

describe('fluss-offsets', () => {
  it('formats both shapes, sorted, and parses them back', () => {
    const text = formatFlussOffsets([
      { bucket: 1, offset: 9 },
      { bucket: 0, offset: 1234 },
    ])
    expect(text).toBe('[{"bucket":0,"offset":1234},{"bucket":1,"offset":9}]')
    expect(parseFlussOffsets(text)).toEqual([
      { bucket: 0, offset: 1234 },
      { bucket: 1, offset: 9 },
    ])
    const partitioned = '[{"partition_id":0,"partition_name":"date=2025","bucket":0,"offset":3}]'
    expect(formatFlussOffsets(parseFlussOffsets(partitioned))).toBe(partitioned)
    expect(parseFlussOffsets('[{"offset":3,"bucket":2,"partition_name":"p","partition_id":4}]')).toEqual([
      { partitionId: 4, partitionName: 'p', bucket: 2, offset: 3 },
    ])
  })

  it('refuses malformed offsets', () => {
    for (const bad of ['{}', '[1]', '[{"bucket":-1,"offset":0}]', '[{"bucket":0}]', 's3://path/offsets']) {
      expect(() => parseFlussOffsets(bad)).toThrow(
        expect.objectContaining({ name: 'FlussError(CORRUPT_MESSAGE)' }),
      )
    }
  })

  it('merges per bucket and never moves a bucket back', () => {
    const base = [
      { bucket: 0, offset: 5 },
      { partitionId: 1, bucket: 0, offset: 7 },
    ]
    expect(
      mergeFlussOffsets(base, [
        { bucket: 0, offset: 6 },
        { bucket: 2, offset: 1 },
      ]),
    ).toEqual([
      { bucket: 0, offset: 6 },
      { partitionId: 1, bucket: 0, offset: 7 },
      { bucket: 2, offset: 1 },
    ])
    expect(() => mergeFlussOffsets(base, [{ partitionId: 1, bucket: 0, offset: 6 }])).toThrow(
      expect.objectContaining({ name: 'FlussError(INVALID_REQUEST)' }),
    )
    expect(() => mergeFlussOffsets(base, [{ bucket: 0.5, offset: 6 }])).toThrow(
      expect.objectContaining({ name: 'FlussError(INVALID_REQUEST)' }),
    )
  })

  it('names the operation as RowDelta does', () => {
    const f = (content: DataFile['content']) => ({ content }) as DataFile
    expect(operationOf([f(FileContent.DATA)])).toBe('append')
    expect(operationOf([f(FileContent.DATA), f(FileContent.EQUALITY_DELETES)])).toBe('overwrite')
    expect(operationOf([f(FileContent.EQUALITY_DELETES)])).toBe('delete')
  })
})
