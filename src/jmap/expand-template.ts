/** Expands an RFC 6570 level-1 template such as `/download/{accountId}/{blobId}/{name}?accept={type}`. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    values[key] === undefined ? whole : encodeURIComponent(values[key]),
  );
}
