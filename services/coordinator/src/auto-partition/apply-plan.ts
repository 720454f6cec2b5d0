import { type ErrorName, toFlussError } from '@sluice/core/errors'
import {
  partitionName,
  type ResolvedPartitionSpec,
  type TableInfo,
  tablePathToString,
} from '@sluice/core/metadata'
import type { AutoPartitionPlan } from './auto-partition-plan.js'
import type { AutoPartitionLogger, PartitionFailure, PartitionOps } from './partition-ops.js'

/** Outcomes that are part of normal operation: logged at info or warn, not error. */
const EXPECTED_CREATE_FAILURES: readonly ErrorName[] = [
  'PARTITION_MAX_NUM_EXCEPTION',
  'BUCKET_MAX_NUM_EXCEPTION',
]

export function logError(
  logger: AutoPartitionLogger,
  message: string,
  fields?: Record<string, unknown>,
): void {
  if (logger.error === undefined) logger.warn(message, fields)
  else logger.error(message, fields)
}

/**
 * Carries out a plan for one table: drops first (freeing room under `max.partition.num`), then
 * creates. Each partition that fails is logged and recorded, and the rest go on. A partition that
 * is already gone (drop) or already there (create) counts as neither done nor failed.
 */
export async function applyAutoPartitionPlan(
  ops: PartitionOps,
  logger: AutoPartitionLogger,
  table: TableInfo,
  plan: AutoPartitionPlan,
): Promise<{ dropped: string[]; created: string[]; failures: PartitionFailure[] }> {
  const failures: PartitionFailure[] = []
  const dropped = await dropPartitions(ops, logger, table, plan.toDrop, failures)
  const created = await createPartitions(ops, logger, table, plan.toCreate, failures)
  return { dropped, created, failures }
}

async function dropPartitions(
  ops: PartitionOps,
  logger: AutoPartitionLogger,
  table: TableInfo,
  names: readonly string[],
  failures: PartitionFailure[],
): Promise<string[]> {
  const path = tablePathToString(table.tablePath)
  const dropped: string[] = []
  for (const name of names) {
    try {
      await ops.dropPartition(table, name)
      dropped.push(name)
      logger.info(`Auto partitioning deleted partition ${name} for table [${path}].`)
    } catch (e) {
      const error = toFlussError(e)
      if (error.is('PARTITION_NOT_EXISTS')) {
        logger.info(
          `Auto partitioning skip to delete partition ${name} for table [${path}] as it does not exist.`,
        )
        continue
      }
      failures.push({ partitionName: name, op: 'drop', error })
      logger.warn(`Auto partitioning failed to delete partition ${name} for table [${path}].`, {
        error: error.message,
      })
    }
  }
  return dropped
}

async function createPartitions(
  ops: PartitionOps,
  logger: AutoPartitionLogger,
  table: TableInfo,
  specs: readonly ResolvedPartitionSpec[],
  failures: PartitionFailure[],
): Promise<string[]> {
  const path = tablePathToString(table.tablePath)
  const created: string[] = []
  for (const spec of specs) {
    const name = partitionName(spec)
    try {
      await ops.createPartition(table, spec, false)
      created.push(name)
      logger.info(`Auto partitioning created partition ${name} for table [${path}].`)
    } catch (e) {
      const error = toFlussError(e)
      if (error.is('PARTITION_ALREADY_EXISTS')) {
        logger.info(`Auto partitioning skip to create partition ${name} for table [${path}] as it exists.`)
        continue
      }
      failures.push({ partitionName: name, op: 'create', error })
      const message = `Auto partitioning skip to create partition ${name} for table [${path}].`
      if (EXPECTED_CREATE_FAILURES.includes(error.errorName)) logger.warn(message, { error: error.message })
      else logError(logger, message, { error: error.message })
    }
  }
  return created
}
