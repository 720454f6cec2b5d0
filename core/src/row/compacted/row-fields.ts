import { FlussError } from '../../errors/index.js'
import type { RowField } from '../../types/data-type.js'
import { invalidValue } from '../invalid-value.js'
import type { Row, Value } from '../value.js'
import { type CompactedRowReader, corruptRow } from './compacted-row-reader.js'
import type { CompactedRowWriter } from './compacted-row-writer.js'

/** Writes one non-null value (checked first, or known to be valid). */
export type FieldWriter = (w: CompactedRowWriter, value: Value) => void
/** Reads one non-null value. */
export type FieldReader = (r: CompactedRowReader) => Value

/**
 * Writes a row's fields (null bits included) with compiled per-column writers. A checked writer
 * rejects rows of the wrong length and nulls in NOT NULL columns; an unchecked one writes nested
 * rows whose values were checked with the enclosing column.
 */
export class RowFieldsWriter {
  private readonly nullable: boolean[]
  private readonly columns: string[]

  constructor(
    private readonly fields: readonly RowField[],
    private readonly writers: readonly FieldWriter[],
    private readonly checked: boolean,
    columnPrefix = '',
  ) {
    this.columns = fields.map(f => `${columnPrefix}${f.name}`)
    this.nullable = fields.map(f => f.type.nullable)
  }

  write(w: CompactedRowWriter, row: readonly Value[]): void {
    const n = this.writers.length
    if (this.checked && (!Array.isArray(row) || row.length !== n)) {
      const got = Array.isArray(row) ? `${row.length} values` : typeof row
      throw new FlussError('INVALID_REQUEST', `Expected a row of ${n} values, got ${got}`)
    }
    for (let i = 0; i < n; i++) {
      const v = row[i]
      if (v === null) {
        if (this.checked && !this.nullable[i]) {
          throw invalidValue(this.columns[i], this.fields[i].type, v, 'the column is NOT NULL')
        }
        w.setNullAt(i)
      } else {
        this.writers[i](w, v)
      }
    }
  }
}

/** Reads all fields of a row; `withNullBits` is false for keys, which have no null bit set. */
export class RowFieldsReader {
  constructor(
    private readonly readers: readonly FieldReader[],
    private readonly withNullBits: boolean,
  ) {}

  read(r: CompactedRowReader): Row {
    const n = this.readers.length
    const row: Value[] = new Array(n)
    for (let i = 0; i < n; i++) {
      row[i] = this.withNullBits && r.isNullAt(i) ? null : this.readers[i](r)
    }
    if (r.remaining !== 0) throw corruptRow(`${r.remaining} bytes left after the last field`)
    return row
  }
}
