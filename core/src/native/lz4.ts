import { optionalModule } from './optional-module.js'

interface Lz4Napi {
  compressFrameSync(input: Buffer, options?: { contentChecksum?: boolean; blockChecksums?: boolean }): Buffer
  decompressFrameSync(input: Buffer): Buffer
}
interface Lz4Js {
  decompress(input: Uint8Array, maxSize?: number): Uint8Array
}

const native = optionalModule<Lz4Napi>('lz4-napi')
let portable: Lz4Js | undefined

/** True when LZ4 frames are compressed natively; otherwise `lz4FrameCompress` returns undefined. */
export const LZ4_NATIVE = native !== undefined

/**
 * LZ4 frame with independent blocks and no checksums (what Fluss's reader expects), or undefined
 * where the native codec is missing: Arrow then stores the buffer uncompressed (length prefix -1),
 * which every reader accepts.
 */
export function lz4FrameCompress(src: Uint8Array): Uint8Array | undefined {
  if (!native) return undefined
  const input = Buffer.from(src.buffer, src.byteOffset, src.byteLength)
  return native.compressFrameSync(input, { contentChecksum: false, blockChecksums: false })
}

export function lz4FrameDecompress(src: Uint8Array): Uint8Array {
  if (native) return native.decompressFrameSync(Buffer.from(src.buffer, src.byteOffset, src.byteLength))
  portable ??= optionalModule<Lz4Js>('lz4js')
  if (!portable) throw new Error('no LZ4 codec is available (neither lz4-napi nor lz4js)')
  return portable.decompress(src)
}
