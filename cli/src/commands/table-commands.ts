import { readFileSync } from 'node:fs'
import { Schema, TableDescriptor, tableDescriptorFromJson } from '@sluice/core/metadata'
import { typeToString } from '@sluice/core/types'
import type { Command } from 'commander'
import { parseColumnType, ValueError } from '../io/values.js'
import { type AlterOptions, tableChangesOf } from './alter-options.js'
import { CliError, EXIT, type GlobalOptions, type Io, parseTablePath, withConnection } from './context.js'
import { printRecord, printRows } from './output.js'

type Opts = GlobalOptions & Record<string, unknown>
const opts = (cmd: Command) => cmd.optsWithGlobals() as Opts
const collect = (value: string, previous: string[] = []) => [...previous, value]

/** `name:TYPE` (the type may contain ':' free text such as `DECIMAL(10,2) NOT NULL`). */
function parseColumn(spec: string): { name: string; type: ReturnType<typeof parseColumnType> } {
  const colon = spec.indexOf(':')
  if (colon <= 0) throw new CliError(`--column '${spec}' is not name:TYPE`, EXIT.USAGE)
  try {
    return { name: spec.slice(0, colon).trim(), type: parseColumnType(spec.slice(colon + 1)) }
  } catch (e) {
    throw new CliError(`--column '${spec}': ${(e as Error).message}`, EXIT.USAGE)
  }
}

function keyValues(pairs: readonly string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const p of pairs ?? []) {
    const eq = p.indexOf('=')
    if (eq <= 0) throw new CliError(`${flag} '${p}' is not key=value`, EXIT.USAGE)
    out[p.slice(0, eq)] = p.slice(eq + 1)
  }
  return out
}

/** The table of `table create`: from `--schema-file` (Fluss's table JSON) or from the flags. */
function descriptorOf(o: Opts): TableDescriptor {
  if (o.schemaFile !== undefined) {
    try {
      return tableDescriptorFromJson(readFileSync(o.schemaFile as string, 'utf8'))
    } catch (e) {
      throw new CliError(`--schema-file ${o.schemaFile}: ${(e as Error).message}`, EXIT.USAGE)
    }
  }
  const columns = ((o.column as string[] | undefined) ?? []).map(parseColumn)
  if (columns.length === 0)
    throw new CliError('a table needs --column name:TYPE (or --schema-file)', EXIT.USAGE)
  const schema = Schema.newBuilder()
  for (const c of columns) schema.column(c.name, c.type)
  const pk = o.primaryKey as string | undefined
  if (pk !== undefined) schema.primaryKey(...pk.split(',').map(s => s.trim()))
  const builder = TableDescriptor.builder().schema(schema.build())
  const bucketKey = o.bucketKey === undefined ? [] : (o.bucketKey as string).split(',')
  builder.distributedBy(o.buckets === undefined ? undefined : Number(o.buckets), bucketKey)
  if (o.partitionedBy !== undefined) builder.partitionedBy((o.partitionedBy as string).split(','))
  builder.properties(keyValues(o.set as string[] | undefined, '--set'))
  if (o.comment !== undefined) builder.comment(o.comment as string)
  return builder.build()
}

