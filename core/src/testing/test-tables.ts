import { Schema, TableDescriptor } from '../metadata/index.js'
import { DataTypes } from '../types/index.js'

/** A log table descriptor for tests: columns id INT, name STRING, dt STRING. */
export function testLogTable(
  bucketCount: number,
  replicationFactor = 1,
  partitionKeys: string[] = [],
): TableDescriptor {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('name', DataTypes.STRING())
    .column('dt', DataTypes.STRING())
    .build()
  return TableDescriptor.builder()
    .schema(schema)
    .distributedBy(bucketCount)
    .partitionedBy(partitionKeys)
    .property('table.replication.factor', String(replicationFactor))
    .build()
}

/** A primary-key table descriptor for tests: id INT primary key, v STRING. */
export function testPkTable(bucketCount: number, replicationFactor = 1): TableDescriptor {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('v', DataTypes.STRING())
    .primaryKey('id')
    .build()
  return TableDescriptor.builder()
    .schema(schema)
    .distributedBy(bucketCount)
    .property('table.replication.factor', String(replicationFactor))
    .build()
}
