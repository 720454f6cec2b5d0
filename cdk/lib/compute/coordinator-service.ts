import { COORDINATOR_NODE_FLAGS } from '@sluice/core/config'
import type * as ec2 from 'aws-cdk-lib/aws-ec2'
import * as ecs from 'aws-cdk-lib/aws-ecs'
import * as logs from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'
import type { TaskSize } from '../stages.js'
import { ServerTask } from './server-task.js'

export const COORDINATOR_COMMAND: readonly string[] = [
  'node',
  ...COORDINATOR_NODE_FLAGS,
  'services/coordinator/dist/main.js',
]

export interface CoordinatorServiceProps {
  readonly cluster: ecs.ICluster
  readonly image: ecs.ContainerImage
  readonly cpuArchitecture: ecs.CpuArchitecture
  readonly size: TaskSize
  /** Tasks in the service; one is active (it holds the DynamoDB lease), the others stand by. */
  readonly taskCount: number
  readonly environment: Readonly<Record<string, string>>
  readonly secrets?: Readonly<Record<string, ecs.Secret>>
  readonly securityGroup: ec2.ISecurityGroup
  readonly subnets: ec2.SubnetSelection
  readonly logRetention: logs.RetentionDays
}

/**
 * The coordinator: one ECS service whose tasks race for the coordinator lease in DynamoDB. Tasks are
 * replaced one at a time so a standby is always there to take over.
 */
export class CoordinatorService extends Construct {
  readonly service: ecs.FargateService
  readonly taskDefinition: ecs.FargateTaskDefinition

  constructor(scope: Construct, id: string, props: CoordinatorServiceProps) {
    super(scope, id)
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention })
    const task = new ServerTask(this, 'Task', {
      image: props.image,
      command: COORDINATOR_COMMAND,
      size: props.size,
      cpuArchitecture: props.cpuArchitecture,
      environment: props.environment,
      ...(props.secrets === undefined ? {} : { secrets: props.secrets }),
      logGroup,
      streamPrefix: 'coordinator',
    })
    this.taskDefinition = task.taskDefinition
    this.service = new ecs.FargateService(this, 'Service', {
      cluster: props.cluster,
      taskDefinition: task.taskDefinition,
      desiredCount: props.taskCount,
      minHealthyPercent: 50,
      maxHealthyPercent: 100,
      circuitBreaker: { enable: true, rollback: true },
      securityGroups: [props.securityGroup],
      vpcSubnets: props.subnets,
      assignPublicIp: false,
      enableExecuteCommand: false,
    })
  }
}
