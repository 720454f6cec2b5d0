import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import {
  bitmap32Of,
  bitmap32Values,
  deserializeBitmap32,
  orSerializedBitmap32,
  serializeBitmap32,
} from './roaring-bitmap32.js'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const range = (from: number, to: number, step = 1) => {
  const out: number[] = []
  for (let v = from; v < to; v += step) out.push(v)
  return out
}

describe('portable RoaringBitmap serialization', () => {
  it('writes an array container under the no-run cookie (RoaringBitmap.bitmapOf(1, 2))', () => {
    // cookie 12346 | 1 container | key 0, cardinality-1 = 1 | offset 16 | values 1, 2
    expect(hex(serializeBitmap32(bitmap32Of([1, 2])))).toBe(
      '3a300000' + '01000000' + '00000100' + '10000000' + '01000200',
    )
  })

  it('writes a run container when it is strictly smaller (0..99), without offsets below 4 containers', () => {
    // cookie 12347 | (1 - 1) << 16 | run bitset 0x01 | key 0, cardinality-1 = 99 | 1 run: start 0, length-1 99
    expect(hex(serializeBitmap32(bitmap32Of(range(0, 100))))).toBe(
      '3b300000' + '01' + '00006300' + '0100' + '00006300',
    )
  })

  it('keeps the array form when the run form is the same size ({1, 2, 3})', () => {
    const bytes = orSerializedBitmap32(
      serializeBitmap32(bitmap32Of([1, 2])),
      serializeBitmap32(bitmap32Of([2, 3])),
    )
    expect(hex(bytes)).toBe('3a300000' + '01000000' + '00000200' + '10000000' + '010002000300')
  })

  it('writes a bitmap container above 4096 values that do not form runs', () => {
    const values = range(0, 10_000, 2)
    const bytes = serializeBitmap32(bitmap32Of(values))
    expect(bytes.length).toBe(8 + 4 + 4 + 8192)
    expect(bytes.readUInt16LE(10)).toBe(4999)
    expect(bitmap32Values(deserializeBitmap32(bytes))).toEqual(values)
  })

  it('round-trips many containers with runs, offsets and 32-bit values', () => {
    const values = [...range(0, 3), ...range(70_000, 70_500), 1 << 20, ...range(0xfffffff0, 0x100000000)]
    const bytes = serializeBitmap32(bitmap32Of(values))
    expect(bytes.readUInt16LE(0)).toBe(12347)
    expect(bytes.readUInt16LE(2) + 1).toBe(4)
    expect(bitmap32Values(deserializeBitmap32(bytes))).toEqual(values)
  })

  it('ORs two serialized bitmaps', () => {
    const merged = orSerializedBitmap32(
      serializeBitmap32(bitmap32Of([1, 5, 100_000])),
      serializeBitmap32(bitmap32Of([5, 6, 4_000_000_000])),
    )
    expect(bitmap32Values(deserializeBitmap32(merged))).toEqual([1, 5, 6, 100_000, 4_000_000_000])
  })

  it('serializes the empty bitmap as 8 bytes', () => {
    expect(hex(serializeBitmap32(new Map()))).toBe('3a30000000000000')
  })

  it('refuses malformed bytes with INVALID_REQUEST', () => {
    const good = serializeBitmap32(bitmap32Of([1, 2]))
    for (const bad of [
      Buffer.alloc(3),
      Buffer.from('00000000', 'hex'),
      good.subarray(0, good.length - 1),
      Buffer.concat([good, Buffer.alloc(1)]),
    ]) {
      try {
        deserializeBitmap32(bad)
        throw new Error('expected a failure')
      } catch (e) {
        expect(e).toBeInstanceOf(FlussError)
        expect((e as FlussError).errorName).toBe('INVALID_REQUEST')
      }
    }
  })
})
