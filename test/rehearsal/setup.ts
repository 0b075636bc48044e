// The rehearsal gives each function only what its template says; nothing of a developer's local
// settings (DYNAMODB_ENDPOINT, AWS_ENDPOINT_URL_SQS, …) may leak into the processes it starts.
for (const name of ['DYNAMODB_ENDPOINT', 'AWS_ENDPOINT_URL_SQS', 'TABLE_NAME', 'SECRETS_MASTER_KEY', 'PUBLIC_BASE_URL'])
  delete process.env[name];
