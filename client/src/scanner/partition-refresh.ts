import { toFlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'

/**
 * Refreshes the metadata of a table and of some of its partitions, and returns the partitions that
 * no longer exist. A GET_METADATA naming a dropped partition fails whole with PARTITION_NOT_EXISTS,
 * so on that answer the partitions are split in halves and asked again until the dropped ones are
 * isolated: k dropped partitions among n cost about k·log2(n) extra requests, and the live ones are
 * refreshed on the way. Other failures are thrown.
 */
export async function refreshPartitions(
  metadata: MetadataUpdater,
  tablePath: TablePath,
  partitionIds: readonly number[],
): Promise<number[]> {
  const tables = [tablePath]
  if (partitionIds.length === 0) {
    await metadata.update({ tables })
    return []
  }
  try {
    await metadata.update({ tables, partitionIds })
    return []
  } catch (e) {
    const error = toFlussError(e)
    if (!error.is('PARTITION_NOT_EXISTS')) throw error
    if (partitionIds.length === 1) return [...partitionIds]
  }
  const middle = Math.ceil(partitionIds.length / 2)
  const halves = await Promise.all([
    refreshPartitions(metadata, tablePath, partitionIds.slice(0, middle)),
    refreshPartitions(metadata, tablePath, partitionIds.slice(middle)),
  ])
  return halves.flat()
}
