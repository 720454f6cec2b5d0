import { FlussError } from '../errors/index.js'
import {
  type AccessControlEntry,
  type AclBinding,
  type AclBindingFilter,
  bindingId,
  clusterResource,
  databaseOfTable,
  databaseResource,
  describeResource,
  enclosingResources,
  filterMatches,
  filterMatchesResource,
  type OperationType,
  type Resource,
  validateBinding,
  WILDCARD_HOST,
  WILDCARD_RESOURCE,
} from './acl.js'
import type { AclSnapshot, AclStore } from './acl-store.js'
import { type FlussPrincipal, principalToString, samePrincipal, WILDCARD_PRINCIPAL } from './principal.js'
import type { AuthLogger } from './server-authenticator.js'

/** What the authorizer needs of a request's session. */
export interface SessionLike {
  readonly principal: FlussPrincipal
  /** Servers on the internal listener: always allowed (as Fluss). */
  readonly internal: boolean
  readonly clientAddress: string
}

export interface AuthorizerOptions {
  readonly store: AclStore
  readonly superUsers: readonly FlussPrincipal[]
  /** How often the change counter is polled (`sluice.acl.refresh-interval`). */
  readonly refreshIntervalMs: number
  /** Staleness bound (`acl.notification.expiration-time`). */
  readonly maxStalenessMs: number
  readonly logger: AuthLogger
  readonly nowMs?: () => number
}

export interface AclCreateResult {
  readonly binding: AclBinding
  readonly error?: FlussError
}

export interface AclDropResult {
  readonly matches: readonly { readonly binding: AclBinding; readonly error?: FlussError }[]
}

/** Operations an ACL for `op` also grants (Fluss: READ/WRITE/CREATE/DROP/ALTER imply DESCRIBE). */
const IMPLIED_BY: Partial<Record<OperationType, readonly OperationType[]>> = {
  DESCRIBE: ['DESCRIBE', 'READ', 'WRITE', 'CREATE', 'DROP', 'ALTER'],
}

const resourceKey = (r: Resource) => `${r.type}\u0000${r.name}`

/**
 * Fluss's DefaultAuthorizer over ACLs in the MetaStore: a request is allowed for internal
 * sessions, super users, and principals with an ALLOW entry (theirs or `*:*`, from their host or
 * `*`) for the operation (or ALL, or one implying it) on the resource, its database or the cluster,
 * or on the wildcard resource of its type. No ACL means no access. Every server keeps the ACLs in
 * memory; a change made here applies at once, changes made elsewhere within the refresh interval.
 * One instance per process serves every listener and the HTTP gateway.
 */
export class Authorizer {
  readonly #options: AuthorizerOptions
  readonly #nowMs: () => number
  #acls = new Map<string, AccessControlEntry[]>()
  #bindings: readonly AclBinding[] = []
  #version = -1
  #loadedAtMs = Number.NEGATIVE_INFINITY
  #timer: NodeJS.Timeout | undefined
  #refreshing: Promise<void> | undefined

  constructor(options: AuthorizerOptions) {
    this.#options = options
    this.#nowMs = options.nowMs ?? Date.now
  }

