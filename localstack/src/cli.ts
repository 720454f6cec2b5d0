import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { METADATA_TABLE } from '@sluice/core/metastore'
import type { AwsEndpoints } from './bootstrap.js'
import type { LocalAws, LocalAwsOptions, LocalS3Mode } from './local-aws.js'

export const USAGE = `Usage:
  sluice-localstack [start] [--data-dir DIR] [--s3 fs|s3rver|none] [--no-dynamo]
                    [--host H] [--dynamo-port N] [--s3-port N] [--table T] [--bucket B] [--json]
      Starts local AWS endpoints (dynalite in this process, s3rver as a child process) and prints
      them as sluice.* configuration. Runs until interrupted.
  sluice-localstack bootstrap --endpoint URL [--s3-endpoint URL] [--region R] [--table T] [--bucket B]
      Creates the metadata table and the bucket on existing endpoints (LocalStack, moto).
      Credentials come from the AWS_* environment (default: test/test).`

export type Command =
  | { readonly kind: 'start'; readonly options: LocalAwsOptions; readonly json: boolean }
  | { readonly kind: 'bootstrap'; readonly endpoints: Omit<AwsEndpoints, 'credentials'> }
  | { readonly kind: 'help' }

function port(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${what} must be a port number, got '${text}'`)
  return n
}

/** Parses the command line; `defaultDataDir` is where `start` keeps its data unless told otherwise. */
export function parseCommand(argv: readonly string[], defaultDataDir: string): Command {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      s3: { type: 'string' },
      'no-dynamo': { type: 'boolean' },
      host: { type: 'string' },
      'dynamo-port': { type: 'string' },
      's3-port': { type: 'string' },
      table: { type: 'string' },
      bucket: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      's3-endpoint': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) return { kind: 'help' }
  const verb = positionals[0] ?? 'start'
  const tableName = values.table ?? METADATA_TABLE.defaultName
  const bucket = values.bucket ?? 'sluice'
  if (verb === 'bootstrap') {
    if (values.endpoint === undefined) throw new Error('bootstrap needs --endpoint')
    const endpoints = {
      region: values.region ?? 'us-east-1',
      dynamoEndpoint: values.endpoint,
      s3Endpoint: values['s3-endpoint'] ?? values.endpoint,
      tableName,
      bucket,
    }
    return { kind: 'bootstrap', endpoints }
  }
  if (verb !== 'start') throw new Error(`unknown command '${verb}'`)
  const s3 = values.s3 ?? 'fs'
  if (s3 !== 'fs' && s3 !== 's3rver' && s3 !== 'none')
    throw new Error(`--s3 must be fs, s3rver or none, got '${s3}'`)
  const options: LocalAwsOptions = {
    dataDir: resolve(values['data-dir'] ?? defaultDataDir),
    s3: s3 as LocalS3Mode,
    dynamo: !values['no-dynamo'],
    host: values.host,
    dynamoPort: port(values['dynamo-port'], '--dynamo-port'),
    s3Port: port(values['s3-port'], '--s3-port'),
    tableName,
    bucket,
    region: values.region,
  }
  return { kind: 'start', options, json: values.json === true }
}

/** What `start` prints: the endpoints, as configuration lines and environment exports. */
export function describeLocalAws(aws: LocalAws): string {
  const lines = ['sluice local AWS is running (Ctrl-C to stop)', '']
  if (aws.dynamo) lines.push(`  DynamoDB  ${aws.dynamo.endpoint}  table ${aws.dynamo.tableName}`)
  if (aws.s3)
    lines.push(`  S3        ${aws.s3.endpoint}  bucket ${aws.s3.bucket} (If-None-Match not enforced)`)
  else if (aws.blobStoreUri) lines.push(`  blobs     ${aws.blobStoreUri}`)
  lines.push('', '# configuration (server.yaml):')
  for (const [k, v] of Object.entries(aws.config)) lines.push(`${k}: ${v}`)
  lines.push('', '# environment for the AWS SDK:')
  for (const [k, v] of Object.entries(aws.env)) lines.push(`export ${k}=${v}`)
  return lines.join('\n')
}
