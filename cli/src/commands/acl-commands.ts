import type { AclResult } from '@sluice/client/admin'
import {
  type AccessControlEntry,
  type AclBinding,
  type AclBindingFilter,
  CLUSTER_RESOURCE_NAME,
  OPERATION_TYPES,
  type OperationType,
  PERMISSION_TYPES,
  type PermissionType,
  parsePrincipal,
  principalToString,
  type Resource,
  WILDCARD_HOST,
} from '@sluice/core/security'
import type { Command } from 'commander'
import { CliError, EXIT, type GlobalOptions, type Io, withConnection } from './context.js'
import { printRows } from './output.js'

type Opts = GlobalOptions & {
  cluster?: boolean
  database?: string
  table?: string
  principal?: string
  host?: string
  operation?: string[]
  permission?: string
}
const opts = (cmd: Command) => cmd.optsWithGlobals() as Opts
const collect = (value: string, previous: string[] = []) => [...previous, value]

const COLUMNS = ['resource type', 'resource', 'principal', 'host', 'operation', 'permission'] as const

/** One binding as a row (table output) and as an object (`--output json`). */
function bindingRow(b: AclBinding): unknown[] {
  const e = b.entry
  return [b.resource.type, b.resource.name, principalToString(e.principal), e.host, e.operation, e.permission]
}
function bindingJson(b: AclBinding): Record<string, string> {
  const e = b.entry
  return {
    resourceType: b.resource.type,
    resource: b.resource.name,
    principal: principalToString(e.principal),
    host: e.host,
    operation: e.operation,
    permission: e.permission,
  }
}

function usage(message: string): CliError {
  return new CliError(message, EXIT.USAGE)
}

/** The resource of `--cluster`, `--database NAME` or `--table DB.T` (at most one); undefined: none given. */
export function resourceOf(o: Opts): Resource | undefined {
  const given = [o.cluster === true, o.database !== undefined, o.table !== undefined].filter(Boolean).length
  if (given > 1) throw usage('give at most one of --cluster, --database and --table')
  if (o.cluster === true) return { type: 'CLUSTER', name: CLUSTER_RESOURCE_NAME }
  if (o.database !== undefined) {
    if (o.database === '' || o.database.includes('.'))
      throw usage(`--database '${o.database}' is not a database name (or '*')`)
    return { type: 'DATABASE', name: o.database }
  }
  if (o.table !== undefined) {
    if (o.table !== '*' && !/^[^.]+\.[^.]+$/.test(o.table))
      throw usage(`--table '${o.table}' is not of the form database.table (or '*')`)
    return { type: 'TABLE', name: o.table }
  }
  return undefined
}

function principalOf(text: string | undefined): AclBindingFilter['principal'] {
  if (text === undefined) return undefined
  try {
    return parsePrincipal(text, '--principal')
  } catch (e) {
    throw usage((e as Error).message)
  }
}

function operationsOf(o: Opts): OperationType[] {
  return (o.operation ?? []).map(op => {
    const upper = op.toUpperCase()
    if (!(upper in OPERATION_TYPES))
      throw usage(`--operation '${op}' is not one of ${Object.keys(OPERATION_TYPES).join(', ')}`)
    return upper as OperationType
  })
}

function permissionOf(o: Opts): PermissionType {
  const p = (o.permission ?? 'ANY').toUpperCase()
  if (!(p in PERMISSION_TYPES)) throw usage(`--permission '${o.permission}' is not ALLOW or ANY`)
  return p as PermissionType
}

/** The filters of `acl list` and `acl drop`: one per `--operation` (none: any operation). */
export function aclFilters(o: Opts): AclBindingFilter[] {
  const resource = resourceOf(o)
  const principal = principalOf(o.principal)
  const permission = permissionOf(o)
  const operations = operationsOf(o)
  return (operations.length === 0 ? (['ANY'] as const) : operations).map(operation => ({
    resourceType: resource?.type ?? 'ANY',
    ...(resource === undefined ? {} : { resourceName: resource.name }),
    ...(principal === undefined ? {} : { principal }),
    ...(o.host === undefined ? {} : { host: o.host }),
    operation,
    permission,
  }))
}

