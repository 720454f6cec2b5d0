import { FlussError } from '../errors/index.js'
import { getInt64Number } from './int64.js'

/** The error for any Arrow bytes that do not hold together. */
export function corrupt(message: string): FlussError {
  return new FlussError('CORRUPT_RECORD_EXCEPTION', `corrupt Arrow data: ${message}`)
}

/**
 * Bounds-checked access to a FlatBuffers region `[start, end)` of a DataView. Positions are
 * absolute DataView offsets; a table is identified by its position. Every read is checked, so
 * malformed input throws a CORRUPT_RECORD_EXCEPTION instead of reading outside the region.
 */
export class FbReader {
  constructor(
    readonly view: DataView,
    readonly start: number,
    readonly end: number,
  ) {}

  private check(pos: number, size: number, what: string): void {
    if (pos < this.start || pos + size > this.end) {
      throw corrupt(`${what} at ${pos - this.start} is outside the ${this.end - this.start}-byte metadata`)
    }
  }

  /** Follows the uoffset stored at `at`. */
  private follow(at: number, what: string): number {
    this.check(at, 4, what)
    const target = at + this.view.getUint32(at, true)
    this.check(target, 4, what)
    return target
  }

  /** The root table. */
  root(): number {
    return this.table(this.follow(this.start, 'root offset'), 'root table')
  }

  /** Validates the table at `pos` (its vtable and inline size) and returns `pos`. */
  table(pos: number, what: string): number {
    this.check(pos, 4, what)
    const vtable = pos - this.view.getInt32(pos, true)
    this.check(vtable, 4, `${what} vtable`)
    const vtableSize = this.view.getUint16(vtable, true)
    const tableSize = this.view.getUint16(vtable + 2, true)
    if (vtableSize < 4 || vtableSize % 2 !== 0) throw corrupt(`${what} has a vtable of ${vtableSize} bytes`)
    this.check(vtable, vtableSize, `${what} vtable`)
    if (tableSize < 4) throw corrupt(`${what} has an inline size of ${tableSize} bytes`)
    this.check(pos, tableSize, what)
    return pos
  }

  /** Absolute position of a field, or -1 when it is absent. */
  field(table: number, slot: number, size: number): number {
    const vtable = table - this.view.getInt32(table, true)
    const vtableSize = this.view.getUint16(vtable, true)
    const entry = 4 + 2 * slot
    if (entry + 2 > vtableSize) return -1
    const offset = this.view.getUint16(vtable + entry, true)
    if (offset === 0) return -1
    if (offset + size > this.view.getUint16(vtable + 2, true))
      throw corrupt(`field ${slot} overflows its table`)
    return table + offset
  }

  u8(table: number, slot: number, fallback: number): number {
    const at = this.field(table, slot, 1)
    return at < 0 ? fallback : this.view.getUint8(at)
  }

  i16(table: number, slot: number, fallback: number): number {
    const at = this.field(table, slot, 2)
    return at < 0 ? fallback : this.view.getInt16(at, true)
  }

  i32(table: number, slot: number, fallback: number): number {
    const at = this.field(table, slot, 4)
    return at < 0 ? fallback : this.view.getInt32(at, true)
  }

  /** An int64 field as a number; corrupt when it is outside the safe integer range. */
  i64(table: number, slot: number, fallback: number): number {
    const at = this.field(table, slot, 8)
    if (at < 0) return fallback
    const value = getInt64Number(this.view, at)
    if (Number.isNaN(value)) throw corrupt(`int64 field ${slot} is out of range`)
    return value
  }

  /** The table referenced by a field, or -1 when absent. */
  tableRef(table: number, slot: number, what: string): number {
    const at = this.field(table, slot, 4)
    return at < 0 ? -1 : this.table(this.follow(at, what), what)
  }

  /** A vector field: position of its first element and its length, or null when absent. */
  vector(
    table: number,
    slot: number,
    elementSize: number,
    what: string,
  ): { data: number; count: number } | null {
    const at = this.field(table, slot, 4)
    if (at < 0) return null
    const vector = this.follow(at, what)
    const count = this.view.getUint32(vector, true)
    if (count > (this.end - vector - 4) / elementSize)
      throw corrupt(`${what} has ${count} elements past the end`)
    return { data: vector + 4, count }
  }

  /** Element `i` of a vector of tables. */
  tableAt(data: number, i: number, what: string): number {
    return this.table(this.follow(data + 4 * i, what), what)
  }

  string(table: number, slot: number, what: string): string | null {
    const at = this.field(table, slot, 4)
    return at < 0 ? null : this.stringAt(this.follow(at, what), what)
  }

  /** The string whose length prefix is at `pos`. */
  stringAt(pos: number, what: string): string {
    const length = this.view.getUint32(pos, true)
    if (length > this.end - pos - 4) throw corrupt(`${what} string runs past the end`)
    const bytes = new Uint8Array(this.view.buffer, this.view.byteOffset + pos + 4, length)
    return new TextDecoder().decode(bytes)
  }

  /** Element `i` of a vector of strings. */
  stringIn(data: number, i: number, what: string): string {
    return this.stringAt(this.follow(data + 4 * i, what), what)
  }
}
