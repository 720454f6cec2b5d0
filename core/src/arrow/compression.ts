import {
  compressUsingDict,
  createCCtx,
  createDCtx,
  decompressUsingDict,
  init as zstdInit,
} from '@bokuweb/zstd-wasm'
import { FlussError } from '../errors/index.js'
import { lz4FrameCompress, lz4FrameDecompress } from '../native/lz4.js'
import { pad8 } from './column-writer.js'
import { corrupt } from './flatbuf-reader.js'
import { getInt64Number, setInt64Number } from './int64.js'
import {
  bufferRegion,
  CODEC_LZ4_FRAME,
  CODEC_NONE,
  CODEC_ZSTD,
  readRecordBatchHeader,
  recordBatchMetadataSize,
  writeRecordBatchHeader,
} from './message.js'

/**
 * Arrow IPC body compression (BodyCompression method BUFFER): each buffer is stored as an 8-byte
 * little-endian *uncompressed* length followed by the compressed bytes, or by the raw bytes when
 * the length is -1 (used when compression does not help). Empty buffers are stored empty.
 * Codecs: ZSTD through @bokuweb/zstd-wasm (needs `initArrowCodecs()` once), LZ4 frames through
 * lz4-napi, written with independent blocks and no checksums as Fluss's own LZ4 reader expects.
 *
 * ZSTD reuses one compression and one decompression context per thread: the package's plain
 * `compress`/`decompress` set up a fresh context (and its match tables) on every call, which costs
 * about as much as compressing a few KiB. Its `...UsingDict` calls take a context; with an empty
 * dictionary they write and read ordinary frames (no dictionary id), byte-identical to `compress`.
 */

/** Fluss's `ArrowCompressionType`. */
export type ArrowCompressionType = 'NONE' | 'LZ4_FRAME' | 'ZSTD'

/** Fluss's `ArrowCompressionInfo`: codec plus ZSTD level (1..22). */
export interface ArrowCompressionInfo {
  readonly type: ArrowCompressionType
  readonly level?: number
}

export const NO_COMPRESSION: ArrowCompressionInfo = { type: 'NONE' }
/** Fluss's table default (`table.log.arrow.compression.type` = ZSTD, level 3). */
export const DEFAULT_COMPRESSION: ArrowCompressionInfo = { type: 'ZSTD', level: 3 }
export const DEFAULT_ZSTD_LEVEL = 3

const EMPTY = new Uint8Array(0)
const NO_COMPRESSION_LENGTH = -1

const NO_DICTIONARY = new Uint8Array(0)

let zstdInitialized = false
let zstdInitializing: Promise<void> | null = null
/** The ZSTD contexts (WebAssembly heap pointers), made once the module is loaded; never freed. */
let zstdCCtx = 0
let zstdDCtx = 0

/** Loads the ZSTD WebAssembly module; call (and await) once before using ZSTD. Idempotent. */
export function initArrowCodecs(): Promise<void> {
  zstdInitializing ??= zstdInit().then(() => {
    zstdCCtx = createCCtx()
    zstdDCtx = createDCtx()
    if (zstdCCtx === 0 || zstdDCtx === 0) throw new Error('cannot allocate the ZSTD contexts')
    zstdInitialized = true
  })
  return zstdInitializing
}

export function arrowCodecsInitialized(): boolean {
  return zstdInitialized
}

function requireZstd(): void {
  if (!zstdInitialized) {
    throw new Error(
      'the ZSTD codec is not initialized: await initArrowCodecs() once before reading or writing ZSTD Arrow batches',
    )
  }
}

