// Config the raw Streams parent hands its children.
export interface RawStreamsConfig {
  host: string;
  port: number;
  key: string;
  group: string;
}

export function parseRawStreamsConfig(config: Record<string, unknown>): RawStreamsConfig {
  const { host, port, key, group } = config;
  if (
    typeof host !== 'string' ||
    typeof port !== 'number' ||
    typeof key !== 'string' ||
    typeof group !== 'string'
  ) {
    throw new Error(`bad raw Streams child config: ${JSON.stringify(config)}`);
  }
  return { host, port, key, group };
}
