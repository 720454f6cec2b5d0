import * as ec2 from 'aws-cdk-lib/aws-ec2'
import { Construct } from 'constructs'

/** Port of the Fluss RPC listener of every coordinator and tablet server. */
export const FLUSS_RPC_PORT = 9123
/** Port of the INTERNAL listener of SASL stages (servers only). */
export const FLUSS_INTERNAL_PORT = 9124
/** The bootstrap load balancer's TLS port (TLS terminated there, forwarded to FLUSS_RPC_PORT). */
export const FLUSS_TLS_PORT = 9443

export interface SluiceNetworkProps {
  readonly natGateways: number
  /** CIDR ranges outside the VPC (peered VPCs, VPN) whose clients may reach the Fluss port. */
  readonly clientCidrs: readonly string[]
  /** Open FLUSS_INTERNAL_PORT between the servers (SASL stages). */
  readonly internalListener?: boolean
}

/**
 * The VPC of a Sluice cluster: two AZs, public subnets only for the NAT gateways, servers and functions
 * in private subnets. S3 and DynamoDB are reached through gateway endpoints (free, and off the NAT).
 */
export class SluiceNetwork extends Construct {
  readonly vpc: ec2.Vpc
  /** Coordinators and tablet servers: Fluss RPC open to the VPC and the configured client ranges. */
  readonly serverSecurityGroup: ec2.SecurityGroup
  /** Lambda functions: no inbound rules, outbound to the servers and AWS APIs. */
  readonly functionSecurityGroup: ec2.SecurityGroup
  /** Where Fluss clients may connect from: the VPC and the configured client ranges. */
  readonly clientPeers: readonly ec2.IPeer[]

  constructor(scope: Construct, id: string, props: SluiceNetworkProps) {
    super(scope, id)
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: props.natGateways,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
      ],
      gatewayEndpoints: {
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
      },
    })
    this.serverSecurityGroup = new ec2.SecurityGroup(this, 'ServerSecurityGroup', {
      vpc: this.vpc,
      description: 'Sluice coordinators and tablet servers',
      allowAllOutbound: true,
    })
    this.clientPeers = [
      ec2.Peer.ipv4(this.vpc.vpcCidrBlock),
      ...props.clientCidrs.map(cidr => ec2.Peer.ipv4(cidr)),
    ]
    for (const peer of this.clientPeers) {
      this.serverSecurityGroup.addIngressRule(peer, ec2.Port.tcp(FLUSS_RPC_PORT), 'Fluss RPC from clients')
    }
    if (props.internalListener === true) {
      this.serverSecurityGroup.addIngressRule(
        this.serverSecurityGroup,
        ec2.Port.tcp(FLUSS_INTERNAL_PORT),
        'Fluss INTERNAL listener, between servers only',
      )
    }
    this.functionSecurityGroup = new ec2.SecurityGroup(this, 'FunctionSecurityGroup', {
      vpc: this.vpc,
      description: 'Sluice Lambda functions',
      allowAllOutbound: true,
    })
  }

  /** Subnets of servers, functions and the internal load balancer. */
  get privateSubnets(): ec2.SubnetSelection {
    return { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS }
  }
}
