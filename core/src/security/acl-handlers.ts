import {
  ACL_NOTIFICATION_EXPIRATION_TIME,
  AUTHORIZER_ENABLED,
  type Configuration,
  SLUICE_ACL_REFRESH_INTERVAL,
  SUPER_USERS,
} from '../config/index.js'
import { FlussError } from '../errors/index.js'
import type { MetaStore } from '../metastore/index.js'
import type { Handlers } from '../rpc/index.js'
import { AclStore } from './acl-store.js'
import { fromPbAclFilter, fromPbAclInfo, toPbAclInfo } from './acl-wire.js'
import { Authorizer } from './authorizer.js'
import { parseSuperUsers } from './principal.js'
import type { AuthLogger } from './server-authenticator.js'

/** The process's authorizer when `authorizer.enabled`, else undefined (not started yet). */
export function createAuthorizer(
  config: Configuration,
  metaStore: MetaStore,
  logger: AuthLogger,
): Authorizer | undefined {
  if (!config.get(AUTHORIZER_ENABLED)) return undefined
  return new Authorizer({
    store: new AclStore(metaStore),
    superUsers: parseSuperUsers(config.getOptional(SUPER_USERS), SUPER_USERS.key),
    refreshIntervalMs: config.get(SLUICE_ACL_REFRESH_INTERVAL),
    maxStalenessMs: config.get(ACL_NOTIFICATION_EXPIRATION_TIME),
    logger,
  })
}

function disabled(): FlussError {
  return new FlussError('SECURITY_DISABLED_EXCEPTION', 'No Authorizer is configured.')
}

/** LIST_ACLS, served by every server. */
export function listAclsHandler(authorizer: Authorizer | undefined): Handlers<'LIST_ACLS'> {
  return {
    LIST_ACLS: (req, ctx) => {
      if (authorizer === undefined) throw disabled()
      return {
        acl: authorizer.listAcls(ctx.connection.session, fromPbAclFilter(req.aclFilter)).map(toPbAclInfo),
      }
    },
  }
}

/** CREATE_ACLS and DROP_ACLS (coordinator), with per-binding results as Fluss reports them. */
export function aclAdminHandlers(authorizer: Authorizer | undefined): Handlers<'CREATE_ACLS' | 'DROP_ACLS'> {
  return {
    CREATE_ACLS: async (req, ctx) => {
      if (authorizer === undefined) throw disabled()
      const results = await authorizer.addAcls(ctx.connection.session, req.acl.map(fromPbAclInfo))
      return {
        aclRes: results.map(r => ({
          acl: toPbAclInfo(r.binding),
          ...(r.error === undefined ? {} : { errorCode: r.error.wireCode, errorMessage: r.error.message }),
        })),
      }
    },
    DROP_ACLS: async (req, ctx) => {
      if (authorizer === undefined) throw disabled()
      const results = await authorizer.dropAcls(ctx.connection.session, req.aclFilter.map(fromPbAclFilter))
      return {
        filterResults: results.map(r => ({
          matchingAcls: r.matches.map(m => ({
            acl: toPbAclInfo(m.binding),
            ...(m.error === undefined ? {} : { errorCode: m.error.wireCode, errorMessage: m.error.message }),
          })),
        })),
      }
    },
  }
}
