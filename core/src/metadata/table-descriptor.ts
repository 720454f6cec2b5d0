import { TABLE_REPLICATION_FACTOR } from '../config/index.js'
import { FlussError } from '../errors/index.js'
import { duplicateNames, type Schema } from './schema.js'

/**
 * What a table is made of before it exists (Fluss's `TableDescriptor`): schema, partition keys,
 * distribution (bucket count and bucket keys), `table.*` properties, custom properties and a
 * comment. Construction checks the structure the way Fluss's constructor does and fills the
 * default bucket keys of primary-key tables; every failure is INVALID_TABLE_EXCEPTION.
 */

export interface TableDistribution {
  readonly bucketCount?: number
  readonly bucketKeys: readonly string[]
}

export interface TableDescriptorInit {
  readonly schema: Schema
  readonly partitionKeys?: readonly string[]
  /** Omitted: no distribution given (the coordinator then applies its defaults). */
  readonly distribution?: { readonly bucketCount?: number; readonly bucketKeys?: readonly string[] }
  readonly properties?: Readonly<Record<string, string>>
  readonly customProperties?: Readonly<Record<string, string>>
  readonly comment?: string
}

function invalid(message: string): FlussError {
  return new FlussError('INVALID_TABLE_EXCEPTION', message)
}

const list = (xs: readonly string[]) => `[${xs.join(', ')}]`
const copy = (m: Readonly<Record<string, string>> | undefined) =>
  Object.freeze(Object.fromEntries(Object.entries(m ?? {})))

export class TableDescriptor {
  readonly schema: Schema
  readonly partitionKeys: readonly string[]
  readonly distribution: TableDistribution | undefined
  readonly properties: Readonly<Record<string, string>>
  readonly customProperties: Readonly<Record<string, string>>
  readonly comment: string | undefined

  constructor(init: TableDescriptorInit) {
    this.schema = init.schema
    this.partitionKeys = [...(init.partitionKeys ?? [])]
    this.properties = copy(init.properties)
    this.customProperties = copy(init.customProperties)
    this.comment = init.comment
    this.distribution = normalizeDistribution(init.schema, this.partitionKeys, init.distribution)
    checkKeysExist(this)
  }

  static builder(origin?: TableDescriptor): TableDescriptorBuilder {
    return new TableDescriptorBuilder(origin)
  }

  get hasPrimaryKey(): boolean {
    return this.schema.hasPrimaryKey
  }

  get isPartitioned(): boolean {
    return this.partitionKeys.length > 0
  }

  get bucketKeys(): readonly string[] {
    return this.distribution?.bucketKeys ?? []
  }

  get bucketCount(): number | undefined {
    return this.distribution?.bucketCount
  }

  /** True when the bucket keys are the default: the physical primary key, or none for log tables. */
  get isDefaultBucketKey(): boolean {
    const expected = this.hasPrimaryKey
      ? physicalPrimaryKeys(this.schema.primaryKeyColumnNames, this.partitionKeys)
      : []
    return expected.length === this.bucketKeys.length && expected.every((k, i) => k === this.bucketKeys[i])
  }

  /** `table.replication.factor`, if set. */
  get replicationFactor(): number | undefined {
    const raw = this.properties[TABLE_REPLICATION_FACTOR.key]
    return raw === undefined ? undefined : TABLE_REPLICATION_FACTOR.parse(raw)
  }

  with(changes: Partial<TableDescriptorInit>): TableDescriptor {
    return new TableDescriptor({
      schema: this.schema,
      partitionKeys: this.partitionKeys,
      ...(this.distribution === undefined ? {} : { distribution: this.distribution }),
      properties: this.properties,
      customProperties: this.customProperties,
      ...(this.comment === undefined ? {} : { comment: this.comment }),
      ...changes,
    })
  }

  withProperties(
    properties: Readonly<Record<string, string>>,
    customProperties?: Readonly<Record<string, string>>,
  ) {
    return this.with({ properties, ...(customProperties === undefined ? {} : { customProperties }) })
  }

  withBucketCount(bucketCount: number): TableDescriptor {
    return this.with({ distribution: { bucketCount, bucketKeys: this.bucketKeys } })
  }
}

/** Primary-key columns that are not partition keys (the key within one partition). */
export function physicalPrimaryKeys(
  primaryKeys: readonly string[],
  partitionKeys: readonly string[],
): string[] {
  return primaryKeys.filter(k => !partitionKeys.includes(k))
}

function defaultBucketKeys(schema: Schema, partitionKeys: readonly string[]): string[] {
  const keys = physicalPrimaryKeys(schema.primaryKeyColumnNames, partitionKeys)
  if (keys.length === 0) {
    throw invalid(
      `Primary Key constraint ${list(schema.primaryKeyColumnNames)} should not be same with partition fields ${list(partitionKeys)}.`,
    )
  }
  return keys
}

