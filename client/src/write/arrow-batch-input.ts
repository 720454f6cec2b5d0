import {
  ArrowBatchReader,
  type ArrowBatchReaderOptions,
  type ArrowCompressionInfo,
  type ArrowField,
  type ArrowType,
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
 * worker thread): taken as it is, its values trusted, only its header checked (record count, one
 * field node per column, nothing after the message). It is read, and then validated whole as by
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
  if (info.fieldCount !== rowType.fields.length || info.messageSizeInBytes !== message.length) {
    throw new FlussError(
      'INVALID_REQUEST',
      `The Arrow RecordBatch message (${info.fieldCount} fields, ${info.messageSizeInBytes} of ${message.length} bytes) was not made for this row type of ${rowType.fields.length} columns`,
    )
  }
  const reader = () => validateArrowBatch(message, rowType).reader
  return new ValidatedArrowBatch(VALIDATED, rowType, message, reader, info.recordCount)
}

/**
 * Validates an Arrow IPC stream against a row type: its schema must have the row type's columns in
 * order, with the same names and exactly the Arrow types Fluss writes for them (a TIMESTAMP_LTZ
 * column also takes a timestamp with a time zone; a nullable field may feed a NOT NULL column when
 * it holds no null), and every RecordBatch is validated as by `validateArrowBatch`.
 */
export function validateArrowStream(
  stream: Uint8Array,
  rowType: RowType,
  options: ArrowValidationOptions = {},
): ValidatedArrowBatch[] {
  const parsed = readArrowStream(stream, options)
  checkStreamSchema(parsed.fields, rowType)
  // The stream's own readers applied the stream's nullability; NOT NULL columns need a second look.
  const recheck = parsed.fields.some((f, i) => f.nullable && !rowType.fields[i].type.nullable)
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
    if (!sameArrowType(column.type, field.arrowType)) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Arrow field '${field.name}' has Arrow type ${describe(field.arrowType)}, column '${column.name}' of type ${typeToString(column.type)} is written as ${describe(columnLayout(column.type).arrowType)}`,
      )
    }
  })
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

const CONSTRAINED = new Set(['CHAR', 'DECIMAL', 'TIME_WITHOUT_TIME_ZONE'])

/** Checks the values of the columns whose type allows less than their Arrow layout holds. */
function checkConstrainedValues(reader: ArrowBatchReader, rowType: RowType): void {
  const checks: { column: number; check: ValueChecker }[] = []
  rowType.fields.forEach((f, column) => {
    if (CONSTRAINED.has(f.type.type)) checks.push({ column, check: createValueChecker(f.type, f.name) })
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
