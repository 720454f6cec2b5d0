import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { crc32c } from '../record/crc32c.js'
import { crc32cJs } from './crc32c-js.js'
import { LZ4_NATIVE, lz4FrameCompress, lz4FrameDecompress } from './lz4.js'
import { optionalModule } from './optional-module.js'

const text = (s: string) => new TextEncoder().encode(s)

describe('portable codecs (used where native binaries are not bundled)', () => {
  it('crc32cJs matches the standard check value, Fluss vectors and the native codec', () => {
    expect(crc32cJs(text('123456789'))).toBe(0xe3069283)
    expect(crc32cJs(text('fluss'))).toBe(2355313305)
    const data = new Uint8Array(100_003)
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24
    for (const len of [0, 1, 7, 8, 9, 63, 100_003]) {
      expect(crc32cJs(data.subarray(0, len))).toBe(crc32c(data.subarray(0, len)))
    }
    // continuing a running checksum over pieces
    expect(crc32cJs(data.subarray(500), crc32cJs(data.subarray(0, 500)))).toBe(crc32c(data))
  })

  it('lz4js decodes the frames the native codec writes', () => {
    expect(LZ4_NATIVE).toBe(true)
    const src = new Uint8Array(200_000)
    for (let i = 0; i < src.length; i++) src[i] = (i % 251) & (i >> 9)
    const frame = lz4FrameCompress(src)
    expect(frame).toBeDefined()
    const lz4js = createRequire(import.meta.url)('lz4js') as { decompress(b: Uint8Array): Uint8Array }
    expect(Buffer.from(lz4js.decompress(frame as Uint8Array)).equals(Buffer.from(src))).toBe(true)
    expect(Buffer.from(lz4FrameDecompress(frame as Uint8Array)).equals(Buffer.from(src))).toBe(true)
  })

  it('optionalModule returns undefined for a package that is not installed', () => {
    expect(optionalModule('sluice-no-such-package')).toBeUndefined()
    expect(optionalModule('lz4js')).toBeDefined()
  })
})
