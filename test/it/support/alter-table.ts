import type { LocalCluster } from '@sluice/cli/cluster'
import type { TablePath } from '@sluice/core/metadata'
import { ConnectionPool } from '@sluice/core/rpc'

/** PbAlterConfig.op_type SET (Fluss's AlterConfigOpType). */
const OP_SET = 0

/**
 * Sets table properties with ALTER_TABLE sent straight to the first coordinator (the request
 * the Fluss clients and the SDK's `Admin#alterTable` send), bypassing the SDK's metadata.
 */
export async function alterTableProperties(
  cluster: LocalCluster,
  path: TablePath,
  properties: Readonly<Record<string, string>>,
): Promise<void> {
  const coordinator = cluster.coordinators[0]
  if (coordinator === undefined || !coordinator.running)
    throw new Error('the first coordinator is not running')
  const pool = new ConnectionPool({ clientSoftwareName: 'sluice-it-alter' })
  try {
    await pool.request(
      { host: coordinator.host, port: coordinator.port, role: 'coordinator' },
      'ALTER_TABLE',
      {
        tablePath: { databaseName: path.databaseName, tableName: path.tableName },
        ignoreIfNotExists: false,
        configChanges: Object.entries(properties).map(([configKey, configValue]) => ({
          configKey,
          configValue,
          opType: OP_SET,
        })),
      },
    )
  } finally {
    await pool.close()
  }
}