function normalizeDistribution(
  schema: Schema,
  partitionKeys: readonly string[],
  given: TableDescriptorInit['distribution'],
): TableDistribution | undefined {
  const bucketCount = given?.bucketCount
  const withCount = (bucketKeys: readonly string[]) =>
    bucketCount === undefined ? { bucketKeys } : { bucketCount, bucketKeys }
  if (given === undefined)
    return schema.hasPrimaryKey ? withCount(defaultBucketKeys(schema, partitionKeys)) : undefined
  if (bucketCount !== undefined && !Number.isSafeInteger(bucketCount)) {
    throw invalid(`Bucket count must be an integer, but is ${bucketCount}.`)
  }
  const bucketKeys = [...(given.bucketKeys ?? [])]
  if (bucketKeys.some(k => partitionKeys.includes(k))) {
    throw invalid(
      `Bucket key ${list(bucketKeys)} shouldn't include any column in partition keys ${list(partitionKeys)}.`,
    )
  }
  if (!schema.hasPrimaryKey) return withCount(bucketKeys)
  if (bucketKeys.length === 0) return withCount(defaultBucketKeys(schema, partitionKeys))
  const pk = schema.primaryKeyColumnNames
  if (!bucketKeys.every(k => pk.includes(k))) {
    throw invalid(
      'Bucket keys must be a subset of primary keys excluding partition keys for primary-key tables. ' +
        `The primary keys are ${list(pk)}, the partition keys are ${list(partitionKeys)}, ` +
        `but the user-defined bucket keys are ${list(bucketKeys)}.`,
    )
  }
  return withCount(bucketKeys)
}

function checkKeysExist(d: TableDescriptor): void {
  const columns = new Set(d.schema.columnNames)
  const pk = d.schema.primaryKeyColumnNames
  for (const k of d.partitionKeys) {
    if (d.hasPrimaryKey && !pk.includes(k)) {
      throw invalid(
        `Partitioned Primary Key Table requires partition key ${list(d.partitionKeys)} is a subset of the primary key ${list(pk)}.`,
      )
    }
    if (!columns.has(k)) throw invalid(`Partition key '${k}' does not exist in the schema.`)
  }
  for (const k of d.bucketKeys) {
    if (!columns.has(k)) throw invalid(`Bucket key '${k}' does not exist in the schema.`)
  }
  const dupPartition = duplicateNames(d.partitionKeys)
  if (dupPartition.length > 0)
    throw invalid(`Partition keys ${list(d.partitionKeys)} must not contain duplicate columns.`)
  const dupBucket = duplicateNames(d.bucketKeys)
  if (dupBucket.length > 0)
    throw invalid(`Bucket keys ${list(d.bucketKeys)} must not contain duplicate columns.`)
}

/** Fluss-style builder: `TableDescriptor.builder().schema(s).distributedBy(3, 'a').build()`. */
export class TableDescriptorBuilder {
  #init: {
    schema?: Schema
    partitionKeys: string[]
    distribution?: { bucketCount?: number; bucketKeys: string[] }
    properties: Record<string, string>
    customProperties: Record<string, string>
    comment?: string
  }

  constructor(origin?: TableDescriptor) {
    this.#init = {
      partitionKeys: [...(origin?.partitionKeys ?? [])],
      properties: { ...origin?.properties },
      customProperties: { ...origin?.customProperties },
      ...(origin === undefined ? {} : { schema: origin.schema }),
      ...(origin?.distribution === undefined
        ? {}
        : { distribution: { ...origin.distribution, bucketKeys: [...origin.bucketKeys] } }),
      ...(origin?.comment === undefined ? {} : { comment: origin.comment }),
    }
  }

  schema(schema: Schema): this {
    this.#init.schema = schema
    return this
  }

  partitionedBy(...keys: (string | readonly string[])[]): this {
    this.#init.partitionKeys = keys.flat()
    return this
  }

  distributedBy(bucketCount: number | undefined, ...bucketKeys: (string | readonly string[])[]): this {
    this.#init.distribution = {
      ...(bucketCount === undefined ? {} : { bucketCount }),
      bucketKeys: bucketKeys.flat(),
    }
    return this
  }

  property(key: string, value: string | number | boolean): this {
    this.#init.properties = Object.fromEntries([
      ...Object.entries(this.#init.properties),
      [key, String(value)],
    ])
    return this
  }

  properties(properties: Readonly<Record<string, string>>): this {
    this.#init.properties = Object.fromEntries([
      ...Object.entries(this.#init.properties),
      ...Object.entries(properties),
    ])
    return this
  }

  customProperty(key: string, value: string): this {
    return this.customProperties({ [key]: value })
  }

  customProperties(properties: Readonly<Record<string, string>>): this {
    const merged = [...Object.entries(this.#init.customProperties), ...Object.entries(properties)]
    this.#init.customProperties = Object.fromEntries(merged)
    return this
  }

  comment(comment: string | undefined): this {
    if (comment === undefined) delete this.#init.comment
    else this.#init.comment = comment
    return this
  }

  build(): TableDescriptor {
    const { schema, ...rest } = this.#init
    if (schema === undefined) throw invalid('schema must not be null.')
    return new TableDescriptor({ schema, ...rest })
  }
}
