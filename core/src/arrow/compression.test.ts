import { compress as zstdCompressFresh, decompress as zstdDecompressFresh } from '@bokuweb/zstd-wasm'
import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { DataTypes, type RowType } from '../types/data-type.js'
import { ArrowBatchReader, readRecordBatchInfo } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import type { ArrowCompressionInfo } from './compression.js'
import {
  arrowCodecsInitialized,
  compressPayload,
  decompressPiece,
  initArrowCodecs,
  recompressRecordBatch,
  zstdFrameContentSize,
} from './compression.js'
import { CODEC_LZ4_FRAME, CODEC_ZSTD, readRecordBatchHeader } from './message.js'

const ROW_TYPE: RowType = DataTypes.ROW([{ name: 's', type: DataTypes.STRING(), fieldId: 0 }])

function withPrefix(prefix: bigint, payload: Uint8Array): Uint8Array {
  const piece = new Uint8Array(8 + payload.length)
  new DataView(piece.buffer).setBigInt64(0, prefix, true)
  piece.set(payload, 8)
  return piece
}

/** An LZ4-compressed message whose BodyCompression codec byte is switched to ZSTD. */
function messageClaimingZstd(): Uint8Array {
  const writer = new ArrowBatchWriter(ROW_TYPE, { compression: { type: 'LZ4_FRAME' } })
  writer.addRow(['x'.repeat(100)])
  const message = writer.finish()
  const h = readRecordBatchHeader(new DataView(message.buffer))
  const compression = h.frame.fb.tableRef(h.frame.header, 3, 'compression')
  message[h.frame.fb.field(compression, 0, 1)] = CODEC_ZSTD
  return message
}

