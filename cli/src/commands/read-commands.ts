import type { Connection, OffsetSpec } from '@sluice/client'
import type { TableInfo, TablePath } from '@sluice/core/metadata'
import { changeTypeShortString } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { DataType } from '@sluice/core/types'
import type { Command } from 'commander'
import { textToValue, valueToJson } from '../io/values.js'
import { CliError, EXIT, type GlobalOptions, type Io, parseTablePath, withConnection } from './context.js'
import { jsonReplacer, printRows } from './output.js'

type Opts = GlobalOptions & Record<string, unknown>
const opts = (cmd: Command) => cmd.optsWithGlobals() as Opts

/** A row as a JSON object of the named columns. */
export function rowJson(
  columns: readonly { name: string; type: DataType }[],
  row: Row,
): Record<string, unknown> {
  return Object.fromEntries(columns.map((c, i) => [c.name, valueToJson(c.type, row[i] ?? null)]))
}

/** `--from earliest|latest|<epoch ms>|<ISO time>`. */
export function offsetSpecOf(from: string): OffsetSpec {
  if (from === 'earliest' || from === 'latest') return from
  const ms = /^\d+$/.test(from) ? Number(from) : Date.parse(from)
  if (Number.isNaN(ms)) throw new CliError(`--from '${from}' is not earliest, latest or a time`, EXIT.USAGE)
  return { timestamp: ms }
}

/** `key=value` pairs as a key row of `columns` (values as text, in the column types). */
function keyRow(info: TableInfo, columns: readonly string[], pairs: readonly string[]): unknown[] {
  const given = new Map(
    pairs.map(p => {
      const eq = p.indexOf('=')
      if (eq <= 0) throw new CliError(`'${p}' is not column=value`, EXIT.USAGE)
      return [p.slice(0, eq), p.slice(eq + 1)] as const
    }),
  )
  for (const k of given.keys())
    if (!columns.includes(k))
      throw new CliError(`'${k}' is not one of the key columns ${columns.join(', ')}`, EXIT.USAGE)
  return columns.map(name => {
    const text = given.get(name)
    if (text === undefined) throw new CliError(`missing key column ${name}=...`, EXIT.USAGE)
    const field = info.rowType.fields.find(f => f.name === name)
    try {
      return textToValue(field?.type as DataType, text)
    } catch (e) {
      throw new CliError(`${name}: ${(e as Error).message}`, EXIT.USAGE)
    }
  })
}

async function tail(c: Connection, path: TablePath, o: Opts, io: Io): Promise<void> {
  const table = await c.getTable(path)
  const info = table.getTableInfo()
  const project = o.project === undefined ? undefined : (o.project as string).split(',').map(s => s.trim())
  const scan = project === undefined ? table.newScan() : table.newScan().project(project)
  const columns = (project ?? info.rowType.fields.map(f => f.name)).map(name => {
    const f = info.rowType.fields.find(x => x.name === name)
    if (f === undefined) throw new CliError(`--project: no column '${name}'`, EXIT.USAGE)
    return { name, type: f.type }
  })
  const scanner = scan.createLogScanner()
  const admin = c.getAdmin()
  const spec = offsetSpecOf((o.from as string | undefined) ?? 'latest')
  const buckets = Array.from({ length: info.numBuckets }, (_, b) => b)
  const partitions = info.isPartitioned ? await admin.listPartitionInfos(path) : [undefined]
  for (const p of partitions) {
    const offsets = await admin.listOffsets(path, buckets, spec, p?.partitionName)
    for (const b of buckets) {
      const offset = offsets.get(b) ?? 0
      if (p === undefined) scanner.subscribe(b, offset)
      else scanner.subscribe(p.partitionId, b, offset)
    }
  }
  // On stderr, so scripts (and people) know from when records will come; stdout stays records only.
  io.err(`tailing ${path.databaseName}.${path.tableName} from ${o.from ?? 'latest'}\n`)
  const limit = o.limit === undefined ? Number.POSITIVE_INFINITY : Number(o.limit)
  const idleMs = o.idleTimeout === undefined ? Number.POSITIVE_INFINITY : Number(o.idleTimeout)
  let seen = 0
  let lastRecordMs = Date.now()
  let stopped = false
  const stop = () => {
    stopped = true
    scanner.wakeup()
  }
  process.once('SIGINT', stop)
  try {
    while (!stopped && seen < limit && Date.now() - lastRecordMs < idleMs) {
      const records = await scanner.poll(500)
      for (const r of records) {
        if (seen >= limit) break
        seen++
        lastRecordMs = Date.now()
        const row = rowJson(columns, r.row)
        const line =
          o.changelog === true
            ? {
                _change_type: changeTypeShortString(r.changeType),
                _offset: r.offset,
                _timestamp: r.timestamp,
                ...row,
              }
            : row
        io.out(
          o.output === 'table'
            ? `${Object.values(line).join('\t')}\n`
            : `${JSON.stringify(line, jsonReplacer)}\n`,
        )
      }
    }
  } finally {
    process.off('SIGINT', stop)
    await scanner.close()
  }
}

/** `tail`, `lookup`, `prefix-lookup`, `scan`. */
export function registerReadCommands(program: Command, io: Io): void {
  program
    .command('tail <table>')
    .description('print records as they arrive, one JSON object per line (--output table: tab-separated)')
    .option('--from <where>', 'earliest, latest (default), or a time (epoch ms or ISO)', 'latest')
    .option('--project <cols>', 'only these columns, comma-separated')
    .option(
      '--changelog',
      'prefix each record with its change type (+I, -U, +U, -D, +A), offset and timestamp',
    )
    .option('--limit <n>', 'stop after n records')
    .option('--idle-timeout <ms>', 'stop after this long without a record')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, c => tail(c, parseTablePath(name), o, io))
    })

  for (const prefix of [false, true]) {
    program
      .command(`${prefix ? 'prefix-lookup' : 'lookup'} <table> <key...>`)
      .description(
        prefix
          ? 'rows of a primary-key table whose bucket key has the given values (column=value...)'
          : 'the row of a primary-key table with the given primary key (column=value...)',
      )
      .action(async (name: string, key: string[], _, cmd: Command) => {
        const o = opts(cmd)
        await withConnection(o, io, async c => {
          const table = await c.getTable(parseTablePath(name))
          const info = table.getTableInfo()
          if (!info.hasPrimaryKey) throw new CliError(`${name} has no primary key`, EXIT.USAGE)
          const keyColumns = prefix
            ? [...info.bucketKeys, ...info.partitionKeys.filter(p => !info.bucketKeys.includes(p))]
            : info.primaryKeys
          const lookuper = prefix
            ? table
                .newLookup()
                .lookupBy([...keyColumns])
                .createLookuper()
            : table.newLookup().createLookuper()
          const keyInput = keyRow(info, keyColumns, key)
          const result = await lookuper.lookup(keyInput)
          const columns = info.rowType.fields.map(f => ({ name: f.name, type: f.type }))
          const rows = result.rows().map(r => rowJson(columns, r))
          if (!prefix && rows.length === 0) throw new CliError(`no row with ${key.join(' ')}`, EXIT.NOT_FOUND)
          printRows(
            io,
            o.output,
            columns.map(col => col.name),
            rows.map(r => Object.values(r)),
            prefix ? rows : rows[0],
          )
        })
      })
  }
}
