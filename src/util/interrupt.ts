// Who handles SIGINT. The CLI's default is to exit 130 at once (table services are crash-safe: the
// next run rolls back and retries), but a command supervising a child process (a Spark or Flink
// engine) must first forward the signal and wait for the child: while it owns interrupts, the CLI
// leaves SIGINT to it.
let owners = 0;

/** Takes over SIGINT handling; call the returned function to give it back. */
export function ownInterrupts(): () => void {
  owners++;
  let released = false;
  return () => {
    if (!released) owners--;
    released = true;
  };
}

export function interruptsOwned(): boolean {
  return owners > 0;
}
