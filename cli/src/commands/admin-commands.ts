import { databaseDescriptor } from '@sluice/core/metadata'
import type { Command } from 'commander'
import { type GlobalOptions, type Io, parseTablePath, withConnection } from './context.js'
import { printRecord, printRows } from './output.js'

type Opts = GlobalOptions & Record<string, unknown>
const opts = (cmd: Command) => cmd.optsWithGlobals() as Opts

/** `cluster status`, `db list|create|drop`, `partition list|add|drop`, `offsets`. */
export function registerAdminCommands(program: Command, io: Io): void {
  const cluster = program.command('cluster').description('the cluster as a whole')
  cluster
    .command('status')
    .description(
      'coordinator, tablet servers, tables, and buckets without a leader, with a replica out of the ISR, or with a replica on a server that is not live',
    )
    .action(async (_, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, async connection => {
        const admin = connection.getAdmin()
        const nodes = await admin.getServerNodes()
        const live = new Set(nodes.filter(n => n.role === 'tablet').map(n => n.id))
        let tables = 0
        let buckets = 0
        const unhealthy: {
          table: string
          bucket: number
          leader: number | null
          replicas: number[]
          offline: number[]
          outOfSync: number[]
        }[] = []
        for (const db of await admin.listDatabases()) {
          for (const name of await admin.listTables(db)) {
            tables++
            const path = { databaseName: db, tableName: name }
            const info = await admin.getTableInfo(path)
            const partitions = info.isPartitioned
              ? (await admin.listPartitionInfos(path)).map(p => p.partitionName)
              : [undefined]
            for (const partition of partitions) {
              for (const b of await admin.getBucketLocations(path, partition)) {
                buckets++
                const offline = b.replicas.filter(r => !live.has(r))
                // Servers that report the ISR (Sluice) show lagging replicas too; for the others
                // (Fluss 0.9.1) only replicas on servers that are not live count.
                const outOfSync = b.isr === undefined ? [] : b.replicas.filter(r => !b.isr?.includes(r))
                if (b.leader === undefined || offline.length > 0 || outOfSync.length > 0)
                  unhealthy.push({
                    table: `${db}.${name}${partition === undefined ? '' : `/${partition}`}`,
                    bucket: b.bucket,
                    leader: b.leader ?? null,
                    replicas: [...b.replicas],
                    offline,
                    outOfSync,
                  })
              }
            }
          }
        }
        const servers = nodes.map(n => ({
          id: n.role === 'coordinator' ? null : n.id,
          role: n.role,
          endpoint: `${n.host}:${n.port}`,
        }))
        if (o.output === 'json') {
          printRecord(io, 'json', { servers, tables, buckets, underReplicatedBuckets: unhealthy })
          return
        }
        printRows(
          io,
          'table',
          ['id', 'role', 'endpoint'],
          servers.map(s => [s.id, s.role, s.endpoint]),
        )
        io.out(
          `tables: ${tables}, buckets: ${buckets}, under-replicated or leaderless buckets: ${unhealthy.length}\n`,
        )
        if (unhealthy.length > 0)
          printRows(
            io,
            'table',
            ['table', 'bucket', 'leader', 'replicas', 'offline replicas', 'out of ISR'],
            unhealthy.map(u => [
              u.table,
              u.bucket,
              u.leader,
              u.replicas.join(','),
              u.offline.join(','),
              u.outOfSync.join(','),
            ]),
          )
      })
    })

  const db = program.command('db').description('databases')
  db.command('list')
    .description('list the databases')
    .action(async (_, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, async c => {
        const names = await c.getAdmin().listDatabases()
        printRows(
          io,
          o.output,
          ['database'],
          names.map(n => [n]),
          names,
        )
      })
    })
  db.command('create <name>')
    .description('create a database')
    .option('--if-not-exists', 'succeed when it exists')
    .option('--comment <text>', 'a comment')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, c =>
        c
          .getAdmin()
          .createDatabase(
            name,
            databaseDescriptor({}, o.comment as string | undefined),
            o.ifNotExists === true,
          ),
      )
      io.err(`created database ${name}\n`)
    })
  db.command('drop <name>')
    .description('drop a database')
    .option('--if-exists', 'succeed when it does not exist')
    .option('--cascade', 'drop its tables too')
    .action(async (name: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, c =>
        c.getAdmin().dropDatabase(name, o.ifExists === true, o.cascade === true),
      )
      io.err(`dropped database ${name}\n`)
    })

  const partition = program.command('partition').description('partitions of a partitioned table')
  partition
    .command('list <table>')
    .description('list the partitions')
    .action(async (table: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, async c => {
        const parts = await c.getAdmin().listPartitionInfos(parseTablePath(table))
        printRows(
          io,
          o.output,
          ['partition', 'id'],
          parts.map(p => [p.partitionName, p.partitionId]),
        )
      })
    })
  for (const [verb, help] of [
    ['add', 'create a partition'],
    ['drop', 'drop a partition'],
  ] as const) {
    partition
      .command(`${verb} <table> <spec...>`)
      .description(`${help}; spec: key=value for each partition key`)
      .option(verb === 'add' ? '--if-not-exists' : '--if-exists', 'do not fail when it already is so')
      .action(async (table: string, spec: string[], _, cmd: Command) => {
        const o = opts(cmd)
        const values = Object.fromEntries(spec.map(kv => kv.split('=', 2) as [string, string]))
        await withConnection(o, io, c =>
          verb === 'add'
            ? c.getAdmin().createPartition(parseTablePath(table), values, o.ifNotExists === true)
            : c.getAdmin().dropPartition(parseTablePath(table), values, o.ifExists === true),
        )
        io.err(`${verb === 'add' ? 'created' : 'dropped'} partition ${spec.join(',')} of ${table}\n`)
      })
  }

  program
    .command('offsets <table>')
    .description('earliest and latest offset of every bucket (per partition)')
    .option('--partition <name>', 'one partition')
    .action(async (table: string, _, cmd: Command) => {
      const o = opts(cmd)
      await withConnection(o, io, async c => {
        const admin = c.getAdmin()
        const path = parseTablePath(table)
        const info = await admin.getTableInfo(path)
        const buckets = Array.from({ length: info.numBuckets }, (_, b) => b)
        const partitions =
          o.partition !== undefined
            ? [o.partition as string]
            : info.isPartitioned
              ? (await admin.listPartitionInfos(path)).map(p => p.partitionName)
              : [undefined]
        const rows: unknown[][] = []
        for (const p of partitions) {
          const earliest = await admin.listOffsets(path, buckets, 'earliest', p)
          const latest = await admin.listOffsets(path, buckets, 'latest', p)
          for (const b of buckets)
            rows.push([...(info.isPartitioned ? [p] : []), b, earliest.get(b), latest.get(b)])
        }
        printRows(
          io,
          o.output,
          [...(info.isPartitioned ? ['partition'] : []), 'bucket', 'earliest', 'latest'],
          rows,
        )
      })
    })
}
