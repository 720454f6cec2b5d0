import { FlussError } from '@sluice/core/errors'
import { PARTITION_SPEC_SEPARATOR } from '@sluice/core/metadata'
import type { PbPartitionInfo, PbPartitionSpecInit } from '@sluice/core/rpc'

/** Partition key → value, as an object or a map. */
export type PartitionSpecInput = Readonly<Record<string, string>> | ReadonlyMap<string, string>

/** One partition of a partitioned table (Fluss's `PartitionInfo`). */
export interface PartitionInfo {
  readonly partitionId: number
  /** The values in partition-key order joined by `$`, e.g. `20240910$A`. */
  readonly partitionName: string
  /** Partition key → value, in partition-key order. */
  readonly spec: Readonly<Record<string, string>>
}

/** The wire form of a partition spec. */
export function toPbPartitionSpec(spec: PartitionSpecInput): PbPartitionSpecInit {
  const entries = spec instanceof Map ? [...spec.entries()] : Object.entries(spec)
  for (const [key, value] of entries) {
    if (typeof value !== 'string') {
      throw new FlussError(
        'PARTITION_SPEC_INVALID_EXCEPTION',
        `Partition value of '${key}' must be a string, got ${typeof value}`,
      )
    }
  }
  return { partitionKeyValues: entries.map(([key, value]) => ({ key, value })) }
}

/** A partition as listed by LIST_PARTITION_INFOS. */
export function partitionInfoOf(info: PbPartitionInfo): PartitionInfo {
  const pairs = info.partitionSpec.partitionKeyValues
  return {
    partitionId: info.partitionId,
    partitionName: pairs.map(p => p.value).join(PARTITION_SPEC_SEPARATOR),
    spec: Object.fromEntries(pairs.map(p => [p.key, p.value])),
  }
}
