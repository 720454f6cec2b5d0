import { FlussError } from '../errors/index.js'
import type { TablePath } from '../metadata/index.js'
import { type FlussPrincipal, principalToString, samePrincipal } from './principal.js'

/**
 * Fluss's ACL model (`org.apache.fluss.security.acl`): a binding is a resource plus an entry
 * (principal, host, operation, permission). Resources nest Cluster → Database → Table; codes are
 * the ones on the wire (PbAclInfo, PbAclFilter).
 */

export const RESOURCE_TYPES = { ANY: 1, CLUSTER: 2, DATABASE: 3, TABLE: 4 } as const
export const OPERATION_TYPES = {
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DROP: 6,
  ALTER: 7,
  DESCRIBE: 8,
} as const
export const PERMISSION_TYPES = { ANY: 1, ALLOW: 2 } as const

export type ResourceType = keyof typeof RESOURCE_TYPES
export type OperationType = keyof typeof OPERATION_TYPES
export type PermissionType = keyof typeof PERMISSION_TYPES

/** The one cluster resource's name. */
export const CLUSTER_RESOURCE_NAME = 'fluss-cluster'
/** A resource name matching every resource of its type. */
export const WILDCARD_RESOURCE = '*'
/** An entry host matching every client address. */
export const WILDCARD_HOST = '*'

export interface Resource {
  readonly type: Exclude<ResourceType, 'ANY'>
  /** `fluss-cluster`, `<db>`, `<db>.<table>` or `*`. */
  readonly name: string
}

export interface AccessControlEntry {
  readonly principal: FlussPrincipal
  readonly host: string
  readonly operation: Exclude<OperationType, 'ANY'>
  readonly permission: Exclude<PermissionType, 'ANY'>
}

export interface AclBinding {
  readonly resource: Resource
  readonly entry: AccessControlEntry
}

/** Matches bindings; an undefined field matches anything, `ANY` types match every type. */
export interface AclBindingFilter {
  readonly resourceType: ResourceType
  readonly resourceName?: string
  readonly principal?: FlussPrincipal
  readonly host?: string
  readonly operation: OperationType
  readonly permission: PermissionType
}

export const ANY_ACL_FILTER: AclBindingFilter = Object.freeze({
  resourceType: 'ANY',
  operation: 'ANY',
  permission: 'ANY',
})

export const clusterResource = (): Resource => ({ type: 'CLUSTER', name: CLUSTER_RESOURCE_NAME })
export const databaseResource = (db: string): Resource => ({ type: 'DATABASE', name: db })
export const tableResource = (path: TablePath): Resource => ({
  type: 'TABLE',
  name: `${path.databaseName}.${path.tableName}`,
})

/** A binding allowing user `name` (`User:<name>`) `operation` on `resource`, from `host` (default any). */
export function allowUser(
  resource: Resource,
  operation: AccessControlEntry['operation'],
  name: string,
  host: string = WILDCARD_HOST,
): AclBinding {
  return { resource, entry: { principal: { type: 'User', name }, host, operation, permission: 'ALLOW' } }
}

/** The resources whose ACLs apply to `r`: itself, then its database and the cluster (inheritance). */
export function enclosingResources(r: Resource): Resource[] {
  if (r.type === 'CLUSTER') return [r]
  if (r.type === 'DATABASE') return [r, clusterResource()]
  return [r, databaseResource(databaseOfTable(r.name)), clusterResource()]
}

export function databaseOfTable(tableResourceName: string): string {
  const dot = tableResourceName.indexOf('.')
  return dot < 0 ? tableResourceName : tableResourceName.slice(0, dot)
}

/** Fluss's ResourceFilter.matches: a name constrains only a typed filter. */
export function filterMatchesResource(f: AclBindingFilter, r: Resource): boolean {
  if (f.resourceType === 'ANY') return true
  if (f.resourceName !== undefined && f.resourceName !== r.name) return false
  return f.resourceType === r.type
}

