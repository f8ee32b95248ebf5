import * as z from 'zod';

/** An input a command may leave out, described for its flag and its tool: the table's commonest two. */
export const optionalText = (describe: string) => z.string().optional().describe(describe);
export const optionalSwitch = (describe: string) => z.boolean().optional().describe(describe);