  /** Loads the ACLs (fails when the store cannot be read), then polls for changes. */
  async start(): Promise<void> {
    await this.reload()
    this.#timer = setInterval(() => void this.refresh(), this.#options.refreshIntervalMs)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  /** Reloads when the change counter moved or the cache is older than half the staleness bound. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined
    })
    return this.#refreshing
  }

  async #refresh(): Promise<void> {
    try {
      const version = await this.#options.store.version()
      const old = this.#nowMs() - this.#loadedAtMs > this.#options.maxStalenessMs / 2
      if (version !== this.#version || old) await this.reload()
      else this.#loadedAtMs = this.#nowMs()
    } catch (e) {
      this.#options.logger.warn('ACL refresh failed', { error: e instanceof Error ? e.message : String(e) })
    }
  }

  /**
   * Refreshes now when the last refresh is older than the refresh interval (for processes whose
   * timers do not run between requests, such as a Lambda function).
   */
  async ensureFresh(): Promise<void> {
    if (this.#nowMs() - this.#loadedAtMs > this.#options.refreshIntervalMs) await this.refresh()
  }

  async reload(): Promise<void> {
    this.#install(await this.#options.store.load())
  }

  #install(snapshot: AclSnapshot): void {
    const acls = new Map<string, AccessControlEntry[]>()
    for (const b of snapshot.bindings) {
      const key = resourceKey(b.resource)
      const list = acls.get(key)
      if (list === undefined) acls.set(key, [b.entry])
      else list.push(b.entry)
    }
    this.#acls = acls
    this.#bindings = snapshot.bindings
    this.#version = snapshot.version
    this.#loadedAtMs = this.#nowMs()
  }

  isSuperUser(principal: FlussPrincipal): boolean {
    return this.#options.superUsers.some(p => samePrincipal(p, principal))
  }

  isAuthorized(session: SessionLike, operation: OperationType, resource: Resource): boolean {
    if (session.internal || this.isSuperUser(session.principal)) return true
    if (this.#nowMs() - this.#loadedAtMs > this.#options.maxStalenessMs) return false
    const allowed = IMPLIED_BY[operation] ?? [operation]
    const candidates = [{ type: resource.type, name: WILDCARD_RESOURCE }, ...enclosingResources(resource)]
    for (const r of candidates) {
      for (const e of this.#acls.get(resourceKey(r)) ?? []) {
        if (e.permission !== 'ALLOW') continue
        if (!samePrincipal(e.principal, session.principal) && !samePrincipal(e.principal, WILDCARD_PRINCIPAL))
          continue
        if (e.host !== WILDCARD_HOST && e.host !== session.clientAddress) continue
        if (e.operation === 'ALL' || allowed.includes(e.operation)) return true
      }
    }
    return false
  }

  /** Throws AUTHORIZATION_EXCEPTION naming the principal, the operation and the resource. */
  authorize(session: SessionLike, operation: OperationType, resource: Resource): void {
    if (this.isAuthorized(session, operation, resource)) return
    const stale = this.#nowMs() - this.#loadedAtMs > this.#options.maxStalenessMs
    const message = `Principal ${principalToString(session.principal)} have no authorization to operate ${operation} on resource ${describeResource(resource)}${stale ? ' (the ACLs could not be refreshed; only super users are allowed)' : ''}`
    this.#options.logger.warn('request not authorized', {
      principal: principalToString(session.principal),
      operation,
      resource: describeResource(resource),
      address: session.clientAddress,
    })
    throw new FlussError('AUTHORIZATION_EXCEPTION', message)
  }

  /** The bindings matching `filter` on resources the principal may DESCRIBE. */
  listAcls(session: SessionLike, filter: AclBindingFilter): AclBinding[] {
    return this.#bindings.filter(
      b => filterMatches(filter, b) && this.isAuthorized(session, 'DESCRIBE', b.resource),
    )
  }

  /**
   * Creates bindings; each needs ALTER on its resource (on its database for a table: Fluss 0.9's
   * granularity of ACL administration). Results are per binding, in order.
   */
  async addAcls(session: SessionLike, bindings: readonly AclBinding[]): Promise<AclCreateResult[]> {
    const results: AclCreateResult[] = []
    for (const binding of bindings) {
      try {
        validateBinding(binding)
        this.authorize(session, 'ALTER', aclAdminResource(binding.resource))
        await this.#options.store.create(binding)
        results.push({ binding })
      } catch (e) {
        results.push({ binding, error: asFlussError(e) })
      }
    }
    if (results.some(r => r.error === undefined)) await this.reload().catch(() => undefined)
    return results
  }

  /** Deletes the bindings each filter matches (from a fresh read), each needing ALTER as for adding. */
  async dropAcls(session: SessionLike, filters: readonly AclBindingFilter[]): Promise<AclDropResult[]> {
    await this.reload()
    const results: AclDropResult[] = []
    const dropped = new Set<string>()
    for (const filter of filters) {
      const matches: { binding: AclBinding; error?: FlussError }[] = []
      for (const binding of this.#bindings.filter(b => filterMatchesResource(filter, b.resource))) {
        if (!filterMatches(filter, binding)) continue
        try {
          this.authorize(session, 'ALTER', aclAdminResource(binding.resource))
          const id = bindingId(binding)
          if (!dropped.has(id)) {
            await this.#options.store.delete(binding)
            dropped.add(id)
          }
          matches.push({ binding })
        } catch (e) {
          matches.push({ binding, error: asFlussError(e) })
        }
      }
      results.push({ matches })
    }
    if (dropped.size > 0) await this.reload().catch(() => undefined)
    return results
  }
}

/** The resource whose ALTER permission administers the ACLs of `r`. */
function aclAdminResource(r: Resource): Resource {
  if (r.type === 'TABLE')
    return r.name === WILDCARD_RESOURCE ? clusterResource() : databaseResource(databaseOfTable(r.name))
  if (r.type === 'DATABASE' && r.name === WILDCARD_RESOURCE) return clusterResource()
  return r
}

function asFlussError(e: unknown): FlussError {
  return e instanceof FlussError ? e : new FlussError('UNKNOWN_SERVER_ERROR', String(e))
}
