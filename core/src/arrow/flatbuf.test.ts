import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { FbReader } from './flatbuf-reader.js'
import { FbWriter, REF } from './flatbuf-writer.js'

function reader(bytes: Uint8Array): FbReader {
  return new FbReader(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, bytes.length)
}

describe('FlatBuffers writer and reader', () => {
  it('aligns every scalar to its size and reads the fields back', () => {
    const w = new FbWriter()
    const root = w.rootSlot()
    const refs: number[] = []
    const table = w.table(
      [
        { slot: 0, size: 1, value: 7 },
        { slot: 1, size: 8, value: 2 ** 40 + 3 },
        { slot: 2, size: 2, value: -5 },
        { slot: 3, size: 4, value: REF },
        { slot: 5, size: 8, value: -2 },
      ],
      refs,
    )
    w.patch(root, table)
    w.patch(refs[0], w.string('naïve'))
    const structs = w.structVector(2, 16)
    expect(structs.data % 8).toBe(0)
    const fb = reader(w.result())
    const t = fb.root()
    expect(t).toBe(table)
    expect(t % 4).toBe(0)
    for (const [slot, size] of [
      [1, 8],
      [5, 8],
      [2, 2],
      [3, 4],
    ])
      expect(fb.field(t, slot, size) % size).toBe(0)
    expect(fb.u8(t, 0, 0)).toBe(7)
    expect(fb.i64(t, 1, 0)).toBe(2 ** 40 + 3)
    expect(fb.i16(t, 2, 0)).toBe(-5)
    expect(fb.string(t, 3, 's')).toBe('naïve')
    expect(fb.i32(t, 4, 99)).toBe(99) // absent slot: default
    expect(fb.i64(t, 5, 0)).toBe(-2)
  })

  it('measures exactly what it writes', () => {
    const layout = (w: FbWriter) => {
      const root = w.rootSlot()
      w.patch(
        root,
        w.table([
          { slot: 0, size: 8, value: 1 },
          { slot: 2, size: 1, value: 1 },
        ]),
      )
      w.structVector(3, 16)
      w.alignTo(8)
    }
    const measure = new FbWriter(undefined, 0, true)
    layout(measure)
    const real = new FbWriter()
    layout(real)
    expect(real.result().length).toBe(measure.pos)
  })

  it('rejects offsets, vtables and vectors pointing outside the buffer', () => {
    const bad = (bytes: number[]) => () => reader(Uint8Array.from(bytes)).root()
    expect(bad([200, 0, 0, 0])).toThrow(FlussError) // root past the end
    expect(bad([4, 0, 0, 0, 100, 0, 0, 0])).toThrow(FlussError) // vtable before the start
    expect(bad([8, 0, 0, 0, 4, 0, 200, 0, 4, 0, 0, 0])).toThrow(FlussError) // table size past the end
    const w = new FbWriter()
    const root = w.rootSlot()
    const refs: number[] = []
    w.patch(root, w.table([{ slot: 0, size: 4, value: REF }], refs))
    const v = w.refVector(0)
    w.patch(refs[0], v.vector)
    const bytes = w.result().slice()
    new DataView(bytes.buffer).setUint32(v.vector, 1000, true) // 1000 elements claimed
    const fb = reader(bytes)
    expect(() => fb.vector(fb.root(), 0, 4, 'v')).toThrow(/past the end/)
  })
})