/** The BodyCompression codec id for a compression setting, validating it. */
export function codecOf(info: ArrowCompressionInfo): number {
  switch (info.type) {
    case 'NONE':
      return CODEC_NONE
    case 'LZ4_FRAME':
      return CODEC_LZ4_FRAME
    case 'ZSTD': {
      const level = info.level ?? DEFAULT_ZSTD_LEVEL
      if (!Number.isInteger(level) || level < 1 || level > 22) {
        throw new FlussError(
          'INVALID_CONFIG_EXCEPTION',
          `invalid ZSTD compression level ${level}, expected 1..22`,
        )
      }
      requireZstd()
      return CODEC_ZSTD
    }
    default:
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `unknown Arrow compression type '${String(info.type)}'`,
      )
  }
}

/** Compresses one non-empty buffer; the caller stores it raw (length -1) when this is not smaller. */
export function compressPayload(codec: number, level: number, src: Uint8Array): Uint8Array {
  if (codec === CODEC_ZSTD) {
    requireZstd()
    return compressUsingDict(zstdCCtx, src, NO_DICTIONARY, level)
  }
  // Without a native LZ4 codec the buffer is stored raw (returning src: not smaller).
  return lz4FrameCompress(src) ?? src
}

/**
 * Re-encodes the body of one RecordBatch message with another compression, buffer by buffer and
 * without decoding values (compression is per buffer): each buffer is decompressed when the message
 * is compressed, then compressed with the target codec, or stored raw (length -1) where that does
 * not make it smaller. Returns `message` itself when it already uses the target codec. The buffers
 * may decompress to at most `maxUncompressedBytes` in total (CORRUPT_RECORD_EXCEPTION beyond).
 */
export function recompressRecordBatch(
  message: Uint8Array,
  compression: ArrowCompressionInfo,
  maxUncompressedBytes: number,
): Uint8Array {
  const codec = codecOf(compression)
  const level = compression.level ?? DEFAULT_ZSTD_LEVEL
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
  const header = readRecordBatchHeader(view)
  if (header.codec === codec) return message
  const region = { offset: 0, length: 0 }
  const pieces: Uint8Array[] = []
  const prefixes: number[] = []
  let total = 0
  for (let i = 0; i < header.bufferCount; i++) {
    bufferRegion(view, header, i, region)
    const start = header.frame.bodyStart + region.offset
    const stored = message.subarray(start, start + region.length)
    const raw =
      header.codec === CODEC_NONE ? stored : decompressPiece(header.codec, stored, maxUncompressedBytes)
    total += raw.length
    if (total > maxUncompressedBytes)
      throw corrupt(`batch holds more than ${maxUncompressedBytes} uncompressed bytes`)
    const packed = codec === CODEC_NONE || raw.length === 0 ? raw : compressPayload(codec, level, raw)
    const smaller = packed.length < raw.length
    pieces.push(smaller ? packed : raw)
    prefixes.push(smaller ? raw.length : NO_COMPRESSION_LENGTH)
  }
  return writeRecompressed(view, header, codec, pieces, prefixes)
}

function writeRecompressed(
  view: DataView,
  header: ReturnType<typeof readRecordBatchHeader>,
  codec: number,
  pieces: readonly Uint8Array[],
  prefixes: readonly number[],
): Uint8Array {
  const nodes = new Array<number>(2 * header.nodeCount)
  for (let i = 0; i < nodes.length; i++) nodes[i] = getInt64Number(view, header.nodes + 8 * i)
  const prefixBytes = codec === CODEC_NONE ? 0 : 8
  const buffers = new Array<number>(2 * pieces.length)
  let body = 0
  pieces.forEach((p, i) => {
    const stored = p.length === 0 ? 0 : prefixBytes + p.length
    buffers[2 * i] = body
    buffers[2 * i + 1] = stored
    body += pad8(stored)
  })
  const meta = { length: header.length, nodeCount: header.nodeCount, nodes, bufferCount: pieces.length }
  const out = new Uint8Array(8 + recordBatchMetadataSize(header.nodeCount, pieces.length, codec) + body)
  const bodyStart = writeRecordBatchHeader(out, 0, { ...meta, buffers, codec, bodyLength: body })
  const outView = new DataView(out.buffer)
  pieces.forEach((p, i) => {
    if (p.length === 0) return
    let at = bodyStart + buffers[2 * i]
    if (prefixBytes > 0) {
      setInt64Number(outView, at, prefixes[i])
      at += 8
    }
    out.set(p, at)
  })
  return out
}

