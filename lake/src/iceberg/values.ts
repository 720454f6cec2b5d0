import { FlussError } from '@sluice/core/errors'
import { Decimal, Timestamp, type Value } from '@sluice/core/row'
import type { PartitionValue } from './types.js'

/** Exact identities of values: primary keys (merging by key) and partition tuples. */

/** A string identifying a key's values exactly (bigint, bytes, decimals and timestamps included). */
export function keyString(values: readonly Value[]): string {
  return values
    .map(v => {
      if (v === null) return 'n'
      if (typeof v === 'bigint') return `b${v}`
      if (typeof v === 'number') return `d${v}`
      if (typeof v === 'string') return `s${JSON.stringify(v)}`
      if (typeof v === 'boolean') return `z${v}`
      if (v instanceof Uint8Array) return `x${Buffer.from(v).toString('hex')}`
      if (v instanceof Decimal) return `m${v.toString()}`
      if (v instanceof Timestamp) return `t${v.millis}.${v.nanoOfMillis}`
      throw new FlussError('INVALID_REQUEST', 'nested values cannot be primary-key values')
    })
    .join('|')
}

function partitionKey(v: PartitionValue): string {
  if (v instanceof Uint8Array) return `b:${Buffer.from(v).toString('hex')}`
  return `${typeof v}:${String(v)}`
}

export function samePartition(a: readonly PartitionValue[], b: readonly PartitionValue[]): boolean {
  return a.length === b.length && a.every((v, i) => partitionKey(v) === partitionKey(b[i]))
}
