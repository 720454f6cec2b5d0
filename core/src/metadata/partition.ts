import { FlussError } from '../errors/index.js'
import { detectInvalidName, detectReservedPrefix, type TablePath, tablePathToString } from './table-path.js'

/**
 * Partition specs (Fluss's `PartitionSpec`, `ResolvedPartitionSpec`, `PartitionUtils`). A partition
 * is named by its values in partition-key order joined by `$` (`20240910$A`); its qualified name
 * is `dt=20240910/nation=A`.
 */

export const PARTITION_SPEC_SEPARATOR = '$'

/** Partition key → value, as given by a user (order does not matter). */
export type PartitionSpec = ReadonlyMap<string, string>

export function partitionSpec(spec: Readonly<Record<string, string>>): PartitionSpec {
  return new Map(Object.entries(spec))
}

export function partitionSpecToString(spec: PartitionSpec): string {
  return `PartitionSpec{{${[...spec].map(([k, v]) => `${k}=${v}`).join(', ')}}}`
}

/** Partition values lined up with the table's partition keys. */
export interface ResolvedPartitionSpec {
  readonly partitionKeys: readonly string[]
  readonly partitionValues: readonly string[]
}

function invalid(message: string): FlussError {
  return new FlussError('PARTITION_SPEC_INVALID_EXCEPTION', message)
}

export function resolvedPartitionSpec(
  keys: readonly string[],
  values: readonly string[],
): ResolvedPartitionSpec {
  if (keys.length !== values.length) {
    throw invalid('The number of partition keys and partition values should be the same.')
  }
  return { partitionKeys: [...keys], partitionValues: [...values] }
}

/** Lines up a user spec with the table's partition keys; throws when a key is missing or extra. */
export function resolvePartitionSpec(
  partitionKeys: readonly string[],
  spec: PartitionSpec,
): ResolvedPartitionSpec {
  for (const k of spec.keys()) {
    if (!partitionKeys.includes(k))
      throw invalid(`Partition key '${k}' is not one of the partition keys [${partitionKeys.join(', ')}].`)
  }
  const values = partitionKeys.map(k => {
    const v = spec.get(k)
    if (v === undefined)
      throw invalid(`${partitionSpecToString(spec)} does not contain partition key '${k}'.`)
    return v
  })
  return resolvedPartitionSpec(partitionKeys, values)
}

/** Splits a partition name (`v1$v2`) back into values for the given keys. */
export function partitionSpecFromName(
  partitionKeys: readonly string[],
  partitionName: string,
): ResolvedPartitionSpec {
  const values = partitionName.split(PARTITION_SPEC_SEPARATOR)
  if (values.length !== partitionKeys.length) {
    throw invalid(
      `Partition name '${partitionName}' has ${values.length} values but the table has ${partitionKeys.length} partition keys.`,
    )
  }
  return resolvedPartitionSpec(partitionKeys, values)
}

export function partitionName(spec: ResolvedPartitionSpec): string {
  return spec.partitionValues.join(PARTITION_SPEC_SEPARATOR)
}

/** `k1=v1/k2=v2`. */
export function partitionQualifiedName(spec: ResolvedPartitionSpec): string {
  return spec.partitionKeys.map((k, i) => `${k}=${spec.partitionValues[i]}`).join('/')
}

export function partitionSpecFromQualifiedName(qualifiedName: string): ResolvedPartitionSpec {
  const keys: string[] = []
  const values: string[] = []
  for (const pair of qualifiedName.split('/')) {
    const eq = pair.indexOf('=')
    if (eq < 0) throw invalid(`Invalid partition name format. Expected key=value, got: ${pair}`)
    keys.push(pair.slice(0, eq))
    values.push(pair.slice(eq + 1))
  }
  return resolvedPartitionSpec(keys, values)
}

export function toPartitionSpec(spec: ResolvedPartitionSpec): PartitionSpec {
  return new Map(spec.partitionKeys.map((k, i) => [k, spec.partitionValues[i]]))
}

/** True when `partial` (a subset of keys, e.g. a listPartitions filter) matches `spec` on its keys. */
export function partitionSpecContains(spec: ResolvedPartitionSpec, partial: ResolvedPartitionSpec): boolean {
  return partial.partitionKeys.every((k, i) => {
    const at = spec.partitionKeys.indexOf(k)
    if (at < 0) throw invalid(`table don't contains this partitionKey: ${k}`)
    return spec.partitionValues[at] === partial.partitionValues[i]
  })
}

/**
 * Checks each value is a valid name; `isCreate` also rejects the reserved `__` prefix (partitions
 * such as `__historical__` are created only by the system).
 */
export function validatePartitionValues(values: readonly string[], isCreate: boolean): void {
  for (const value of values) {
    const problem = detectInvalidName(value) ?? (isCreate ? detectReservedPrefix(value) : undefined)
    if (problem !== undefined) throw invalid(`The partition value ${value} is invalid: ${problem}`)
  }
}

/** Checks a full spec for a table (sizes, keys, values); returns it resolved. */
export function validatePartitionSpec(
  path: TablePath,
  partitionKeys: readonly string[],
  spec: PartitionSpec,
  isCreate: boolean,
): ResolvedPartitionSpec {
  const table = tablePathToString(path)
  if (partitionKeys.length !== spec.size) {
    throw invalid(`PartitionSpec size is not equal to partition keys size for partitioned table ${table}.`)
  }
  for (const k of partitionKeys) {
    if (!spec.has(k)) {
      throw invalid(
        `${partitionSpecToString(spec)} does not contain partition key '${k}' for partitioned table ${table}.`,
      )
    }
  }
  const resolved = resolvePartitionSpec(partitionKeys, spec)
  validatePartitionValues(resolved.partitionValues, isCreate)
  return resolved
}
