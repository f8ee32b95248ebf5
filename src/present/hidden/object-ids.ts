/** Short numbers for objects, to build memo keys from object identity. */
export class ObjectIds {
  private readonly ids = new WeakMap<object, number>();
  private nextId = 0;

  /** The number of `value`, the same every time it is asked. */
  idOf(value: object): number {
    return remember(this.ids, value, () => this.nextId++);
  }
}

/** The value for `key` in `map`, computed by `compute` the first time it is asked for. */
export function remember<K, V>(
  map: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  compute: () => V,
): V {
  let value = map.get(key);
  if (value === undefined) {
    value = compute();
    map.set(key, value);
  }
  return value;
}