/** The bindings of `acl create`: one per `--operation`, on the resource, for the principal. */
export function aclBindings(o: Opts): AclBinding[] {
  const resource = resourceOf(o)
  if (resource === undefined)
    throw usage('acl create needs a resource: --cluster, --database NAME or --table DB.T')
  const principal = principalOf(o.principal)
  if (principal === undefined) throw usage('acl create needs --principal Type:name (e.g. User:alice)')
  const operations = operationsOf(o)
  if (operations.length === 0) throw usage('acl create needs at least one --operation')
  if (operations.includes('ANY')) throw usage("acl create needs concrete operations, not 'ANY'")
  const permission = (o.permission ?? 'ALLOW').toUpperCase()
  if (permission !== 'ALLOW') throw usage(`acl create makes ALLOW entries only, not '${o.permission}'`)
  return operations.map(operation => ({
    resource,
    entry: {
      principal,
      host: o.host ?? WILDCARD_HOST,
      operation: operation as AccessControlEntry['operation'],
      permission: 'ALLOW',
    },
  }))
}

function filterOptions(command: Command, operationHelp: string): Command {
  return command
    .option('--cluster', 'the cluster resource')
    .option('--database <name>', "a database resource ('*': every database)")
    .option('--table <db.table>', "a table resource ('*': every table)")
    .option('--principal <Type:name>', 'e.g. User:alice')
    .option('--host <host>', 'the client address of the entry')
    .option('--operation <op>', operationHelp, collect)
    .option('--permission <permission>', 'ALLOW or ANY')
}

/** Prints failed results on stderr; true when any failed. */
function reportFailures(io: Io, results: readonly AclResult[]): boolean {
  let failed = false
  for (const r of results) {
    if (r.error === undefined) continue
    failed = true
    io.err(`sluice: ${r.error.errorName}: ${r.error.message} (${bindingRow(r.binding).join(' ')})\n`)
  }
  return failed
}

/** `acl list|create|drop`: Fluss's ACLs (resource, principal, host, operation, permission). */
export function registerAclCommands(program: Command, io: Io): void {
  const acl = program
    .command('acl')
    .description(
      'access control lists (the cluster needs authorizer.enabled; changing them needs ALTER on the cluster)',
    )
  filterOptions(
    acl
      .command('list')
      .description('the ACL entries matching the filters that you may see (none given: all)'),
    `one of ${Object.keys(OPERATION_TYPES).join(', ')} (default ANY)`,
  ).action(async (_, cmd: Command) => {
    const o = opts(cmd)
    const filters = aclFilters(o)
    await withConnection(o, io, async c => {
      const seen = new Map<string, AclBinding>()
      for (const f of filters)
        for (const b of await c.getAdmin().listAcls(f)) seen.set(JSON.stringify(bindingRow(b)), b)
      const bindings = [...seen.values()]
      printRows(io, o.output, COLUMNS, bindings.map(bindingRow), bindings.map(bindingJson))
    })
  })
  filterOptions(
    acl
      .command('create')
      .description('allow a principal operations on a resource: one entry per --operation'),
    `one of ${Object.keys(OPERATION_TYPES)
      .filter(k => k !== 'ANY')
      .join(', ')} (repeat)`,
  ).action(async (_, cmd: Command) => {
    const o = opts(cmd)
    const bindings = aclBindings(o)
    await withConnection(o, io, async c => {
      const results = await c.getAdmin().createAcls(bindings)
      const created = results.filter(r => r.error === undefined).map(r => r.binding)
      printRows(io, o.output, COLUMNS, created.map(bindingRow), created.map(bindingJson))
      if (reportFailures(io, results)) io.setExitCode(EXIT.FAILED)
      else io.err(`created ${created.length} ACL ${created.length === 1 ? 'entry' : 'entries'}\n`)
    })
  })
  filterOptions(
    acl
      .command('drop')
      .description(
        'drop every ACL entry matching the filters (at least one of resource, principal, host, operation)',
      ),
    `one of ${Object.keys(OPERATION_TYPES).join(', ')} (repeat; default ANY)`,
  )
    .option('--all', 'with no other filter: drop every ACL entry')
    .action(async (_, cmd: Command) => {
      const o = opts(cmd) as Opts & { all?: boolean }
      const filters = aclFilters(o)
      const narrowed =
        resourceOf(o) !== undefined ||
        o.principal !== undefined ||
        o.host !== undefined ||
        (o.operation ?? []).length > 0
      if (!narrowed && o.all !== true)
        throw usage('acl drop without a filter would drop every entry: give a filter, or --all to mean it')
      await withConnection(o, io, async c => {
        const results = await c.getAdmin().dropAcls(filters)
        const matches = results.flatMap(r => r.matches)
        const dropped = matches.filter(m => m.error === undefined).map(m => m.binding)
        printRows(io, o.output, COLUMNS, dropped.map(bindingRow), dropped.map(bindingJson))
        if (reportFailures(io, matches)) io.setExitCode(EXIT.FAILED)
        else io.err(`dropped ${dropped.length} ACL ${dropped.length === 1 ? 'entry' : 'entries'}\n`)
      })
    })
}
