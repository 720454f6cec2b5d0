import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { DataTypes, type RowType } from '../types/data-type.js'
import { ArrowBatchReader } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import {
  arrowCodecsInitialized,
  compressPayload,
  decompressPiece,
  initArrowCodecs,
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
})
