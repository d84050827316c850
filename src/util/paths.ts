// Table paths are '/'-separated strings relative to the storage root URI; never OS paths.

export function joinPath(...parts: string[]): string {
  const out: string[] = [];
  for (const p of parts) {
    if (p === '') continue;
    for (const seg of p.split('/')) {
      if (seg === '' || seg === '.') continue;
      out.push(seg);
    }
  }
  const abs = parts[0]?.startsWith('/') ? '/' : '';
  return abs + out.join('/');
}

export function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? p : p.slice(i + 1);
}

export function parentPath(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? (p.startsWith('/') ? '/' : '') : p.slice(0, i);
}

/** `child` relative to `base`, or undefined when it is not below it. */
export function relativeTo(base: string, child: string): string | undefined {
  const b = base.endsWith('/') ? base : `${base}/`;
  if (child === base) return '';
  return child.startsWith(b) ? child.slice(b.length) : undefined;
}
