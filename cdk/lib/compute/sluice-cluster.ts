import {
  SASL_PLAIN_USER_PREFIX,
  SLUICE_SECRETS_ENV,
  SLUICE_SECURITY_SASL_INTERNAL_PASSWORD,
} from '@sluice/core/config'
import { SecretValue, Stack } from 'aws-cdk-lib'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets'
import * as ecs from 'aws-cdk-lib/aws-ecs'
import type * as iam from 'aws-cdk-lib/aws-iam'
import type * as s3 from 'aws-cdk-lib/aws-s3'
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import { Construct } from 'constructs'
import {
  ADMIN_USER,
  coordinatorFlussConf,
  FLUSS_CONF_ENV,
  type FlussConf,
  GATEWAY_USER,
  tabletServerFlussConf,
} from '../fluss-conf.js'
import { grantMetadataAccess, METADATA_ACCESS, type MetadataAccess } from '../metadata-access.js'
import type { StageConfig } from '../stages.js'
import { DATA_PREFIXES } from '../stateful/data-bucket.js'
import { BootstrapLoadBalancer } from './bootstrap-load-balancer.js'
import { CoordinatorService } from './coordinator-service.js'
import { FLUSS_RPC_PORT, type SluiceNetwork } from './network.js'
import { TABLET_DATA_DIR, TabletServers } from './tablet-servers.js'

export interface SluiceClusterProps {
  readonly stage: StageConfig
  readonly network: SluiceNetwork
  /** Docker build context holding the root Dockerfile. */
  readonly repoRoot: string
  readonly table: dynamodb.ITable
  readonly bucket: s3.IBucket
  /** FLUSS_CONF shared by every server; each role adds its own listeners and identity. */
  readonly baseConf: FlussConf
}

/**
 * The Fluss cluster on ECS: one server image, the coordinator service, the tablet servers with their
 * Cloud Map names, and the bootstrap load balancer in front of them.
 */
export class SluiceCluster extends Construct {
  readonly cluster: ecs.Cluster
  readonly coordinator: CoordinatorService
  readonly tabletServers: TabletServers
  readonly bootstrap: BootstrapLoadBalancer
  /**
   * The servers' secrets (a JSON object of secret option keys), injected as SLUICE_SECRETS when a
   * task starts. On SASL stages Secrets Manager generates it with the internal credentials
   * (`sluice.security.sasl.internal.password`); elsewhere it starts as `{}`. Operators may add keys
   * (more users' JAAS configs).
   */
  readonly secrets: secretsmanager.Secret
  /** SASL stages: the generated password of the `admin` super user (`sluice.security.sasl.plain.user.admin`). */
  readonly adminCredentials?: secretsmanager.Secret
  /** SASL stages: the gateway's generated password, read by the servers and by the gateway at cold start. */
  readonly gatewayCredentials?: secretsmanager.Secret
  /** TLS stages: the secret with the CA the gateway verifies servers against. */
  readonly tlsCa?: secretsmanager.ISecret

