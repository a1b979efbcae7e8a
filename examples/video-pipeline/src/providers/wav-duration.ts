// A WAV file's duration from its header (the `fmt ` byte rate and the `data` chunk's size).
export function wavDurationSec(bytes: Buffer): number {
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a WAV file');
  let byteRate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = bytes.toString('ascii', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ') byteRate = bytes.readUInt32LE(at + 16);
    if (id === 'data') {
      if (!byteRate) throw new Error('WAV data before its format');
      // espeak-ng writing to a pipe leaves the size at 0x7fffffff: count the bytes there are.
      const dataBytes = Math.min(size, bytes.length - at - 8);
      return dataBytes / byteRate;
    }
    at += 8 + size + (size % 2);
  }
  throw new Error('WAV without a data chunk');
}
