import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { explicitBitmap32 } from '../../../testing/roaring-bitmaps.js'
import { orSerializedBitmap32 } from './roaring-bitmap32.js'
import { type Bitmap32, readBitmap32, writeBitmap32 } from './roaring-bitmap32-codec.js'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const bytesOf = (spec: string) => writeBitmap32(explicitBitmap32(spec))

function expectCorrupt(bytes: Uint8Array, reason: RegExp): void {
  let error: unknown
  try {
    readBitmap32(bytes)
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(FlussError)
  expect(error).toMatchObject({ errorName: 'INVALID_REQUEST' })
  expect((error as Error).message).toMatch(/^Unable to deserialize roaring bitmap: /)
  expect((error as Error).message).toMatch(reason)
}

describe('portable RoaringBitmap format', () => {
  // cookie 12346 | 1 container | key 0, cardinality-1 = 1 | offset 16 | values 1, 2
  const good = '3a300000' + '01000000' + '00000100' + '10000000' + '01000200'
  const patch = (offset: number, bytes: string) =>
    Buffer.from(good.slice(0, 2 * offset) + bytes + good.slice(2 * offset + bytes.length), 'hex')

  it('reads and writes each container kind as written', () => {
    expect(hex(bytesOf('a0:1,2'))).toBe(good)
    // run cookie | bitset: containers 0 and 2 are runs | keys, cardinalities | no offsets below 4
    // containers | runs [0, 4] [5, 9] kept apart | bitmap words | run [7, 7]
    const mixed = readBitmap32(bytesOf('r0:0..5,5..10;b1:0..6000;r3:7'))
    expect(mixed.keys).toEqual([0, 1, 3])
    expect(mixed.containers.map(c => c.kind)).toEqual(['run', 'bitmap', 'run'])
    expect(hex(bytesOf('r0:0..5,5..10;r3:7'))).toBe(
      '3b300100' + '03' + '00000900' + '03000000' + '0200' + '00000400' + '05000400' + '0100' + '07000000',
    )
  })

  it('names what is wrong', () => {
    expectCorrupt(Buffer.alloc(3), /cookie runs past the end of 3 bytes/)
    expectCorrupt(Buffer.from('00000000', 'hex'), /unknown cookie 0/)
    expectCorrupt(patch(4, 'ffffffff'), /container count -1 is out of range/)
    expectCorrupt(patch(4, '01000100'), /container count 65537 is out of range/)
    expectCorrupt(Buffer.from('3b300000', 'hex'), /run container bitset runs past the end/)
    expectCorrupt(Buffer.from(good.slice(0, -2), 'hex'), /array container runs past the end/)
    expectCorrupt(Buffer.from(`${good}00`, 'hex'), /1 bytes follow the last container/)
    expectCorrupt(patch(16, '02000100'), /array container values are not increasing/)
    expectCorrupt(patch(16, '01000100'), /array container values are not increasing/)
  })

  it('refuses keys out of order, overlapping runs and cardinalities the body does not have', () => {
    const array: Bitmap32 = readBitmap32(Buffer.from(good, 'hex'))
    const twice = { keys: [1, 0], containers: [...array.containers, ...array.containers] }
    expectCorrupt(writeBitmap32(twice), /container keys are not increasing at 1/)
    expectCorrupt(bytesOf('r0:0..10,5..20'), /run \[5, 19\] overlaps the previous run/)
    expectCorrupt(bytesOf('r0:10,5'), /run \[5, 5\] overlaps the previous run/)
    const wrapping = { keys: [0], containers: [{ kind: 'run' as const, runs: Uint16Array.of(65530, 10) }] }
    expectCorrupt(writeBitmap32(wrapping), /run \[65530, 65540\] .* exceeds 65535/)
    const run = bytesOf('r0:0..10')
    run.writeUInt16LE(10, 7)
    expectCorrupt(run, /run container has 10 values, not 11/)
    const bitmap = bytesOf('b0:0..5000')
    bitmap.writeUInt16LE(5000, 10)
    expectCorrupt(bitmap, /bitmap container has 5000 values, not 5001/)
  })

  it('refuses every truncation and never fails with anything but INVALID_REQUEST', () => {
    const large = bytesOf('a0:1,2,3;b1:0..6000;r2:0..4,4..8;r3:7;a0xffff:65535')
    for (let n = 0; n < large.length; n += 7) expectCorrupt(large.subarray(0, n), /./)
    for (const spec of [
      'a0:1,2,3;r2:0..4,4..8;r3:7;a0xffff:65535',
      'r0:1..3;r1:5;a2:9;r3:1;r4:2;r5:3;r6:4;r7:5;r8:6',
    ]) {
      const bytes = bytesOf(spec)
      for (let n = 0; n < bytes.length; n++) expectCorrupt(bytes.subarray(0, n), /./)
      for (let i = 0; i < bytes.length; i++) {
        for (const flip of [0x01, 0x80, 0xff]) {
          const changed = Buffer.from(bytes)
          changed[i] ^= flip
          try {
            orSerializedBitmap32(changed, bytes)
            orSerializedBitmap32(bytes, changed)
          } catch (e) {
            expect(e).toMatchObject({ errorName: 'INVALID_REQUEST' })
          }
        }
      }
    }
  })
})
