import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import { ensureTable, startDynamoLocal } from '../../scripts/local/dynamo.ts';

/** Starts one real DynamoDB Local (in memory) on a free port for the whole run, with the table. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    tableName: string;
  }
}

export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal({ port: await freePort() });
  const tableName = 'payment-gateway-test';
  await ensureTable(dynamo.endpoint, tableName);
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('tableName', tableName);
  return async () => {
    await dynamo.stop();
  };
}
