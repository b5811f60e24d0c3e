// Paging: list calls return a Pages, an async iterable that fetches pages as it is walked.

/** One page of a list answer. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The items of a list call, fetched a page at a time as you iterate (`for await (const f of pages)`),
 * never more than `limit` of them. `toArray()` collects them all. Each walk starts from the first page.
 */
export class Pages<T> implements AsyncIterable<T> {
  readonly #fetch: (cursor: string | undefined, size: number) => Promise<Page<T>>;
  readonly #limit: number | undefined;
  readonly #pageSize: number;

  constructor(
    fetch: (cursor: string | undefined, size: number) => Promise<Page<T>>,
    limit: number | undefined,
    pageSize: number,
  ) {
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
      throw new RangeError("limit must be a whole number, 0 or more");
    }
    if (!(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000)) {
      throw new RangeError("pageSize must be a whole number between 1 and 1000");
    }
    this.#fetch = fetch;
    this.#limit = limit;
    this.#pageSize = pageSize;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    const limit = this.#limit;
    let seen = 0;
    let cursor: string | undefined;
    while (limit === undefined || seen < limit) {
      const size = limit === undefined ? this.#pageSize : Math.min(this.#pageSize, limit - seen);
      const page = await this.#fetch(cursor, size);
      for (const item of page.items) {
        if (limit !== undefined && seen >= limit) return;
        seen++;
        yield item;
      }
      if (!page.nextCursor || page.items.length === 0) return;
      cursor = page.nextCursor;
    }
  }

  /** Every item (or the first `limit`), fetching every page needed. */
  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) out.push(item);
    return out;
  }
}
