import type { RawValue } from '@sluice/core/config'
import type { TableDescriptor, TablePath } from '@sluice/core/metadata'
import { Connection } from '../connection.js'
import type { Table } from '../table/table.js'
import { FakeCluster } from './fake-cluster.js'

/** Cleanups a test registers; run them in reverse order after each test. */
export type Cleanups = (() => Promise<unknown> | unknown)[]

/** Runs and empties `cleanups`, last registered first. */
export async function runCleanups(cleanups: Cleanups): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}

export interface ClientFixtureOptions {
  readonly tabletServers?: number
  readonly config?: Readonly<Record<string, RawValue>>
}

/** A fake cluster and a client connected to it, both closed by `cleanups`. */
export async function startClient(
  cleanups: Cleanups,
  options: ClientFixtureOptions = {},
): Promise<{ cluster: FakeCluster; connection: Connection }> {
  const cluster = await FakeCluster.start({ tabletServers: options.tabletServers ?? 1 })
  cleanups.push(() => cluster.close())
  const connection = await Connection.create({
    'bootstrap.servers': cluster.bootstrapServers,
    ...options.config,
  })
  cleanups.push(() => connection.close())
  return { cluster, connection }
}

/** Creates a table and opens it. */
export async function createTable(
  connection: Connection,
  path: TablePath,
  descriptor: TableDescriptor,
): Promise<{ table: Table; tableId: number }> {
  await connection.getAdmin().createTable(path, descriptor)
  const table = await connection.getTable(path)
  return { table, tableId: table.getTableInfo().tableId }
}
