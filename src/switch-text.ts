/** An on/off setting as text: anything but empty, 0 or false (in any case) is on. */
export const isSwitchOn = (raw: string): boolean => raw !== '' && raw !== '0' && raw.toLowerCase() !== 'false';
