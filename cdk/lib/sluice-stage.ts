import { type Environment, Stage, Tags } from 'aws-cdk-lib'
import type { Construct } from 'constructs'
import { ComputeStack } from './compute/compute-stack.js'
import type { StageConfig } from './stages.js'
import { StatefulStack } from './stateful/stateful-stack.js'

export interface SluiceStageProps {
  readonly config: StageConfig
  readonly repoRoot: string
  /** Target account and region; undefined synthesizes environment-agnostic stacks. */
  readonly env?: Environment
}

/**
 * One deployment of Sluice: a stateful stack and a compute stack, deployed as
 * `cdk deploy '<stageId>/*'` (e.g. `SluiceDev/*`). The compute stack references the stateful one's
 * resources, so CloudFormation deploys the stateful stack first.
 */
export class SluiceStage extends Stage {
  readonly stateful: StatefulStack
  readonly compute: ComputeStack

  constructor(scope: Construct, props: SluiceStageProps) {
    super(scope, props.config.stageId, { env: props.env })
    this.stateful = new StatefulStack(this, 'Stateful', {
      stage: props.config,
      description: `Sluice ${props.config.name}: metadata table, data bucket, lake database`,
    })
    this.compute = new ComputeStack(this, 'Compute', {
      stage: props.config,
      repoRoot: props.repoRoot,
      table: this.stateful.table,
      bucket: this.stateful.bucket,
      lakeDatabase: this.stateful.lakeDatabase,
      description: `Sluice ${props.config.name}: ECS cluster, load balancer, tiering and gateway functions`,
    })
    Tags.of(this).add('sluice:stage', props.config.name)
  }
}