  constructor(scope: Construct, id: string, props: SluiceClusterProps) {
    super(scope, id)
    const { stage, network } = props
    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: network.vpc,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    })
    const namespace = this.cluster.addDefaultCloudMapNamespace({
      name: `${stage.name}.sluice.internal`,
      vpc: network.vpc,
    })
    const platform = ecsPlatform(stage)
    const image = ecs.ContainerImage.fromDockerImageAsset(
      new ecrAssets.DockerImageAsset(this, 'Image', {
        directory: props.repoRoot,
        file: 'Dockerfile',
        platform: platform.assetPlatform,
      }),
    )
    const env = (conf: FlussConf) => ({ [FLUSS_CONF_ENV]: Stack.of(this).toJsonString(conf) })
    const sasl = stage.security.sasl === true
    this.secrets = new secretsmanager.Secret(this, 'ServerSecrets', {
      description: `Sluice ${stage.name}: secret server options (SLUICE_SECRETS), e.g. security.sasl.plain.jaas.config`,
      ...(sasl
        ? { generateSecretString: generatedKey(SLUICE_SECURITY_SASL_INTERNAL_PASSWORD.key) }
        : { secretStringValue: SecretValue.unsafePlainText('{}') }),
    })
    const secrets: Record<string, ecs.Secret> = {
      [SLUICE_SECRETS_ENV]: ecs.Secret.fromSecretsManager(this.secrets),
    }
    if (sasl) {
      this.adminCredentials = new secretsmanager.Secret(this, 'AdminCredentials', {
        description: `Sluice ${stage.name}: password of the SASL super user '${ADMIN_USER}'`,
        generateSecretString: generatedKey(`${SASL_PLAIN_USER_PREFIX}${ADMIN_USER}`),
      })
      this.gatewayCredentials = new secretsmanager.Secret(this, 'GatewayCredentials', {
        description: `Sluice ${stage.name}: password of the gateway's SASL user '${GATEWAY_USER}'`,
        generateSecretString: generatedKey(`${SASL_PLAIN_USER_PREFIX}${GATEWAY_USER}`),
      })
      secrets[`${SLUICE_SECRETS_ENV}_ADMIN`] = ecs.Secret.fromSecretsManager(this.adminCredentials)
      secrets[`${SLUICE_SECRETS_ENV}_GATEWAY`] = ecs.Secret.fromSecretsManager(this.gatewayCredentials)
    }
    const tls = stage.security.tls
    if (tls !== undefined) {
      if (stage.security.bootstrapCertificateArn !== undefined)
        throw new Error(
          `Stage '${stage.name}': 'security.tls' encrypts every listener end to end, so the load balancer passes TLS through on 9123; drop 'security.bootstrapCertificateArn' (its listener terminates TLS in front of plaintext listeners)`,
        )
      const certificate = secretsmanager.Secret.fromSecretCompleteArn(
        this,
        'TlsCertificate',
        tls.certificateSecretArn,
      )
      this.tlsCa = secretsmanager.Secret.fromSecretCompleteArn(this, 'TlsCa', tls.caSecretArn)
      secrets[`${SLUICE_SECRETS_ENV}_TLS`] = ecs.Secret.fromSecretsManager(certificate)
      secrets[`${SLUICE_SECRETS_ENV}_TLS_CA`] = ecs.Secret.fromSecretsManager(this.tlsCa)
    }
    const common = {
      secrets,
      cluster: this.cluster,
      image,
      cpuArchitecture: platform.cpuArchitecture,
      securityGroup: network.serverSecurityGroup,
      subnets: network.privateSubnets,
      logRetention: stage.logRetention,
    }
    this.bootstrap = new BootstrapLoadBalancer(this, 'Bootstrap', {
      vpc: network.vpc,
      subnets: network.privateSubnets,
      clientPeers: network.clientPeers,
      targetSecurityGroup: network.serverSecurityGroup,
      ...(stage.security.bootstrapCertificateArn === undefined
        ? {}
        : { certificateArn: stage.security.bootstrapCertificateArn }),
    })
    this.coordinator = new CoordinatorService(this, 'Coordinator', {
      ...common,
      size: stage.coordinator,
      taskCount: stage.coordinator.taskCount,
      environment: env(coordinatorFlussConf(props.baseConf, FLUSS_RPC_PORT)),
    })
    this.tabletServers = new TabletServers(this, 'TabletServers', {
      ...common,
      config: stage.tabletServers,
      namespace,
      bootstrapTargetGroup: this.bootstrap.targetGroup,
      environmentFor: identity =>
        env(
          tabletServerFlussConf(props.baseConf, {
            ...identity,
            dataDir: TABLET_DATA_DIR,
            port: FLUSS_RPC_PORT,
          }),
        ),
    })
    grantServerData(
      this.coordinator.taskDefinition.taskRole,
      props.table,
      props.bucket,
      METADATA_ACCESS.coordinator,
    )
    for (const t of this.tabletServers.taskDefinitions)
      grantServerData(t.taskRole, props.table, props.bucket, METADATA_ACCESS.tabletServer)
  }
}

/**
 * Servers read and write their families of the metadata table, remote log segments and KV snapshots (the coordinator
 * also deletes them when a table is dropped); the lake belongs to the tiering function.
 */
function grantServerData(
  role: iam.IRole,
  table: dynamodb.ITable,
  bucket: s3.IBucket,
  access: MetadataAccess,
): void {
  grantMetadataAccess(role, table, access)
  bucket.grantReadWrite(role, `${DATA_PREFIXES.remoteLog}*`)
  bucket.grantReadWrite(role, `${DATA_PREFIXES.kvSnapshots}*`)
}

function ecsPlatform(stage: StageConfig): {
  cpuArchitecture: ecs.CpuArchitecture
  assetPlatform: ecrAssets.Platform
} {
  return stage.cpuArchitecture === 'ARM64'
    ? { cpuArchitecture: ecs.CpuArchitecture.ARM64, assetPlatform: ecrAssets.Platform.LINUX_ARM64 }
    : { cpuArchitecture: ecs.CpuArchitecture.X86_64, assetPlatform: ecrAssets.Platform.LINUX_AMD64 }
}

/** A secret Secrets Manager generates as `{"<key>": "<40 random letters and digits>"}`. */
function generatedKey(key: string): secretsmanager.SecretStringGenerator {
  return {
    secretStringTemplate: '{}',
    generateStringKey: key,
    passwordLength: 40,
    excludePunctuation: true,
  }
}
