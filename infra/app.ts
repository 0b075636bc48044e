import { App } from 'aws-cdk-lib';
import { addComplianceChecks } from '#infra/checks.ts';
import { PaymentGatewayStack } from '#infra/gateway-stack.ts';

const app = new App();
new PaymentGatewayStack(app, 'PaymentGateway', {
  description: 'Merchant payment gateway: API, Lambdas, table, webhook queues, alarms.',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
addComplianceChecks(app);
