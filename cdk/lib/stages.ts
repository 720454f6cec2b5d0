import { LOG_REPLICA_MAX_LAG_TIME, REMOTE_LOG_TASK_INTERVAL_DURATION } from '@sluice/core/config'
import * as logs from 'aws-cdk-lib/aws-logs'

/**
 * Per-stage configuration, typed in one place. Every size, count and policy that differs between
 * stages lives here; constructs and stacks receive the parts they need through props.
 */
export type StageName = 'dev' | 'prod'

export type CpuArchitectureName = 'X86_64' | 'ARM64'

/** How callers authenticate to the HTTP gateway. */
export type GatewayAuth =
  | { readonly kind: 'iam' }
  | { readonly kind: 'jwt'; readonly issuerUrl: string; readonly audience: readonly string[] }

/** One Fargate task size; `cpu` in CPU units (1024 = 1 vCPU). */
export interface TaskSize {
  readonly cpu: number
  readonly memoryMiB: number
}

export interface TabletServersConfig extends TaskSize {
  /** Number of tablet servers; each is its own ECS service with a stable server id 0..count-1. */
  readonly count: number
  /** Size of the ECS-managed gp3 data volume of each tablet server. */
  readonly dataVolumeGiB: number
  readonly dataVolumeIops: number
  readonly dataVolumeThroughputMiBps: number
}

export interface FunctionConfig {
  readonly memoryMiB: number
  readonly timeoutSeconds: number
}

/** Security of the cluster's edges. */
export interface SecurityConfig {
  /**
   * ACM certificate of the bootstrap load balancer's TLS listener (port 9443, TLS 1.2+, terminated at
   * the load balancer); none: no TLS listener.
   */
  readonly bootstrapCertificateArn?: string
  /**
   * SASL/PLAIN and ACLs: every server gets a SASL `CLIENT` listener on 9123 (behind the load
   * balancer) and a SASL `INTERNAL` one on 9124 for server-to-server traffic, `authorizer.enabled`;
   * the JAAS configs (users, internal credentials) go in the server secrets (SLUICE_SECRETS).
   */
  readonly sasl?: boolean
  /**
   * TLS on the servers' own listeners, so the whole data path (clients to every coordinator and
   * tablet server, and servers to each other) is encrypted: the listeners become SSL (SASL_SSL with
   * `sasl`). The certificate comes from Secrets Manager, never from files in the image.
   */
  readonly tls?: ServerTlsConfig
}

/** Where the servers' certificate is and which name clients verify. */
export interface ServerTlsConfig {
  /**
   * A Secrets Manager secret holding a JSON object with `sluice.security.ssl.certificate` (PEM,
   * with its chain) and `sluice.security.ssl.key` (PEM private key), shared by every server.
   */
  readonly certificateSecretArn: string
  /**
   * A Secrets Manager secret holding `{"sluice.security.ssl.ca": "<PEM>"}`: the authority the
   * servers and the gateway verify server certificates against (kept apart from the key, so the
   * gateway reads only this).
   */
  readonly caSecretArn: string
  /**
   * The name the certificate carries and every client verifies instead of the address it connects
   * to (servers advertise IP addresses and Cloud Map names): `client.security.ssl.server-name`.
   */
  readonly serverName: string
}

