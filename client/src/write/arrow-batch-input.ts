import {
  ArrowBatchReader,
  type ArrowBatchReaderOptions,
  type ArrowCompressionInfo,
  type ArrowField,
  type ArrowType,
  arrowNodeCount,
  columnLayout,
  DEFAULT_MAX_UNCOMPRESSED_BYTES,
  readArrowStream,
  readRecordBatchInfo,
  recompressRecordBatch,
} from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { createValueChecker, type ValueChecker } from '@sluice/core/row'
import { type DataType, type RowType, typeToString } from '@sluice/core/types'

const VALIDATED: unique symbol = Symbol('validated Arrow batch')

/**
 * One Arrow IPC RecordBatch message checked against a row type by `validateArrowBatch` or
 * `validateArrowStream`, or taken from a trusted encoder by `encodedArrowBatch` (the only ways to
 * make one), with a reader over it. An append writer sends its `message` as the records of one log
 * batch.
 */
export class ValidatedArrowBatch {
  #reader: ArrowBatchReader | (() => ArrowBatchReader)

  /** Not for use outside this module: the brand proves the validation. */
  constructor(
    brand: typeof VALIDATED,
    /** The row type the message was validated against. */
    readonly rowType: RowType,
    /** The message, exactly (no trailing bytes). */
    readonly message: Uint8Array,
    /** A reader over the message, or how to make one when it is first needed. */
    reader: ArrowBatchReader | (() => ArrowBatchReader),
    readonly recordCount: number,
  ) {
    if (brand !== VALIDATED) throw new TypeError('ValidatedArrowBatch is made by validateArrowBatch')
    this.#reader = reader
  }

