// The order in which files vanish from a directory, as the kernel removed them (inotify through
// fs.watch: its events are queued under the directory's lock, so two threads' unlinks come out in the
// order they happened). Only names present when watching starts are followed.
import { watch } from 'node:fs';

export function watchDeletes(dir: string, names: Iterable<string>): { stop: () => Promise<string[]> } {
  const present = new Set(names);
  const order: string[] = [];
  const w = watch(dir, (event, name) => {
    // a present name's first 'rename' event is its removal
    if (event === 'rename' && name && present.delete(name)) order.push(name);
  });
  return {
    stop: async () => {
      // the events of the last unlinks may still be in the kernel's queue
      let seen = -1;
      while (seen !== order.length) {
        seen = order.length;
        await new Promise((r) => setTimeout(r, 100));
      }
      w.close();
      return order;
    },
  };
}
