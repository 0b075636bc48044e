import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, ParamsAndSecretsLayerVersion, ParamsAndSecretsVersions, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { SecretName } from '#functions/routes.ts';
import { bundling } from '#infra/bundling.ts';

/** The environment variable that carries each secret's ARN to the code (shared/crypto/seal.ts, shared/providers/live). */
export const secretArnVariables = {
  masterKey: 'SECRETS_MASTER_KEY_ARN',
  publicPathsKey: 'SECRETS_PUBLIC_KEY_ARN',
  totpKey: 'SECRETS_TOTP_KEY_ARN',
  liveProviders: 'LIVE_PROVIDERS_SECRET_ARN',
} as const satisfies Record<SecretName, string>;

/** Retention of every log group the stack creates. */
export const logRetention = RetentionDays.ONE_MONTH;

export interface GatewayFunctionProps extends Pick<NodejsFunctionProps, 'description' | 'timeout' | 'environment'> {
  /** Absolute path of the handler module; it exports `handler`. */
  readonly entry: string;
  /** The one table (its name: TABLE_NAME). Data grants are the caller's (least privilege per route). */
  readonly table: Pick<ITable, 'tableName'>;
  /**
   * The secrets this function reads, nothing else (shared/http/route.ts SecretName), each passed as
   * its ARN variable (secretArnVariables). Only secretsmanager:GetSecretValue is granted, on exactly
   * these: the Parameters and Secrets extension needs nothing else.
   */
  readonly secrets: Partial<Record<SecretName, ISecret>>;
  /** Files the handler reads at run time (`source:name`, source relative to the repository root), copied next to the bundle. */
  readonly assets?: readonly string[];
}

/** A gateway Lambda: Node.js 24 on arm64, bundled ESM, traced, with the gateway's common environment. */
export class GatewayFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: GatewayFunctionProps) {
    const { table, secrets, environment, assets = [], ...rest } = props;
    // Created beside the function, as nothing can be its child before super(): a log group with a
    // retention, and a role that may write to that log group only (instead of the
    // AWSLambdaBasicExecutionRole managed policy, which may write to any log group).
    const logGroup = new LogGroup(scope, `${id}LogGroup`, { retention: logRetention });
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    super(scope, id, {
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      bundling: assets.length
        ? {
            ...bundling,
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (inputDir: string, outputDir: string) =>
                assets.map((asset) => {
                  const [source, name] = asset.split(':') as [string, string];
                  return `cp "${inputDir}/${source}" "${outputDir}/${name}"`;
                }),
            },
          }
        : bundling,
      logGroup,
      // The AWS Parameters and Secrets extension serves the master key over localhost with caching,
      // so no Secrets Manager SDK client is bundled into the functions (shared/crypto/seal.ts).
      paramsAndSecrets: ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, { cacheSize: 10, cacheEnabled: true }),
      role,
      ...rest,
      environment: {
        TABLE_NAME: table.tableName,
        ...Object.fromEntries(Object.entries(secrets).map(([name, secret]) => [secretArnVariables[name as SecretName], secret.secretArn])),
        POWERTOOLS_SERVICE_NAME: 'payment-gateway',
        LOG_LEVEL: 'INFO',
        ...(bundling.sourceMap ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        ...environment,
      },
    });
    const readable = Object.values(secrets).map((secret) => secret.secretArn);
    if (readable.length)
      role.addToPrincipalPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: readable }));

    const xray = 'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions, so active tracing needs Resource "*".';
    Validations.of(role).acknowledge(
      { id: 'AwsSolutions-IAM5[Resource::*]', reason: xray },
      { id: 'Serverless-StarPermissions', reason: xray },
    );
  }
}
