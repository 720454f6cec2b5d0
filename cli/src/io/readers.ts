import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { parse } from 'csv-parse'
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

export type InputFormat = 'jsonl' | 'csv' | 'parquet'

/** One input record: where it is in the input (line, or row for Parquet) and its fields by name. */
export interface InputRecord {
  /** 1-based line number (jsonl, csv) or row number (parquet). */
  readonly line: number
  /** Fields by column name, JSON-like (csv: text), or the reason the line could not be read. */
  readonly fields: Readonly<Record<string, unknown>> | { readonly error: string }
  /** Bytes of input consumed up to this record (for progress). */
  readonly bytes: number
  /** Whether `fields` are text cells (CSV). */
  readonly text: boolean
}

/** The format named by a file's extension. */
export function formatOf(file: string | undefined, given: string | undefined): InputFormat {
  const f = (given ?? file?.split('.').pop() ?? 'jsonl').toLowerCase()
  if (f === 'jsonl' || f === 'ndjson' || f === 'json') return 'jsonl'
  if (f === 'csv' || f === 'parquet') return f
  throw new Error(`unknown input format '${f}' (jsonl, csv or parquet)`)
}

/** Records of JSON lines (blank lines skipped). */
export async function* jsonLines(input: NodeJS.ReadableStream): AsyncGenerator<InputRecord> {
  let line = 0
  let bytes = 0
  for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    line++
    bytes += Buffer.byteLength(text) + 1
    if (text.trim() === '') continue
    let fields: InputRecord['fields']
    try {
      const v: unknown = JSON.parse(text)
      fields =
        v !== null && typeof v === 'object' && !Array.isArray(v)
          ? (v as Record<string, unknown>)
          : { error: 'not a JSON object' }
    } catch (e) {
      fields = { error: `not JSON: ${(e as Error).message}` }
    }
    yield { line, fields, bytes, text: false }
  }
}

/** Records of a CSV file whose first line names the columns. */
export async function* csvRecords(input: NodeJS.ReadableStream): AsyncGenerator<InputRecord> {
  const parser = input.pipe(
    parse({ columns: true, info: true, relax_column_count: true, skip_empty_lines: true }),
  )
  for await (const r of parser as AsyncIterable<{
    record: Record<string, string>
    info: { lines: number; bytes: number; invalid_field_length: number }
  }>) {
    const wrongCount = r.info.invalid_field_length > 0
    yield {
      line: r.info.lines,
      fields: wrongCount ? { error: 'wrong number of fields' } : r.record,
      bytes: r.info.bytes,
      text: true,
    }
  }
}

/** Records of a Parquet file, one row group at a time. */
export async function* parquetRecords(file: string): AsyncGenerator<InputRecord> {
  const buffer = await asyncBufferFromFile(file)
  const metadata = await parquetMetadataAsync(buffer)
  let rowStart = 0
  let row = 0
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows)
    const rows = (await parquetReadObjects({
      file: buffer,
      metadata,
      compressors,
      rowStart,
      rowEnd,
    })) as Record<string, unknown>[]
    for (const fields of rows) {
      row++
      yield {
        line: row,
        fields,
        bytes: Math.round((buffer.byteLength * row) / Number(metadata.num_rows)),
        text: false,
      }
    }
    rowStart = rowEnd
  }
}

/** The records of `file` (or stdin when absent) in `format`. */
export function readRecords(
  format: InputFormat,
  file: string | undefined,
  stdin: NodeJS.ReadableStream,
): AsyncGenerator<InputRecord> {
  if (format === 'parquet') {
    if (file === undefined) throw new Error('Parquet input needs --file (it cannot be read from stdin)')
    return parquetRecords(file)
  }
  const input = file === undefined ? stdin : createReadStream(file)
  return format === 'csv' ? csvRecords(input) : jsonLines(input)
}
