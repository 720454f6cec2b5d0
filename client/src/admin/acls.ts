import { FlussError } from '@sluice/core/errors'
import {
  type AclBinding,
  type AclBindingFilter,
  ANY_ACL_FILTER,
  fromPbAclInfo,
  toPbAclFilter,
  toPbAclInfo,
  validateBinding,
} from '@sluice/core/security'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'

/** The outcome of creating (or dropping) one binding; `error` is the server's reason when it failed. */
export interface AclResult {
  readonly binding: AclBinding
  readonly error?: FlussError
}

/** What one DROP_ACLS filter matched and removed. */
export interface AclDropResult {
  readonly matches: readonly AclResult[]
}

const errorOf = (r: { errorCode: number | null; errorMessage: string | null }) =>
  r.errorCode != null && r.errorCode !== 0 ? { error: FlussError.fromCode(r.errorCode, r.errorMessage) } : {}

/**
 * ACL administration (Fluss's Admin.createAcls / listAcls / dropAcls): create and drop go to the
 * coordinator, list to any server. Bindings are checked before they are sent.
 */
export class AclAdmin {
  constructor(private readonly metadata: MetadataUpdater) {}

  /** Creates bindings; one result per binding, in order (refused ones carry their error). */
  async createAcls(bindings: readonly AclBinding[]): Promise<AclResult[]> {
    for (const b of bindings) validateBinding(b)
    const response = await this.metadata.requestCoordinator('CREATE_ACLS', { acl: bindings.map(toPbAclInfo) })
    return response.aclRes.map(r => ({ binding: fromPbAclInfo(r.acl), ...errorOf(r) }))
  }

  /** The bindings matching `filter` that this principal may see. */
  async listAcls(filter: AclBindingFilter = ANY_ACL_FILTER): Promise<AclBinding[]> {
    const response = await this.metadata.requestAnyServer('LIST_ACLS', { aclFilter: toPbAclFilter(filter) })
    return response.acl.map(fromPbAclInfo)
  }

  /** Drops every binding each filter matches; one result per filter, in order. */
  async dropAcls(filters: readonly AclBindingFilter[]): Promise<AclDropResult[]> {
    const response = await this.metadata.requestCoordinator('DROP_ACLS', {
      aclFilter: filters.map(toPbAclFilter),
    })
    return response.filterResults.map(f => {
      if (f.errorCode != null && f.errorCode !== 0) throw FlussError.fromCode(f.errorCode, f.errorMessage)
      return { matches: f.matchingAcls.map(m => ({ binding: fromPbAclInfo(m.acl), ...errorOf(m) })) }
    })
  }
}
