import { statSync } from 'node:fs'
import { type Connection, RowConverter } from '@sluice/client'
import type { TableInfo, TablePath } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import type { Command } from 'commander'
import { startProgress } from '../io/progress.js'
import { formatOf, type InputRecord, readRecords } from '../io/readers.js'
import { jsonToValue, textToValue } from '../io/values.js'
import { CliError, EXIT, type GlobalOptions, type Io, parseTablePath, withConnection } from './context.js'

export interface ProduceOptions {
  readonly file?: string
  readonly format?: string
  /** Bad rows tolerated (skipped and reported); one more stops the run. */
  readonly maxErrors: number
  /** Rows validated together before any is written. */
  readonly batchRows: number
  /** Piped runs: milliseconds between progress lines (default 2000). */
  readonly progressInterval?: number
}

export interface ProduceResult {
  readonly written: number
  readonly rejected: number
}

interface Rejected {
  readonly line: number
  readonly reason: string
}

/** One record as a row of the table, or the reason it is not one. */
function toRow(info: TableInfo, converter: RowConverter, r: InputRecord): Row {
  if ('error' in r.fields && typeof r.fields.error === 'string' && Object.keys(r.fields).length === 1)
    throw new Error(r.fields.error)
  const fields = r.fields as Record<string, unknown>
  const names = new Set(info.rowType.fields.map(f => f.name))
  for (const k of Object.keys(fields)) if (!names.has(k)) throw new Error(`unknown column '${k}'`)
  const values = info.rowType.fields.map(f => {
    try {
      const v = fields[f.name]
      return r.text ? textToValue(f.type, (v as string | undefined) ?? '') : jsonToValue(f.type, v)
    } catch (e) {
      throw new Error(`column ${f.name}: ${(e as Error).message}`)
    }
  })
  return converter.toRow(values)
}

/**
 * Writes the records of a file (or stdin) in batches of `batchRows`: every row of a batch is
 * converted and checked before any is written, so a batch whose bad rows exceed what
 * `--max-errors` still allows is written not at all. Bad rows are reported by line number.
 */
export async function produce(
  connection: Connection,
  path: TablePath,
  options: ProduceOptions,
  io: Io,
): Promise<ProduceResult> {
  const table = await connection.getTable(path)
  const info = table.getTableInfo()
  const converter = new RowConverter(info.rowType)
  const writer = info.hasPrimaryKey ? table.newUpsert().createWriter() : table.newAppend().createWriter()
  const write = info.hasPrimaryKey
    ? (row: Row) => (writer as ReturnType<ReturnType<typeof table.newUpsert>['createWriter']>).upsert(row)
    : (row: Row) => (writer as ReturnType<ReturnType<typeof table.newAppend>['createWriter']>).append(row)
  const format = formatOf(options.file, options.format)
  const total = options.file === undefined ? undefined : statSync(options.file).size
  const progress = startProgress(io, 'produced', total, options.progressInterval)
  let written = 0
  let rejectedTotal = 0
  let batch: Row[] = []
  let rejected: Rejected[] = []
  let firstLine = 0
  let bytes = 0

  const flushBatch = async (lastLine: number) => {
    for (const r of rejected) io.err(`line ${r.line}: ${r.reason}\n`)
    rejectedTotal += rejected.length
    if (rejectedTotal > options.maxErrors) {
      throw new CliError(
        `${rejectedTotal} bad rows (more than --max-errors ${options.maxErrors}); lines ${firstLine}-${lastLine} were not written; ${written} rows written before them`,
        EXIT.USAGE,
      )
    }
    for (const row of batch) {
      const wait = write(row)
      if (wait) await wait
    }
    await writer.flush()
    written += batch.length
    progress.update(written, bytes)
    batch = []
    rejected = []
  }

  try {
    let lastLine = 0
    for await (const r of readRecords(format, options.file, io.stdin)) {
      if (batch.length + rejected.length === 0) firstLine = r.line
      lastLine = r.line
      bytes = r.bytes
      try {
        batch.push(toRow(info, converter, r))
      } catch (e) {
        rejected.push({ line: r.line, reason: (e as Error).message })
      }
      if (batch.length + rejected.length >= options.batchRows) await flushBatch(lastLine)
    }
    if (batch.length + rejected.length > 0) await flushBatch(lastLine)
    await writer.close()
  } finally {
    progress.stop()
  }
  return { written, rejected: rejectedTotal }
}

const integer = (name: string, min: number) => (v: string) => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < min)
    throw new CliError(`${name} must be an integer >= ${min}, got '${v}'`, EXIT.USAGE)
  return n
}

export function registerProduce(program: Command, io: Io): void {
  program
    .command('produce <table>')
    .description('write rows from a JSON-lines, CSV (with a header line) or Parquet file, or from stdin')
    .option('-f, --file <path>', 'input file (default: stdin)')
    .option('--format <format>', 'jsonl, csv or parquet (default: from the file extension; jsonl for stdin)')
    .option('--max-errors <n>', 'bad rows to skip and report before giving up', integer('--max-errors', 0), 0)
    .option(
      '--batch-rows <n>',
      'rows checked together before any of them is written',
      integer('--batch-rows', 1),
      10_000,
    )
    .option(
      '--progress-interval <ms>',
      'when stderr is not a terminal: milliseconds between progress lines',
      integer('--progress-interval', 1),
      2000,
    )
    .action(async (name: string, _, cmd: Command) => {
      const o = cmd.optsWithGlobals() as GlobalOptions & ProduceOptions
      const result = await withConnection(o, io, c => produce(c, parseTablePath(name), o, io))
      io.err(
        `wrote ${result.written} rows to ${name}${result.rejected > 0 ? `; rejected ${result.rejected}` : ''}\n`,
      )
      if (o.output === 'json') io.out(`${JSON.stringify(result)}\n`)
      if (result.rejected > 0) io.setExitCode(EXIT.REJECTED_ROWS)
    })
}
