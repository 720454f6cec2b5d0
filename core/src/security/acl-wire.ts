import type { PbAclFilter, PbAclFilterInit, PbAclInfo, PbAclInfoInit } from '../rpc/index.js'
import {
  type AclBinding,
  type AclBindingFilter,
  OPERATION_TYPES,
  operationTypeOf,
  PERMISSION_TYPES,
  permissionTypeOf,
  RESOURCE_TYPES,
  type Resource,
  resourceTypeOf,
} from './acl.js'

/** PbAclInfo ⇄ AclBinding and PbAclFilter ⇄ AclBindingFilter (Fluss's CommonRpcMessageUtils). */

export function toPbAclInfo(b: AclBinding): PbAclInfoInit {
  return {
    resourceName: b.resource.name,
    resourceType: RESOURCE_TYPES[b.resource.type],
    principalName: b.entry.principal.name,
    principalType: b.entry.principal.type,
    host: b.entry.host,
    operationType: OPERATION_TYPES[b.entry.operation],
    permissionType: PERMISSION_TYPES[b.entry.permission],
  }
}

/** Decodes a binding; unknown codes fail with INVALID_REQUEST (ANY types are refused by validateBinding). */
export function fromPbAclInfo(pb: PbAclInfo): AclBinding {
  return {
    resource: { type: resourceTypeOf(pb.resourceType) as Resource['type'], name: pb.resourceName },
    entry: {
      principal: { type: pb.principalType, name: pb.principalName },
      host: pb.host,
      operation: operationTypeOf(pb.operationType) as AclBinding['entry']['operation'],
      permission: permissionTypeOf(pb.permissionType) as AclBinding['entry']['permission'],
    },
  }
}

export function toPbAclFilter(f: AclBindingFilter): PbAclFilterInit {
  return {
    resourceType: RESOURCE_TYPES[f.resourceType],
    operationType: OPERATION_TYPES[f.operation],
    permissionType: PERMISSION_TYPES[f.permission],
    ...(f.resourceName === undefined ? {} : { resourceName: f.resourceName }),
    ...(f.principal === undefined
      ? {}
      : { principalName: f.principal.name, principalType: f.principal.type }),
    ...(f.host === undefined ? {} : { host: f.host }),
  }
}

/** A principal filters only when both its name and type are given (as in Fluss). */
export function fromPbAclFilter(pb: PbAclFilter): AclBindingFilter {
  const principal =
    pb.principalName != null && pb.principalType != null
      ? { principal: { type: pb.principalType, name: pb.principalName } }
      : {}
  return {
    resourceType: resourceTypeOf(pb.resourceType),
    operation: operationTypeOf(pb.operationType),
    permission: permissionTypeOf(pb.permissionType),
    ...(pb.resourceName == null ? {} : { resourceName: pb.resourceName }),
    ...principal,
    ...(pb.host == null ? {} : { host: pb.host }),
  }
}
