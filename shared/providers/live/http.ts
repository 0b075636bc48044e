/** A provider's HTTP answer that is not a protocol answer (5xx, not JSON, cut connection): an unknown outcome. */
export class ProviderUnreachable extends Error {}

/**
 * POSTs to a provider and returns its JSON answer. Anything that is not a 2xx JSON answer throws
 * ProviderUnreachable (the caller treats it as "unknown", never as a refusal). The call is bounded
 * by `signal` (the engine's) and, always, by `timeoutMs`.
 */
export async function postToProvider<T>(
  url: string,
  body: string,
  options: { contentType?: string; headers?: Record<string, string>; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<T> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': options.contentType ?? 'application/json', ...options.headers },
      body,
      signal,
    });
  } catch (error) {
    throw new ProviderUnreachable(`no answer from ${new URL(url).host}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) throw new ProviderUnreachable(`HTTP ${response.status} from ${new URL(url).host}`);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderUnreachable(`an answer that is not JSON from ${new URL(url).host}`);
  }
}
