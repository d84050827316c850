// java.lang.String.hashCode: 31·h + UTF-16 code unit, in wrapping 32-bit int arithmetic. Hudi uses it
// for HashMap iteration order and to map metadata-table record keys to file groups.
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