export function filterMatchesEntry(f: AclBindingFilter, e: AccessControlEntry): boolean {
  if (f.principal !== undefined && !samePrincipal(f.principal, e.principal)) return false
  if (f.host !== undefined && f.host !== e.host) return false
  if (f.operation !== 'ANY' && f.operation !== e.operation) return false
  return f.permission === 'ANY' || f.permission === e.permission
}

export function filterMatches(f: AclBindingFilter, b: AclBinding): boolean {
  return filterMatchesResource(f, b.resource) && filterMatchesEntry(f, b.entry)
}

/** The seven fields of a binding, in storage-key order. */
export function bindingParts(b: AclBinding): string[] {
  const e = b.entry
  return [
    b.resource.type,
    b.resource.name,
    e.principal.type,
    e.principal.name,
    e.host,
    e.operation,
    e.permission,
  ]
}

/** A binding back from its seven fields (as stored). */
export function bindingFromParts(parts: readonly string[]): AclBinding {
  const [type, name, principalType, principalName, host, operation, permission] = parts
  return {
    resource: { type: type as Resource['type'], name },
    entry: {
      principal: { type: principalType, name: principalName },
      host,
      operation: operation as AccessControlEntry['operation'],
      permission: permission as AccessControlEntry['permission'],
    },
  }
}

/** A stable identity of a binding (map and set keys). */
export function bindingId(b: AclBinding): string {
  return JSON.stringify(bindingParts(b))
}

export function describeBinding(b: AclBinding): string {
  const e = b.entry
  return `${e.permission} ${principalToString(e.principal)} ${e.operation} on ${b.resource.type} '${b.resource.name}' from host '${e.host}'`
}

export function describeResource(r: Resource): string {
  return `${r.type} '${r.name}'`
}

function invalid(message: string): FlussError {
  return new FlussError('INVALID_REQUEST', message)
}

/** Checks a binding to be created: concrete types, ALLOW, a principal, `<db>.<table>` for tables. */
export function validateBinding(b: AclBinding): void {
  const { resource: r, entry: e } = b
  if (!(r.type in RESOURCE_TYPES) || (r.type as string) === 'ANY')
    throw invalid(`An ACL needs a concrete resource type, got ${r.type}`)
  if (r.name.length === 0) throw invalid('An ACL needs a resource name')
  if (r.type === 'CLUSTER' && r.name !== CLUSTER_RESOURCE_NAME && r.name !== WILDCARD_RESOURCE)
    throw invalid(`The cluster resource is named '${CLUSTER_RESOURCE_NAME}', got '${r.name}'`)
  if (r.type === 'TABLE' && r.name !== WILDCARD_RESOURCE && !/^[^.]+\.[^.]+$/.test(r.name))
    throw invalid(`A table resource is named '<database>.<table>', got '${r.name}'`)
  if (e.principal.type.length === 0 || e.principal.name.length === 0)
    throw invalid('An ACL needs a principal type and name')
  if (e.host.length === 0) throw invalid(`An ACL needs a host ('${WILDCARD_HOST}' for any)`)
  if ((e.operation as string) === 'ANY' || !(e.operation in OPERATION_TYPES))
    throw invalid(`An ACL needs a concrete operation, got ${e.operation}`)
  if (e.permission !== 'ALLOW') throw invalid(`Only ALLOW ACLs exist, got ${e.permission}`)
}

function byCode<T extends Record<string, number>>(table: T, code: number, what: string): keyof T {
  for (const [name, c] of Object.entries(table)) if (c === code) return name as keyof T
  throw invalid(`Unknown ${what} code ${code}`)
}

export const resourceTypeOf = (code: number): ResourceType => byCode(RESOURCE_TYPES, code, 'resource type')
export const operationTypeOf = (code: number): OperationType =>
  byCode(OPERATION_TYPES, code, 'operation type')
export const permissionTypeOf = (code: number): PermissionType =>
  byCode(PERMISSION_TYPES, code, 'permission type')
