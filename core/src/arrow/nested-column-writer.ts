import { FlussError } from '../errors/index.js'
import { createNonNullChecker } from '../row/check-value.js'
import type { Value } from '../row/value.js'
import type { DataType } from '../types/data-type.js'
import { ColumnKind as K } from './arrow-type.js'
import type { ColumnLayout } from './column-layout.js'
import { type ArrowColumnWriter, ColumnWriter, pad8 } from './column-writer.js'

/**
 * Writers of List (ARRAY), Map (MAP) and Struct (ROW) columns, as Fluss's ArrowArrayWriter,
 * ArrowMapWriter and ArrowRowWriter fill Arrow Java vectors: a validity bitmap per node, int32
 * offsets into the child for lists and maps, one child slot per row for structs (a null struct's
 * children hold nulls). A top-level nested column checks each whole value first (`checkValue`,
 * so errors name the path, e.g. `tags[3].score`); its children are then written unchecked.
 */

const EMPTY = new Uint8Array(0)

/** The writer of one column (flat or nested); `name` is used in error messages. */
export function createColumnWriter(
  name: string,
  type: DataType,
  layout: ColumnLayout,
  initialCapacity: number,
  checked = true,
): ArrowColumnWriter {
  switch (layout.kind) {
    case K.LIST:
    case K.MAP:
      return new ListColumnWriter(name, type, layout, initialCapacity, checked)
    case K.STRUCT:
      return new StructColumnWriter(name, type, layout, initialCapacity, checked)
    default:
      return new ColumnWriter(name, type, layout, initialCapacity)
  }
}

/** Validity bitmap, null count and the whole-value check shared by nested columns. */
abstract class NestedColumnWriter implements ArrowColumnWriter {
  count = 0
  nullCount = 0
  protected validity: Uint8Array
  protected readonly children: ArrowColumnWriter[]
  private readonly check: ((v: Value) => void) | null

  constructor(
    protected readonly name: string,
    protected readonly type: DataType,
    layout: ColumnLayout,
    initialCapacity: number,
    checked: boolean,
  ) {
    this.validity = new Uint8Array(Math.max(8, (initialCapacity + 7) >> 3))
    this.check = checked ? createNonNullChecker(type, name) : null
    this.children = layout.children.map(c =>
      createColumnWriter(`${name}.${c.name}`, c.type, c.layout, initialCapacity, false),
    )
  }

  write(v: Value): void {
    if (v === null || v === undefined) {
      if (!this.type.nullable)
        throw new FlussError('INVALID_REQUEST', `null value in NOT NULL column '${this.name}'`)
      this.writeAbsent()
      return
    }
    this.check?.(v)
    const i = this.count
    this.ensureCapacity(i + 1)
    const childCounts = this.children.map(c => c.count)
    try {
      this.writeChildren(i, v)
    } catch (e) {
      for (let k = 0; k < this.children.length; k++) this.children[k].rollback(childCounts[k])
      throw e
    }
    this.validity[i >> 3] |= 1 << (i & 7)
    this.count = i + 1
  }

  writeAbsent(): void {
    const i = this.count
    this.ensureCapacity(i + 1)
    this.writeNullChildren(i)
    this.nullCount++
    this.count = i + 1
  }

  /** Writes the children of the non-null value `v` at row `i`. */
  protected abstract writeChildren(i: number, v: Value): void
  /** Writes what the children hold for a null at row `i`. */
  protected abstract writeNullChildren(i: number): void
  /** Child values that belong to the first `rows` rows. */
  protected abstract childCountAt(rows: number): number

  protected ensureCapacity(rows: number): void {
    if (rows <= this.validity.length * 8) return
    const next = new Uint8Array(Math.max(this.validity.length * 2, (rows + 7) >> 3))
    next.set(this.validity)
    this.validity = next
  }

  rollback(rows: number): void {
    if (rows >= this.count) return
    const childRows = this.childCountAt(rows)
    for (let i = rows; i < this.count; i++) {
      const bit = 1 << (i & 7)
      if ((this.validity[i >> 3] & bit) === 0) this.nullCount--
      this.validity[i >> 3] &= ~bit
    }
    this.count = rows
    for (const c of this.children) c.rollback(childRows)
  }

  reset(): void {
    this.validity.fill(0, 0, (this.count + 7) >> 3)
    this.count = 0
    this.nullCount = 0
    for (const c of this.children) c.reset()
  }

  protected validityBuffer(): Uint8Array {
    return this.nullCount > 0 ? this.validity.subarray(0, (this.count + 7) >> 3) : EMPTY
  }

  protected validityBytes(): number {
    return this.nullCount > 0 ? pad8((this.count + 7) >> 3) : 0
  }

  nodes(out: number[]): void {
    out.push(this.count, this.nullCount)
    for (const c of this.children) c.nodes(out)
  }

  protected childBodySize(): number {
    let size = 0
    for (const c of this.children) size += c.bodySize()
    return size
  }

  abstract buffers(out: Uint8Array[]): void
  abstract bodySize(): number
}

/** List (ARRAY) and Map (MAP, whose one child is the `entries` struct of key and value). */
class ListColumnWriter extends NestedColumnWriter {
  private offsets = new Int32Array(9)
  private readonly isMap = this.type.type === 'MAP'

  protected override ensureCapacity(rows: number): void {
    super.ensureCapacity(rows)
    if (rows + 1 <= this.offsets.length) return
    const next = new Int32Array(Math.max(this.offsets.length * 2, rows + 1))
    next.set(this.offsets)
    this.offsets = next
  }

  protected writeChildren(i: number, v: Value): void {
    const child = this.children[0]
    if (this.isMap) for (const entry of v as Map<Value, Value>) child.write(entry)
    else for (const element of v as Value[]) child.write(element)
    this.offsets[i + 1] = child.count
  }

  protected writeNullChildren(i: number): void {
    this.offsets[i + 1] = this.offsets[i]
  }

  protected childCountAt(rows: number): number {
    return this.offsets[rows]
  }

  buffers(out: Uint8Array[]): void {
    out.push(this.validityBuffer())
    out.push(new Uint8Array(this.offsets.buffer, 0, (this.count + 1) * 4))
    this.children[0].buffers(out)
  }

  bodySize(): number {
    return this.validityBytes() + pad8((this.count + 1) * 4) + this.childBodySize()
  }
}

/** Struct (ROW, and the `entries` of a map): one child per field, a slot per row in each. */
class StructColumnWriter extends NestedColumnWriter {
  protected writeChildren(_i: number, v: Value): void {
    const values = v as Value[]
    for (let k = 0; k < this.children.length; k++) this.children[k].write(values[k])
  }

  protected writeNullChildren(): void {
    for (const c of this.children) c.writeAbsent()
  }

  protected childCountAt(rows: number): number {
    return rows
  }

  buffers(out: Uint8Array[]): void {
    out.push(this.validityBuffer())
    for (const c of this.children) c.buffers(out)
  }

  bodySize(): number {
    return this.validityBytes() + this.childBodySize()
  }
}