/** `table list|describe|create|drop|alter`. */
export function registerTableCommands(program: Command, io: Io): void {
  const table = program.command('table').description('tables')
  table
    .command('list <database>')
    .description('list the tables of a database')
    .action(async (database: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, async c => {
        const names = await c.getAdmin().listTables(database)
        printRows(
          io,
          o.output,
          ['table'],
          names.map(n => [n]),
          names,
        )
      })
    })
  table
    .command('describe <table>')
    .description('columns, keys, buckets (leader and replicas), partitions and properties')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, async c => {
        const admin = c.getAdmin()
        const path = parseTablePath(name)
        const info = await admin.getTableInfo(path)
        const buckets = info.isPartitioned ? [] : await admin.getBucketLocations(path)
        const columns = info.schema.columns.map(col => ({ name: col.name, type: typeToString(col.type) }))
        const described = {
          table: `${path.databaseName}.${path.tableName}`,
          tableId: info.tableId,
          schemaId: info.schemaId,
          columns,
          primaryKey: info.primaryKeys,
          bucketKey: info.bucketKeys,
          partitionKeys: info.partitionKeys,
          buckets: info.numBuckets,
          properties: info.properties,
          ...(info.comment === undefined ? {} : { comment: info.comment }),
          bucketLocations: buckets.map(b => ({
            bucket: b.bucket,
            leader: b.leader ?? null,
            replicas: b.replicas,
            ...(b.isr === undefined ? {} : { isr: b.isr }),
          })),
        }
        if (o.output === 'json') return printRecord(io, 'json', described)
        printRows(
          io,
          'table',
          ['column', 'type'],
          columns.map(col => [col.name, col.type]),
        )
        const { columns: _c, bucketLocations: _b, ...rest } = described
        printRecord(io, 'table', rest)
        if (buckets.length > 0)
          printRows(
            io,
            'table',
            ['bucket', 'leader', 'replicas'],
            buckets.map(b => [b.bucket, b.leader, b.replicas.join(',')]),
          )
      })
    })
  table
    .command('create <table>')
    .description('create a table from flags or from a JSON table file (Fluss table JSON)')
    .option('--column <name:TYPE>', 'a column (repeat, in order)', collect)
    .option('--primary-key <cols>', 'primary key columns, comma-separated')
    .option('--buckets <n>', 'number of buckets')
    .option('--bucket-key <cols>', 'bucket key columns, comma-separated')
    .option('--partitioned-by <cols>', 'partition key columns, comma-separated')
    .option('--set <key=value>', 'a table property (repeat)', collect)
    .option('--comment <text>', 'a comment')
    .option('--schema-file <path>', 'the table as JSON instead of the flags')
    .option('--if-not-exists', 'succeed when it exists')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      let descriptor: TableDescriptor
      try {
        descriptor = descriptorOf(o)
      } catch (e) {
        if (e instanceof CliError) throw e
        throw new CliError((e as Error).message, e instanceof ValueError ? EXIT.USAGE : EXIT.USAGE)
      }
      await withConnection(o, io, c =>
        c.getAdmin().createTable(parseTablePath(name), descriptor, o.ifNotExists === true),
      )
      io.err(`created table ${name}\n`)
    })
  table
    .command('drop <table>')
    .description('drop a table')
    .option('--if-exists', 'succeed when it does not exist')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, c => c.getAdmin().dropTable(parseTablePath(name), o.ifExists === true))
      io.err(`dropped table ${name}\n`)
    })
  table
    .command('alter <table>')
    .description(
      'alter properties, or columns: add (nullable, at the end), drop, rename, widen a type, comments and write defaults',
    )
    .option('--set <key=value>', 'set a property (repeat)', collect)
    .option('--reset <key>', 'reset a property to its default (repeat)', collect)
    .option('--add-column <name:TYPE>', 'add a nullable column at the end (repeat)', collect)
    .option('--drop-column <name>', 'drop a column that is not a key column (repeat)', collect)
    .option('--rename-column <old=new>', 'rename a column that is not a key column (repeat)', collect)
    .option('--modify-column <name:TYPE>', 'widen a column type, e.g. qty:BIGINT (repeat)', collect)
    .option('--column-comment <name=text>', 'the comment of an added or existing column (repeat)', collect)
    .option('--drop-column-comment <name>', 'remove a column comment (repeat)', collect)
    .option(
      '--column-default <name=value>',
      'the write default of an added or existing column (repeat)',
      collect,
    )
    .option('--drop-column-default <name>', 'remove a column write default (repeat)', collect)
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      const changes = tableChangesOf(o as AlterOptions, parseColumn)
      await withConnection(o, io, c => c.getAdmin().alterTable(parseTablePath(name), changes))
      io.err(`altered table ${name}\n`)
    })
  table
    .command('schemas <table>')
    .description('every schema version of a table, oldest first, with column ids')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, async c => {
        const versions = await c.getAdmin().getTableSchemas(parseTablePath(name))
        const rows = versions.flatMap(v =>
          v.schema.columns.map(col => ({
            schemaId: v.schemaId,
            columnId: col.columnId,
            column: col.name,
            type: typeToString(col.type),
            comment: col.comment ?? null,
            default: col.defaultValue ?? null,
          })),
        )
        printRows(
          io,
          o.output,
          ['schema', 'id', 'column', 'type', 'comment', 'default'],
          rows.map(r => [r.schemaId, r.columnId, r.column, r.type, r.comment ?? '', r.default ?? '']),
          rows,
        )
      })
    })
}
