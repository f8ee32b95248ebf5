/** Short numbers for objects, to build memo keys from object identity. */
export class ObjectIds {
  private readonly ids = new WeakMap<object, number>();
  private nextId = 0;

  /** The number of `value`, the same every time it is asked. */
  idOf(value: object): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(value, id);
    }
    return id;
  }
}