/**
 * Decodes one stored buffer (prefix + payload) into its uncompressed bytes. `maxLength` bounds
 * the declared uncompressed length. The result is either a view of `piece` (raw buffers) or a
 * fresh 8-aligned copy.
 */
export function decompressPiece(codec: number, piece: Uint8Array, maxLength: number): Uint8Array {
  if (piece.length === 0) return EMPTY
  if (piece.length < 8) throw corrupt(`compressed buffer of ${piece.length} bytes has no length prefix`)
  const view = new DataView(piece.buffer, piece.byteOffset, 8)
  const length = getInt64Number(view, 0)
  if (length === NO_COMPRESSION_LENGTH) return piece.subarray(8)
  if (!(length >= 0)) throw corrupt(`invalid uncompressed length prefix ${length}`)
  if (length === 0) return EMPTY
  if (length > maxLength)
    throw corrupt(`uncompressed length ${length} exceeds the limit of ${maxLength} bytes`)
  const payload = piece.subarray(8)
  if (codec === CODEC_ZSTD) requireZstd()
  let out: Uint8Array
  try {
    out = codec === CODEC_ZSTD ? decompressZstd(payload, length) : lz4FrameDecompress(payload)
  } catch (e) {
    if (e instanceof FlussError) throw e
    throw corrupt(`cannot decompress buffer: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (out.length !== length)
    throw corrupt(`buffer decompressed to ${out.length} bytes, prefix says ${length}`)
  // lz4-napi returns a Buffer, whose slice() is a view: hand out a plain, 8-aligned Uint8Array.
  if (out.byteOffset % 8 !== 0) return new Uint8Array(out)
  return Buffer.isBuffer(out) ? new Uint8Array(out.buffer, out.byteOffset, out.length) : out
}

function decompressZstd(payload: Uint8Array, length: number): Uint8Array {
  const declared = zstdFrameContentSize(payload)
  if (declared !== undefined && declared !== length) {
    throw corrupt(`zstd frame declares ${declared} bytes, prefix says ${length}`)
  }
  return decompressUsingDict(zstdDCtx, payload, NO_DICTIONARY, { defaultHeapSize: length })
}

/** Frame_Content_Size from a zstd frame header, or undefined when the frame does not state it. */
export function zstdFrameContentSize(frame: Uint8Array): number | undefined {
  if (frame.length < 6 || frame[0] !== 0x28 || frame[1] !== 0xb5 || frame[2] !== 0x2f || frame[3] !== 0xfd) {
    throw corrupt('buffer is not a zstd frame')
  }
  const descriptor = frame[4]
  if (descriptor & 0x08) throw corrupt('zstd frame header has its reserved bit set')
  const fcsFlag = descriptor >> 6
  const singleSegment = (descriptor >> 5) & 1
  const dictIdSize = [0, 1, 2, 4][descriptor & 3]
  const fcsSize = fcsFlag === 0 ? singleSegment : 1 << fcsFlag
  if (fcsSize === 0) return undefined
  const at = 5 + (singleSegment ? 0 : 1) + dictIdSize
  if (frame.length < at + fcsSize) throw corrupt('zstd frame header is truncated')
  const view = new DataView(frame.buffer, frame.byteOffset + at, fcsSize)
  if (fcsSize === 1) return view.getUint8(0)
  if (fcsSize === 2) return view.getUint16(0, true) + 256
  if (fcsSize === 4) return view.getUint32(0, true)
  const value = getInt64Number(view, 0)
  return Number.isNaN(value) || value < 0 ? Number.MAX_SAFE_INTEGER : value
}
