import { describe, expect, it } from 'vitest'
import { crc32c } from './crc32c.js'

/** Bitwise CRC-32C (reflected polynomial 0x82F63B78), an independent reference. */
function referenceCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const b of bytes) {
    crc ^= b
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

const text = (s: string) => new TextEncoder().encode(s)

describe('crc32c', () => {
  it('matches the standard check value', () => {
    expect(crc32c(text('123456789'))).toBe(0xe3069283)
  })

  it('matches the values pinned by Fluss (Crc32CTest)', () => {
    expect(crc32c(text('Some String'))).toBe(608512271)
    expect(crc32c(text('hello'))).toBe(2591144780)
    expect(crc32c(text('fluss'))).toBe(2355313305)
  })

  it('is unsigned and agrees with a bitwise reference on random data', () => {
    const data = new Uint8Array(4099)
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24
    expect(crc32c(data)).toBe(referenceCrc32c(data))
    expect(crc32c(data)).toBeGreaterThanOrEqual(0)
  })

  it('continues a running checksum', () => {
    expect(crc32c(text('lo'), crc32c(text('hel')))).toBe(crc32c(text('hello')))
  })

  it('checksums the empty input as 0', () => {
    expect(crc32c(new Uint8Array(0))).toBe(0)
  })
})
