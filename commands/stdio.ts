// The process's stdout/stderr. A pipe or a file (what scripts, cron and benchmarks see) is written
// with writeSync on the descriptor: process.stdout would build a stream for it (for a pipe a
// net.Socket, ~3 ms of start-up) only to write synchronously anyway, and a reader that stops early
// (`| head`) would surface as an unhandled EPIPE error with a stack trace. A character device (a
// terminal, or /dev/null) keeps Node's stream, which knows which of the two it is (isTTY, columns).
// (Here, not in src/io: only the local storage backend of the library touches node:fs.)
import { fstatSync, writeSync } from 'node:fs';
import { nodeStream, type StdStream } from '../src/io/index.ts';

const dropping = new WeakSet<NodeJS.WriteStream>();
/** Whether each stdStream made so far has nothing left to write (checked before exiting at once). */
const settled: (() => boolean)[] = [];

/**
 * Whether everything written to stdout/stderr has gone out: written on the descriptor, or taken by a
 * Node stream that holds nothing back. The launcher then exits at once instead of letting the
 * event loop run down (which tears the whole environment down first).
 */
export function outputSettled(): boolean {
  return settled.every((f) => f());
}

const drained = (s: NodeJS.WriteStream): boolean => s.writableLength === 0 && !s.writableNeedDrain;

/**
 * A reader that went away is not an error of ours: the rest of the output is dropped and the command
 * still finishes (a table service must not stop halfway because `| head` stopped reading).
 */
function dropOnEpipe(s: NodeJS.WriteStream): NodeJS.WriteStream {
  if (!dropping.has(s)) {
    dropping.add(s);
    s.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
    });
  }
  return s;
}

/** `via`: how the bytes go out now ('stream' for terminals, or once a pipe turned non-blocking). */
export function stdStream(fd: 1 | 2): StdStream & { readonly via: 'descriptor' | 'stream' } {
  let direct: boolean;
  try {
    direct = !fstatSync(fd).isCharacterDevice();
  } catch {
    direct = false; // closed or odd descriptor: let Node's stream deal with it
  }
  if (!direct) {
    const s = dropOnEpipe(fd === 1 ? process.stdout : process.stderr);
    settled.push(() => drained(s));
    return Object.assign(nodeStream(s), { via: 'stream' as const });
  }
  let closed = false;
  // Node's stream, once the descriptor turned out non-blocking (EAGAIN: something made the stream,
  // which switches a pipe to non-blocking mode): from then on it queues and writes as Node does
  let stream: NodeJS.WriteStream | undefined;
  settled.push(() => !stream || drained(stream));
  const write = (x: string | Uint8Array): void => {
    if (closed) return;
    if (stream) return void stream.write(x);
    const bytes = typeof x === 'string' ? Buffer.from(x) : x;
    let off = 0;
    while (off < bytes.length) {
      try {
        off += writeSync(fd, bytes, off, bytes.length - off);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') {
          closed = true;
          return;
        }
        if (code !== 'EAGAIN') throw e;
        stream = dropOnEpipe(fd === 1 ? process.stdout : process.stderr);
        stream.write(bytes.subarray(off));
        return;
      }
    }
  };
  return {
    isTTY: false,
    columns: undefined,
    write,
    get via() {
      return stream ? 'stream' : 'descriptor';
    },
  };
}
