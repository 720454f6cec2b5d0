import { FlussError } from '../errors/index.js'
import { type DataType, typeToString } from '../types/data-type.js'
import { ColumnKind as K } from './arrow-type.js'
import type { ColumnLayout } from './column-layout.js'
import type { ArrowColumn } from './column-reader.js'
import { type LakeColumnBuffers, lakeColumnConverter, nullColumn } from './lake-columns.js'

/**
 * A decoded column of a log batch → the buffers of its lake column, nested columns included: flat
 * columns (and flat children at any depth) go through `lakeColumnConverter` (passed through, or
 * converted at buffer level: integers widened, time units rescaled), while the validity and offset
 * buffers of List, Map and Struct levels are reused as they are. An all-null level gets an explicit
 * validity bitmap (Arrow readers need one when the null count is not zero).
 */

const EMPTY = new Uint8Array(0)
const ZERO_OFFSET = new Uint8Array(4)

/** The raw buffers of a decoded column: validity, [offsets,] data (or validity, [offsets] for nested). */
function rawBuffers(c: ArrowColumn, layout: ColumnLayout): Uint8Array[] {
  const validity = c.validity ?? (c.allNull ? new Uint8Array((c.length + 7) >> 3) : EMPTY)
  const offsets =
    c.offsets === null
      ? ZERO_OFFSET
      : new Uint8Array(c.offsets.buffer, c.offsets.byteOffset, c.offsets.byteLength)
  if (layout.children.length > 0) return layout.bufferCount === 1 ? [validity] : [validity, offsets]
  return layout.bufferCount === 3 ? [validity, offsets, c.data] : [validity, c.data]
}

function unsupported(name: string, from: DataType, to: DataType): FlussError {
  return new FlussError(
    'INVALID_REQUEST',
    `column '${name}' cannot be written as ${typeToString(to)} from ${typeToString(from)}`,
  )
}

/**
 * The lake buffers of `column` (of type `from`, decoded with `fromLayout`) as a lake column of
 * type `to`; `name` is its path in errors (`samples.element.ts`). INVALID_REQUEST when a level
 * cannot be converted.
 */
export function lakeColumnTree(
  name: string,
  from: DataType,
  fromLayout: ColumnLayout,
  to: DataType,
  toLayout: ColumnLayout,
  column: ArrowColumn,
): LakeColumnBuffers {
  const buffers = rawBuffers(column, fromLayout)
  if (fromLayout.children.length === 0) {
    if (toLayout.children.length > 0) throw unsupported(name, from, to)
    const converted = lakeColumnConverter(name, from, fromLayout, to, toLayout)(column, buffers, name)
    return { ...converted, buffers: withValidity(converted.buffers, column), length: column.length }
  }
  if (fromLayout.kind !== toLayout.kind || fromLayout.children.length !== toLayout.children.length)
    throw unsupported(name, from, to)
  const children = fromLayout.children.map((c, k) => {
    const target = toLayout.children[k]
    return lakeColumnTree(
      `${name}.${c.name}`,
      c.type,
      c.layout,
      target.type,
      target.layout,
      column.children[k],
    )
  })
  return { buffers, nullCount: column.nullCount, length: column.length, children }
}

/** An explicit all-zero validity bitmap where an all-null flat column has none. */
function withValidity(buffers: readonly Uint8Array[], column: ArrowColumn): readonly Uint8Array[] {
  if (!column.allNull || buffers[0].length > 0) return buffers
  return [new Uint8Array((column.length + 7) >> 3), ...buffers.slice(1)]
}

/**
 * An all-null column of `rows` values in `layout`, nested ones included (for columns added after
 * a batch was written): a List or Map with empty children, a Struct with all-null children.
 */
export function nullColumnTree(layout: ColumnLayout, rows: number): LakeColumnBuffers {
  if (layout.children.length === 0) return { ...nullColumn(layout, rows), length: rows }
  const validity = new Uint8Array((rows + 7) >> 3)
  if (layout.kind === K.STRUCT) {
    return {
      buffers: [validity],
      nullCount: rows,
      length: rows,
      children: layout.children.map(c => nullColumnTree(c.layout, rows)),
    }
  }
  return {
    buffers: [validity, new Uint8Array(4 * (rows + 1))],
    nullCount: rows,
    length: rows,
    children: layout.children.map(c => emptyColumnTree(c.layout)),
  }
}

/** A column of no values in `layout`. */
function emptyColumnTree(layout: ColumnLayout): LakeColumnBuffers {
  const children = layout.children.map(c => emptyColumnTree(c.layout))
  const buffers =
    layout.bufferCount === 1
      ? [EMPTY]
      : layout.bufferCount === 2
        ? [EMPTY, layout.children.length > 0 ? ZERO_OFFSET : EMPTY]
        : [EMPTY, ZERO_OFFSET, EMPTY]
  return { buffers, nullCount: 0, length: 0, ...(children.length > 0 ? { children } : {}) }
}

/** Every node (length, null count) and buffer of a column tree, depth-first as a RecordBatch lists them. */
export function flattenColumnTree(
  c: LakeColumnBuffers,
  rows: number,
  nodes: { length: number; nullCount: number }[],
  pieces: Uint8Array[],
): void {
  nodes.push({ length: c.length ?? rows, nullCount: c.nullCount })
  pieces.push(...c.buffers)
  for (const child of c.children ?? []) flattenColumnTree(child, rows, nodes, pieces)
}
