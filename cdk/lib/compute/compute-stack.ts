import { SLUICE_SECRET_ARNS_ENV } from '@sluice/core/config'
import { CfnOutput, Fn, RemovalPolicies, Stack, type StackProps } from 'aws-cdk-lib'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import type * as s3 from 'aws-cdk-lib/aws-s3'
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import type { Construct } from 'constructs'
import { baseFlussConf, FLUSS_CONF_ENV, functionFlussConf, gatewayClientFlussConf } from '../fluss-conf.js'
import { GatewayApi } from '../functions/gateway-api.js'
import { TieringFunction } from '../functions/tiering-function.js'
import type { StageConfig } from '../stages.js'
import type { LakeDatabase } from '../stateful/lake-database.js'
import { LakeQuery } from './lake-query.js'
import { SluiceNetwork } from './network.js'
import { OperationsAlarms } from './operations-alarms.js'
import { SluiceCluster } from './sluice-cluster.js'

export interface ComputeStackProps extends StackProps {
  readonly stage: StageConfig
  /** Repository root: the Docker build context (root Dockerfile) and the Lambda bundling root. */
  readonly repoRoot: string
  readonly table: dynamodb.ITable
  readonly bucket: s3.IBucket
  readonly lakeDatabase: LakeDatabase
}

/**
 * Everything that runs: the VPC, the Fluss cluster on ECS behind its bootstrap load balancer, the
 * tiering and gateway functions, and Athena access. It holds no data of its own (tablet volumes are
 * rebuilt from replicas and S3), so it can be replaced at will.
 */
export class ComputeStack extends Stack {
  readonly network: SluiceNetwork
  readonly cluster: SluiceCluster
  readonly tiering: TieringFunction
  readonly gateway: GatewayApi
  readonly lakeQuery: LakeQuery
  readonly alarms: OperationsAlarms

  constructor(scope: Construct, id: string, props: ComputeStackProps) {
    super(scope, id, props)
    const { stage } = props
    this.network = new SluiceNetwork(this, 'Network', {
      natGateways: stage.natGateways,
      clientCidrs: stage.clientCidrs,
      internalListener: stage.security.sasl === true,
    })
    const baseConf = baseFlussConf(stage, {
      metadataTableName: props.table.tableName,
      bucketName: props.bucket.bucketName,
      region: this.region,
    })
    this.cluster = new SluiceCluster(this, 'Fluss', { ...props, network: this.network, baseConf })
    const functionCommon = {
      repoRoot: props.repoRoot,
      cpuArchitecture: stage.cpuArchitecture,
      environment: {
        [FLUSS_CONF_ENV]: this.toJsonString(
          functionFlussConf(
            baseConf,
            this.cluster.bootstrap.bootstrapServers,
            props.lakeDatabase.databaseName,
          ),
        ),
      },
      vpc: this.network.vpc,
      subnets: this.network.privateSubnets,
      securityGroup: this.network.functionSecurityGroup,
      logRetention: stage.logRetention,
      table: props.table,
      bucket: props.bucket,
      lakeDatabase: props.lakeDatabase,
    }
    this.tiering = new TieringFunction(this, 'Tiering', {
      ...functionCommon,
      config: stage.tiering,
      scheduleRateMinutes: stage.tiering.scheduleRateMinutes,
    })
    // On secured stages the gateway is a client of the SASL/TLS listeners: its user name is in
    // FLUSS_CONF, its password (and the CA) in secrets it reads at cold start.
    const gatewaySecrets = [this.cluster.gatewayCredentials, this.cluster.tlsCa].filter(
      (s): s is secretsmanager.ISecret => s !== undefined,
    )
    this.gateway = new GatewayApi(this, 'Gateway', {
      ...functionCommon,
      environment: {
        [FLUSS_CONF_ENV]: this.toJsonString({
          ...functionFlussConf(
            baseConf,
            this.cluster.bootstrap.bootstrapServers,
            props.lakeDatabase.databaseName,
          ),
          ...gatewayClientFlussConf(stage),
        }),
        ...(gatewaySecrets.length === 0
          ? {}
          : {
              [SLUICE_SECRET_ARNS_ENV]: Fn.join(
                ',',
                gatewaySecrets.map(s => s.secretArn),
              ),
            }),
      },
      config: stage.gateway,
      auth: stage.gateway.auth,
      throttleRatePerSecond: stage.gateway.throttleRatePerSecond,
      throttleBurst: stage.gateway.throttleBurst,
    })
    for (const secret of gatewaySecrets) secret.grantRead(this.gateway.function)
    this.lakeQuery = new LakeQuery(this, 'LakeQuery', {
      workGroupName: `sluice-${stage.name}`,
      bucket: props.bucket,
      lakeDatabase: props.lakeDatabase,
      resultsExpirationDays: stage.athenaResultsExpirationDays,
      bytesScannedCutoffPerQuery: stage.athenaBytesScannedCutoffPerQuery,
    })
    this.alarms = new OperationsAlarms(this, 'Alarms')
    this.addOutputs(props)
    // Log groups outlive the stack only where the stage retains data.
    if (!stage.retainData) RemovalPolicies.of(this).destroy({ applyToResourceTypes: ['AWS::Logs::LogGroup'] })
  }

  private addOutputs(props: ComputeStackProps): void {
    new CfnOutput(this, 'BootstrapServers', {
      value: this.cluster.bootstrap.bootstrapServers,
      description: 'bootstrap.servers for Fluss clients inside the VPC',
    })
    const tls = this.cluster.bootstrap.tlsBootstrapServers
    if (tls !== undefined)
      new CfnOutput(this, 'TlsBootstrapServers', {
        value: tls,
        description: 'bootstrap.servers through the TLS listener (terminated at the load balancer)',
      })
    new CfnOutput(this, 'ServerSecretsArn', {
      value: this.cluster.secrets.secretArn,
      description: 'Secrets Manager secret with the servers secret options (SLUICE_SECRETS JSON)',
    })
    const admin = this.cluster.adminCredentials
    if (admin !== undefined)
      new CfnOutput(this, 'AdminCredentialsSecretArn', {
        value: admin.secretArn,
        description:
          'Secrets Manager secret with the password of the SASL super user admin (key sluice.security.sasl.plain.user.admin)',
      })
    new CfnOutput(this, 'GatewayUrl', { value: this.gateway.api.apiEndpoint })
    new CfnOutput(this, 'GatewayInvokeArn', {
      value: this.gateway.api.arnForExecuteApi(),
      description: 'Resource of the execute-api:Invoke permission callers need (IAM authorization)',
    })
    new CfnOutput(this, 'AthenaWorkGroup', { value: this.lakeQuery.workGroup.ref })
    new CfnOutput(this, 'LakeDatabaseName', { value: props.lakeDatabase.databaseName })
    new CfnOutput(this, 'LakeReaderRoleArn', { value: this.lakeQuery.readerRole.roleArn })
    new CfnOutput(this, 'MetadataTableName', { value: props.table.tableName })
    new CfnOutput(this, 'DataBucketName', { value: props.bucket.bucketName })
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'Subscribe to be told of under-replicated buckets, lake lag and KV snapshot failures',
    })
  }
}
