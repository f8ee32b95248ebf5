/** The two front doors over the one table: wording differs per door, behaviour never does. */
export type FrontDoor = 'cli' | 'mcp';