export interface StageConfig {
  readonly name: StageName
  /** Prefix of the CDK stage, which prefixes every stack name (`SluiceDev/Stateful`). */
  readonly stageId: string
  /** Image and task architecture; the image is built for this platform at deploy time. */
  readonly cpuArchitecture: CpuArchitectureName
  readonly natGateways: number
  /** Extra CIDR ranges (peered VPCs, VPN) allowed to reach port 9123; the VPC itself always is. */
  readonly clientCidrs: readonly string[]
  readonly coordinator: TaskSize & { readonly taskCount: number }
  readonly tabletServers: TabletServersConfig
  readonly tiering: FunctionConfig & { readonly scheduleRateMinutes: number }
  readonly gateway: FunctionConfig & {
    readonly auth: GatewayAuth
    /** Steady-state and burst request limits of the HTTP API stage. */
    readonly throttleRatePerSecond: number
    readonly throttleBurst: number
  }
  /** Keep the metadata table, data bucket and lake database when the stack is deleted. */
  readonly retainData: boolean
  readonly noncurrentVersionExpirationDays: number
  readonly abortIncompleteUploadDays: number
  readonly athenaResultsExpirationDays: number
  /** Athena cancels any query of the stage's workgroup that would scan more than this. */
  readonly athenaBytesScannedCutoffPerQuery: number
  readonly logRetention: logs.RetentionDays
  /** Glue database that holds the stage's Iceberg tables; Athena-safe name ([a-z0-9_]). */
  readonly lakeDatabaseName: string
  /**
   * Server and cluster options every server and function receives in FLUSS_CONF, keyed by registered
   * option keys. Table options do not belong here: they are set per table.
   */
  readonly flussOptions: Readonly<Record<string, string>>
  readonly security: SecurityConfig
}

export const STAGES: Readonly<Record<StageName, StageConfig>> = {
  dev: {
    name: 'dev',
    stageId: 'SluiceDev',
    cpuArchitecture: 'X86_64',
    natGateways: 1,
    clientCidrs: [],
    coordinator: { taskCount: 2, cpu: 512, memoryMiB: 1024 },
    tabletServers: {
      count: 3,
      cpu: 1024,
      memoryMiB: 2048,
      dataVolumeGiB: 50,
      dataVolumeIops: 3000,
      dataVolumeThroughputMiBps: 125,
    },
    tiering: { memoryMiB: 1024, timeoutSeconds: 300, scheduleRateMinutes: 5 },
    gateway: {
      memoryMiB: 512,
      timeoutSeconds: 29,
      auth: { kind: 'iam' },
      throttleRatePerSecond: 50,
      throttleBurst: 100,
    },
    retainData: false,
    noncurrentVersionExpirationDays: 7,
    abortIncompleteUploadDays: 1,
    athenaResultsExpirationDays: 7,
    athenaBytesScannedCutoffPerQuery: 10 * 1024 ** 3,
    logRetention: logs.RetentionDays.ONE_WEEK,
    lakeDatabaseName: 'sluice_dev',
    flussOptions: {
      [LOG_REPLICA_MAX_LAG_TIME.key]: '30s',
      [REMOTE_LOG_TASK_INTERVAL_DURATION.key]: '1min',
    },
    security: {},
  },
  prod: {
    name: 'prod',
    stageId: 'SluiceProd',
    cpuArchitecture: 'X86_64',
    natGateways: 2,
    clientCidrs: [],
    coordinator: { taskCount: 2, cpu: 1024, memoryMiB: 2048 },
    tabletServers: {
      count: 3,
      cpu: 4096,
      memoryMiB: 16384,
      dataVolumeGiB: 500,
      dataVolumeIops: 6000,
      dataVolumeThroughputMiBps: 250,
    },
    tiering: { memoryMiB: 2048, timeoutSeconds: 600, scheduleRateMinutes: 1 },
    gateway: {
      memoryMiB: 1024,
      timeoutSeconds: 29,
      auth: { kind: 'iam' },
      throttleRatePerSecond: 500,
      throttleBurst: 1000,
    },
    retainData: true,
    noncurrentVersionExpirationDays: 30,
    abortIncompleteUploadDays: 7,
    athenaResultsExpirationDays: 30,
    athenaBytesScannedCutoffPerQuery: 1024 ** 4,
    logRetention: logs.RetentionDays.THREE_MONTHS,
    lakeDatabaseName: 'sluice_prod',
    flussOptions: {
      [LOG_REPLICA_MAX_LAG_TIME.key]: '30s',
      [REMOTE_LOG_TASK_INTERVAL_DURATION.key]: '1min',
    },
    security: {},
  },
}

/** The stage named `name`; throws with the known names when it does not exist. */
export function stageByName(name: string): StageConfig {
  const stage = (STAGES as Record<string, StageConfig | undefined>)[name]
  if (stage === undefined) {
    throw new Error(`Unknown stage '${name}': expected one of ${Object.keys(STAGES).join(', ')}.`)
  }
  return stage
}