describe('Arrow codecs', () => {
  // Runs first: this file's module state starts with ZSTD not initialized.
  it('refuses ZSTD with a clear error until initArrowCodecs() ran', async () => {
    expect(arrowCodecsInitialized()).toBe(false)
    expect(() => new ArrowBatchWriter(ROW_TYPE, { compression: { type: 'ZSTD' } })).toThrow(
      /await initArrowCodecs\(\)/,
    )
    expect(() => new ArrowBatchReader(messageClaimingZstd(), ROW_TYPE)).toThrow(/await initArrowCodecs\(\)/)
    await Promise.all([initArrowCodecs(), initArrowCodecs()])
    expect(arrowCodecsInitialized()).toBe(true)
    expect(() => new ArrowBatchReader(messageClaimingZstd(), ROW_TYPE)).toThrow(FlussError)
  })

  it('writes LZ4 frames with independent blocks and no checksums (what Fluss Java reads)', () => {
    const frame = compressPayload(CODEC_LZ4_FRAME, 0, new Uint8Array(1000).fill(3))
    expect([...frame.subarray(0, 4)]).toEqual([0x04, 0x22, 0x4d, 0x18])
    const flags = frame[4]
    expect(flags >> 6).toBe(1) // version 01
    expect((flags >> 5) & 1).toBe(1) // block independence
    expect(flags & 0b10100).toBe(0) // no block or content checksum
  })

  it('decodes stored pieces: empty, zero prefix, raw (-1) and compressed', () => {
    const data = new Uint8Array(500).map((_, i) => i % 7)
    for (const codec of [CODEC_ZSTD, CODEC_LZ4_FRAME]) {
      expect(decompressPiece(codec, new Uint8Array(0), 1000)).toEqual(new Uint8Array(0))
      expect(decompressPiece(codec, new Uint8Array(8), 1000)).toEqual(new Uint8Array(0))
      expect(decompressPiece(codec, withPrefix(-1n, data), 1000)).toEqual(data)
      const packed = withPrefix(500n, compressPayload(codec, 3, data))
      const out = decompressPiece(codec, packed, 1000)
      expect(out).toEqual(data)
      expect(out.byteOffset % 8).toBe(0)
      expect(Buffer.isBuffer(out)).toBe(false)
    }
  })

  it('rejects malformed pieces with CORRUPT_RECORD_EXCEPTION', () => {
    const data = new Uint8Array(500).fill(1)
    const cases: [number, Uint8Array, number][] = [
      [CODEC_ZSTD, new Uint8Array(5), 1000], // shorter than the prefix
      [CODEC_ZSTD, withPrefix(500n, compressPayload(CODEC_ZSTD, 3, data)), 499], // over the limit
      [CODEC_ZSTD, withPrefix(400n, compressPayload(CODEC_ZSTD, 3, data)), 1000], // frame says 500
      [CODEC_ZSTD, withPrefix(500n, new Uint8Array(20).fill(9)), 1000], // not a zstd frame
      [CODEC_ZSTD, withPrefix(500n, compressPayload(CODEC_ZSTD, 3, data).subarray(0, 10)), 1000], // truncated
      [CODEC_LZ4_FRAME, withPrefix(400n, compressPayload(CODEC_LZ4_FRAME, 0, data)), 1000],
      [CODEC_LZ4_FRAME, withPrefix(500n, new Uint8Array(20).fill(9)), 1000],
    ]
    for (const [codec, piece, max] of cases) {
      let error: unknown
      try {
        decompressPiece(codec, piece, max)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(FlussError)
      expect((error as FlussError).errorName).toBe('CORRUPT_RECORD_EXCEPTION')
    }
  })

  it('reads the zstd frame content size in every header form', () => {
    const frame = (descriptor: number, rest: number[]) =>
      Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, descriptor, ...rest, 0, 0])
    expect(zstdFrameContentSize(frame(0x20, [42]))).toBe(42) // single segment, 1-byte size
    expect(zstdFrameContentSize(frame(0x00, [0x50]))).toBeUndefined() // window descriptor, no size
    expect(zstdFrameContentSize(frame(0x40, [0x50, 1, 0]))).toBe(257) // 2-byte size + 256
    expect(zstdFrameContentSize(frame(0x81, [0x50, 7, 1, 0, 0, 0]))).toBe(1) // dictionary id, 4-byte size
    expect(zstdFrameContentSize(frame(0xe0, [5, 0, 0, 0, 0, 0, 0, 0]))).toBe(5) // 8-byte size
    expect(() => zstdFrameContentSize(frame(0x28, [1]))).toThrow(FlussError) // reserved bit
  })

  it('reuses one ZSTD context: frames equal fresh-context frames, carry no dictionary id, and round-trip', () => {
    const sample = (size: number, seed: number) =>
      new Uint8Array(size).map((_, i) => ((i * seed + (i >> 4)) % 53) + 32)
    const inputs = [sample(70_000, 7), sample(17, 3), sample(4096, 11), sample(70_000, 7), sample(1, 5)]
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))
    const frames = inputs.map(input => compressPayload(CODEC_ZSTD, 3, input))
    frames.forEach((frame, i) => {
      // Same bytes as the package's one-shot compress (a fresh context per call).
      expect(same(frame, zstdCompressFresh(inputs[i], 3))).toBe(true)
      expect(frame[4] & 3).toBe(0) // Frame_Header_Descriptor: Dictionary_ID_flag 0
      expect(same(zstdDecompressFresh(frame, { defaultHeapSize: inputs[i].length }), inputs[i])).toBe(true)
      const piece = withPrefix(BigInt(inputs[i].length), frame)
      expect(same(decompressPiece(CODEC_ZSTD, piece, 1 << 20), inputs[i])).toBe(true)
    })
    // The context keeps no state between frames: the same input gives the same frame again.
    expect(same(frames[3], frames[0])).toBe(true)
    expect(compressPayload(CODEC_ZSTD, 9, inputs[2]).length).toBeLessThanOrEqual(frames[2].length)
  })

  it('keeps the ZSTD decompression context usable after a corrupt frame', () => {
    const data = new Uint8Array(2000).map((_, i) => i % 13)
    const frame = compressPayload(CODEC_ZSTD, 3, data)
    const broken = frame.slice()
    broken.fill(0xee, 8, broken.length - 2)
    expect(() => decompressPiece(CODEC_ZSTD, withPrefix(2000n, broken), 4000)).toThrow(FlussError)
    expect(decompressPiece(CODEC_ZSTD, withPrefix(2000n, frame), 4000)).toEqual(data)
  })

  it('recompresses a RecordBatch buffer by buffer, exactly as the writer compresses', () => {
    const rowType: RowType = DataTypes.ROW([
      { name: 'id', type: DataTypes.BIGINT(), fieldId: 0 },
      { name: 's', type: DataTypes.STRING(), fieldId: 1 },
      { name: 'n', type: DataTypes.INT(), fieldId: 2 },
    ])
    const encode = (compression: ArrowCompressionInfo) => {
      const writer = new ArrowBatchWriter(rowType, { compression })
      for (let i = 0; i < 300; i++) writer.addRow([BigInt(i), i % 3 === 0 ? null : `value-${i % 17}`, 7])
      writer.addRow([-1n, '', null])
      return writer.finish()
    }
    const plain = encode({ type: 'NONE' })
    const zstd = recompressRecordBatch(plain, { type: 'ZSTD', level: 3 }, 1 << 20)
    expect(Buffer.from(zstd).equals(Buffer.from(encode({ type: 'ZSTD', level: 3 })))).toBe(true)
    const lz4 = recompressRecordBatch(zstd, { type: 'LZ4_FRAME' }, 1 << 20)
    expect(Buffer.from(lz4).equals(Buffer.from(encode({ type: 'LZ4_FRAME' })))).toBe(true)
    const back = recompressRecordBatch(lz4, { type: 'NONE' }, 1 << 20)
    expect(Buffer.from(back).equals(Buffer.from(plain))).toBe(true)
    expect(readRecordBatchInfo(zstd).compression).toBe('ZSTD')
    expect(new ArrowBatchReader(lz4, rowType).toRows()).toEqual(new ArrowBatchReader(plain, rowType).toRows())
    expect(recompressRecordBatch(zstd, { type: 'ZSTD', level: 9 }, 1 << 20)).toBe(zstd)
    for (const [input, max] of [
      [plain.subarray(0, plain.length - 16), 1 << 20],
      [zstd, 100],
    ] as const) {
      expect(() => recompressRecordBatch(input, { type: 'LZ4_FRAME' }, max)).toThrow(
        expect.objectContaining({ errorName: 'CORRUPT_RECORD_EXCEPTION' }),
      )
    }
  })
})
