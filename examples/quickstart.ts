// A log table with the TypeScript SDK: create it, append two rows, read every bucket back.
// Run: npx tsx examples/quickstart.ts
import { Connection } from '@sluice/client'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'

const bootstrap = process.env.SLUICE_BOOTSTRAP_SERVERS ?? '127.0.0.1:9123'
const conn = await Connection.create({ 'bootstrap.servers': bootstrap })
const admin = conn.getAdmin()
await admin.createDatabase('demo', undefined, true)
const path = { databaseName: 'demo', tableName: 'events_ts' }
const schema = Schema.newBuilder().column('id', DataTypes.INT()).column('name', DataTypes.STRING()).build()
await admin.createTable(path, TableDescriptor.builder().schema(schema).distributedBy(2).build(), true)
const table = await conn.getTable(path)

const writer = table.newAppend().createWriter()
for (const row of [
  { id: 1, name: 'first' },
  { id: 2, name: 'second' },
]) {
  writer.append(row)
  console.log('wrote', row)
}
await writer.flush()

const scanner = table.newScan().createLogScanner()
scanner.subscribeAllBuckets()
let seen = 0
while (seen < 2) {
  for (const record of (await scanner.poll(1000)).objects()) {
    console.log('read bucket', record.bucket, 'offset', record.offset, record.row)
    seen++
  }
}
await conn.close()
