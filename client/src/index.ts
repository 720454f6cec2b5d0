/**
 * @sluice/client: the TypeScript SDK for Sluice (and any Fluss 0.9.1 cluster).
 *
 *   const connection = await Connection.create({ 'bootstrap.servers': '127.0.0.1:9123' })
 *   const admin = connection.getAdmin()
 *   await admin.createTable(path, descriptor, true)
 *   const table = await connection.getTable(path)
 *
 *   const writer = table.newAppend().createWriter()
 *   for (const row of rows) {
 *     const wait = writer.append(row) // undefined, or a Promise when the write buffer is full
 *     if (wait) await wait
 *   }
 *   await writer.flush()
 *
 *   const scanner = table.newScan().project(['id', 'name']).createLogScanner()
 *   scanner.subscribeFromBeginning(0)
 *   for (const record of await scanner.poll(1000)) console.log(record.offset, record.row)
 *
 *   // Primary-key tables
 *   const upserter = pkTable.newUpsert().createWriter()
 *   upserter.upsert({ id: 1, name: 'a' })
 *   upserter.delete({ id: 2 })
 *   await upserter.flush()
 *   const lookuper = pkTable.newLookup().createLookuper()
 *   const row = (await lookuper.lookup({ id: 1 })).singletonRow()
 *
 *   await connection.close()
 */

// ACL model and credentials helpers, for callers of Admin.createAcls/listAcls/dropAcls.
export {
  type AccessControlEntry,
  type AclBinding,
  type AclBindingFilter,
  ANY_ACL_FILTER,
  allowUser,
  CLUSTER_RESOURCE_NAME,
  clusterResource,
  databaseResource,
  type FlussPrincipal,
  type OperationType,
  type PermissionType,
  parsePrincipal,
  type Resource,
  type ResourceType,
  scramCredential,
  tableResource,
  userPrincipal,
  WILDCARD_HOST,
  WILDCARD_PRINCIPAL,
  WILDCARD_RESOURCE,
} from '@sluice/core/security'
export * from './admin/index.js'
export * from './client-options.js'
export * from './connection.js'
export * from './lookup/index.js'
export * from './metadata/index.js'
export * from './scanner/index.js'
export * from './table/index.js'
export * from './write/index.js'
