/**
 * A minimal FlatBuffers writer that lays objects out front to back: a parent table is written
 * first with its reference slots left open, its children follow at higher addresses, and the
 * slots are patched afterwards (FlatBuffers offsets are unsigned, so they must point forward).
 *
 * Every scalar sits at an address aligned to its size, counted from the start of the flatbuffer,
 * as strict verifiers (Arrow C++) require. A table is preceded by its own vtable. Scalars are
 * always written, even when equal to the schema default, so a message's size depends only on
 * its shape. With `measureOnly` nothing is stored and only `pos` advances, which gives the exact
 * size of a layout before allocating it.
 */

/** A table field: slot number in the schema, byte size, and a scalar value or `REF` for an offset. */
export interface FbField {
  readonly slot: number
  readonly size: 1 | 2 | 4 | 8
  readonly value: number | typeof REF
}

export const REF = Symbol('ref')

const EMPTY = new Uint8Array(0)

export class FbWriter {
  private bytes: Uint8Array
  private view: DataView
  private readonly growable: boolean
  /** Write position, relative to the flatbuffer start. */
  pos = 0

  /**
   * Writes into `target` from `offset` on (growing a private buffer instead when `target` is not
   * given), or only measures when `measureOnly` is set.
   */
  constructor(
    target?: Uint8Array,
    private readonly offset = 0,
    private readonly measureOnly = false,
  ) {
    this.bytes = target ?? (measureOnly ? EMPTY : new Uint8Array(256))
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength)
    this.growable = target === undefined && !measureOnly
  }

  /** The written flatbuffer (only for a writer that owns its buffer). */
  result(): Uint8Array {
    return this.bytes.subarray(0, this.pos)
  }

  private ensure(n: number): void {
    if (this.measureOnly || this.offset + this.pos + n <= this.bytes.length) return
    if (!this.growable) throw new RangeError(`flatbuffer target too small (${this.bytes.length} bytes)`)
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.pos + n + 64))
    next.set(this.bytes)
    this.bytes = next
    this.view = new DataView(next.buffer)
  }

  /** Zero-pads until `pos` is `shift` past a multiple of `align`. */
  alignTo(align: number, shift = 0): void {
    const pad = (((shift - this.pos) % align) + align) % align
    this.ensure(pad)
    if (!this.measureOnly) this.bytes.fill(0, this.offset + this.pos, this.offset + this.pos + pad)
    this.pos += pad
  }

  setScalar(at: number, size: 1 | 2 | 4 | 8, value: number): void {
    if (this.measureOnly) return
    const p = this.offset + at
    if (size === 1) this.view.setUint8(p, value)
    else if (size === 2) this.view.setInt16(p, value, true)
    else if (size === 4) this.view.setInt32(p, value, true)
    else {
      this.view.setUint32(p, value >>> 0, true)
      this.view.setInt32(p + 4, Math.floor(value / 4294967296), true)
    }
  }

  /** Points the uoffset slot at `at` to `target` (which must lie after it). */
  patch(at: number, target: number): void {
    if (!this.measureOnly) this.view.setUint32(this.offset + at, target - at, true)
  }

  /** Reserves the root offset; patch it with the root table's position. */
  rootSlot(): number {
    this.ensure(4)
    const at = this.pos
    this.pos += 4
    return at
  }

  /**
   * Writes a vtable and its table. Returns the table position and, in `refs`, the positions of
   * the offset slots in the order the fields were given.
   */
  table(fields: readonly FbField[], refs?: number[]): number {
    let slots = 0
    let has8 = false
    for (const f of fields) {
      slots = Math.max(slots, f.slot + 1)
      if (f.size === 8) has8 = true
    }
    const order = [...fields].sort((a, b) => b.size - a.size)
    const fieldOffsets = new Array<number>(order.length)
    let inline = 4
    for (let i = 0; i < order.length; i++) {
      const size = order[i].size
      if (size === 8) inline += (((4 - inline) % 8) + 8) % 8
      else inline = Math.ceil(inline / size) * size
      fieldOffsets[i] = inline
      inline += size
    }
    // 8-byte fields start at table offset 4 (mod 8), so the table itself sits at 4 (mod 8).
    this.alignTo(2)
    const vtableSize = 4 + 2 * slots
    const vtable = this.pos
    this.ensure(vtableSize)
    this.pos += vtableSize
    this.alignTo(has8 ? 8 : 4, has8 ? 4 : 0)
    const table = this.pos
    this.ensure(inline)
    if (!this.measureOnly) this.bytes.fill(0, this.offset + vtable, this.offset + table + inline)
    this.setScalar(vtable, 2, vtableSize)
    this.setScalar(vtable + 2, 2, inline)
    this.setScalar(table, 4, table - vtable)
    for (let i = 0; i < order.length; i++) {
      const f = order[i]
      this.setScalar(vtable + 4 + 2 * f.slot, 2, fieldOffsets[i])
      if (f.value !== REF) this.setScalar(table + fieldOffsets[i], f.size, f.value)
    }
    if (refs) for (const f of fields) if (f.value === REF) refs.push(table + fieldOffsets[order.indexOf(f)])
    this.pos = table + inline
    return table
  }

  /** Starts a vector of `count` structs of `elementSize` bytes, 8-aligned; returns the first element's position. */
  structVector(count: number, elementSize: number): { vector: number; data: number } {
    this.alignTo(8, 4)
    const vector = this.pos
    this.ensure(4 + count * elementSize)
    this.setScalar(vector, 4, count)
    this.pos += 4 + count * elementSize
    return { vector, data: vector + 4 }
  }

  /** Starts a vector of `count` offsets; element i's slot is at `data + 4 * i`. */
  refVector(count: number): { vector: number; data: number } {
    this.alignTo(4)
    const vector = this.pos
    this.ensure(4 + 4 * count)
    this.setScalar(vector, 4, count)
    this.pos += 4 + 4 * count
    return { vector, data: vector + 4 }
  }

  string(text: string): number {
    const utf8 = new TextEncoder().encode(text)
    this.alignTo(4)
    const at = this.pos
    this.ensure(4 + utf8.length + 1)
    this.setScalar(at, 4, utf8.length)
    if (!this.measureOnly) {
      this.bytes.set(utf8, this.offset + at + 4)
      this.bytes[this.offset + at + 4 + utf8.length] = 0
    }
    this.pos += 4 + utf8.length + 1
    return at
  }
}