  get reader(): ArrowBatchReader {
    if (typeof this.#reader === 'function') this.#reader = this.#reader()
    return this.#reader
  }
}

/** Limits of the validation. */
export type ArrowValidationOptions = ArrowBatchReaderOptions

/**
 * Validates one bare Arrow IPC RecordBatch message (what a Fluss ARROW log batch carries) against a
 * row type: framing, field and buffer counts per column layout, buffer bounds, offsets, null counts
 * of NOT NULL columns (`ArrowBatchReader`, which also decompresses the body to check it), nothing
 * after the message, and the values of columns whose type allows less than the Arrow layout holds
 * (CHAR length, DECIMAL precision, TIME range). A bare message carries no types: columns of the
 * same layout (e.g. INT and FLOAT) cannot be told apart. Throws CORRUPT_RECORD_EXCEPTION or
 * INVALID_REQUEST.
 */
export function validateArrowBatch(
  message: Uint8Array,
  rowType: RowType,
  options: ArrowValidationOptions = {},
): ValidatedArrowBatch {
  const reader = new ArrowBatchReader(message, rowType, options)
  if (reader.messageSizeInBytes !== message.length) {
    throw new FlussError(
      'INVALID_REQUEST',
      `The Arrow RecordBatch message is followed by ${message.length - reader.messageSizeInBytes} more bytes; pass exactly one message`,
    )
  }
  checkConstrainedValues(reader, rowType)
  return new ValidatedArrowBatch(VALIDATED, rowType, message, reader, reader.recordCount)
}

/**
 * A RecordBatch message made by `ArrowBatchWriter` for exactly `rowType` (in this thread or in a
 * worker thread): taken as it is, its values trusted, only its header checked (record count, the
 * field nodes of the row type's columns and their nested children, nothing after the message). It is read, and then validated whole as by
 * `validateArrowBatch`, only if a write must split its rows (bucket keys, partitions). Not for
 * bytes from outside the process: validate those.
 */
export function encodedArrowBatch(message: Uint8Array, rowType: RowType): ValidatedArrowBatch {
  let info: ReturnType<typeof readRecordBatchInfo>
  try {
    info = readRecordBatchInfo(message)
  } catch (e) {
    throw new FlussError('CORRUPT_RECORD_EXCEPTION', `Not an Arrow RecordBatch message: ${String(e)}`)
  }
  const nodes = arrowNodeCount(rowType)
  if (info.fieldCount !== nodes || info.messageSizeInBytes !== message.length) {
    throw new FlussError(
      'INVALID_REQUEST',
      `The Arrow RecordBatch message (${info.fieldCount} field nodes, ${info.messageSizeInBytes} of ${message.length} bytes) was not made for this row type of ${rowType.fields.length} columns (${nodes} field nodes)`,
    )
  }
  const reader = () => validateArrowBatch(message, rowType).reader
  return new ValidatedArrowBatch(VALIDATED, rowType, message, reader, info.recordCount)
}

/**
 * Validates an Arrow IPC stream against a row type: its schema must have the row type's columns in
 * order, with the same names and exactly the Arrow types Fluss writes for them, children of List,
 * Map and Struct fields included (a TIMESTAMP_LTZ column or child also takes a timestamp with a
 * time zone; a nullable field may feed a NOT NULL column when it holds no null), and every
 * RecordBatch is validated as by `validateArrowBatch`.
 */
export function validateArrowStream(
  stream: Uint8Array,
  rowType: RowType,
  options: ArrowValidationOptions = {},
): ValidatedArrowBatch[] {
  const parsed = readArrowStream(stream, options)
  checkStreamSchema(parsed.fields, rowType)
  // The stream's own readers applied the stream's nullability; NOT NULL columns need a second look.
  const recheck = parsed.fields.some((f, i) => looserNullability(f, rowType.fields[i].type))
  return parsed.messages.map((message, i) => {
    const reader = recheck ? new ArrowBatchReader(message, rowType, options) : parsed.batches[i]
    checkConstrainedValues(reader, rowType)
    return new ValidatedArrowBatch(VALIDATED, rowType, message, reader, reader.recordCount)
  })
}

/**
 * The batch with its body in `compression` (see `recompressRecordBatch`): the same rows, so still
 * validated; the batch itself when it already uses that codec.
 */
export function recompressValidatedBatch(
  batch: ValidatedArrowBatch,
  compression: ArrowCompressionInfo,
  options: ArrowValidationOptions = {},
): ValidatedArrowBatch {
  const max = options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES
  const message = recompressRecordBatch(batch.message, compression, max)
  if (message === batch.message) return batch
  return new ValidatedArrowBatch(VALIDATED, batch.rowType, message, () => batch.reader, batch.recordCount)
}

/** Whether two row types have the same columns (names, types, nullability) in the same order. */
export function sameRowType(a: RowType, b: RowType): boolean {
  if (a === b) return true
  return (
    a.fields.length === b.fields.length &&
    a.fields.every(
      (f, i) => f.name === b.fields[i].name && typeToString(f.type) === typeToString(b.fields[i].type),
    )
  )
}

function checkStreamSchema(fields: readonly ArrowField[], rowType: RowType): void {
  const columns = rowType.fields
  const names = columns.map(c => c.name).join(', ')
  if (fields.length !== columns.length) {
    throw new FlussError(
      'INVALID_REQUEST',
      `The Arrow stream has ${fields.length} fields, the table has ${columns.length} columns (${names})`,
    )
  }
  fields.forEach((field, i) => {
    const column = columns[i]
    if (field.name !== column.name) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Arrow field ${i} is '${field.name}', the table's column ${i} is '${column.name}' (${names})`,
      )
    }
    const mismatch = arrowTypeMismatch(column.type, field, field.name)
    if (mismatch !== undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Arrow field '${mismatch.path}' has Arrow type ${mismatch.actual}, column '${column.name}' of type ${typeToString(column.type)} is written as ${mismatch.expected}`,
      )
    }
  })
}

interface ArrowTypeMismatch {
  /** The field (`tags`, `tags.element`, `point.x`) whose type differs. */
  readonly path: string
  readonly actual: string
  readonly expected: string
}

/**
 * The first field of `field`'s tree (itself, then its children depth-first) whose Arrow type is
 * not the one Fluss writes for `column`, or undefined when every one is. Children are matched by
 * position: Fluss names them `element`, `entries`/`key`/`value` and by ROW field name, while other
 * writers name list elements `item`; ROW field names are checked (the struct's fields are the ROW's).
 */
function arrowTypeMismatch(column: DataType, field: ArrowField, path: string): ArrowTypeMismatch | undefined {
  const layout = columnLayout(column)
  const differs = (why?: string): ArrowTypeMismatch => ({
    path,
    actual: `${describe(field.arrowType)}${why === undefined ? '' : ` (${why})`}`,
    expected: describe(layout.arrowType),
  })
  if (!sameArrowType(column, field.arrowType)) return differs()
  if (layout.children.length !== field.children.length)
    return differs(`${field.children.length} children, expected ${layout.children.length}`)
  for (let i = 0; i < layout.children.length; i++) {
    const expected = layout.children[i]
    const actual = field.children[i]
    if (column.type === 'ROW' && actual.name !== expected.name)
      return differs(`field ${i} is '${actual.name}', expected '${expected.name}'`)
    const inner = arrowTypeMismatch(expected.type, actual, `${path}.${actual.name}`)
    if (inner !== undefined) return inner
  }
  return undefined
}

/** Whether `actual` is the Arrow type Fluss writes for a column of type `column`. */
function sameArrowType(column: DataType, actual: ArrowType): boolean {
  const expected = columnLayout(column).arrowType
  switch (expected.id) {
    case 'Int':
      return actual.id === 'Int' && actual.bitWidth === expected.bitWidth && actual.signed === expected.signed
    case 'FloatingPoint':
      return actual.id === 'FloatingPoint' && actual.precision === expected.precision
    case 'FixedSizeBinary':
      return actual.id === 'FixedSizeBinary' && actual.byteWidth === expected.byteWidth
    case 'Decimal':
      return (
        actual.id === 'Decimal' &&
        actual.precision === expected.precision &&
        actual.scale === expected.scale &&
        actual.bitWidth === expected.bitWidth
      )
    case 'Date':
      return actual.id === 'Date' && actual.unit === expected.unit
    case 'Time':
      return actual.id === 'Time' && actual.unit === expected.unit && actual.bitWidth === expected.bitWidth
    case 'Timestamp':
      return (
        actual.id === 'Timestamp' &&
        actual.unit === expected.unit &&
        (actual.timezone === null || column.type === 'TIMESTAMP_WITH_LOCAL_TIME_ZONE')
      )
    default:
      return actual.id === expected.id
  }
}

function describe(t: ArrowType): string {
  const { id, ...params } = t
  const values = Object.values(params)
  return values.length === 0 ? id : `${id}(${values.join(', ')})`
}

/** Whether `field` or one of its children is nullable where the column's type (or child) is NOT NULL. */
function looserNullability(field: ArrowField, type: DataType): boolean {
  if (field.nullable && !type.nullable) return true
  const children = columnLayout(type).children
  return children.some((c, i) => i < field.children.length && looserNullability(field.children[i], c.type))
}

const CONSTRAINED = new Set(['CHAR', 'DECIMAL', 'TIME_WITHOUT_TIME_ZONE'])

/** Whether a type is, or holds at any depth, a type that allows less than its Arrow layout. */
function constrained(t: DataType): boolean {
  switch (t.type) {
    case 'ARRAY':
      return constrained(t.elementType)
    case 'MAP':
      return constrained(t.keyType) || constrained(t.valueType)
    case 'ROW':
      return t.fields.some(f => constrained(f.type))
    default:
      return CONSTRAINED.has(t.type)
  }
}

/**
 * Checks the values of the columns whose type allows less than their Arrow layout holds, at any
 * depth (a CHAR(3) element of an ARRAY is checked like a CHAR(3) column).
 */
function checkConstrainedValues(reader: ArrowBatchReader, rowType: RowType): void {
  const checks: { column: number; check: ValueChecker }[] = []
  rowType.fields.forEach((f, column) => {
    if (constrained(f.type)) checks.push({ column, check: createValueChecker(f.type, f.name) })
  })
  if (checks.length === 0) return
  for (let row = 0; row < reader.recordCount; row++) {
    for (const { column, check } of checks) {
      try {
        check(reader.getValue(row, column))
      } catch (e) {
        if (!(e instanceof FlussError)) throw e
        throw new FlussError(e.spec, `Row ${row} of the Arrow batch: ${e.message}`)
      }
    }
  }
}
