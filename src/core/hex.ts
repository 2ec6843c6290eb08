// Hex text of bytes without platform globals (the core bundles for a neutral platform).

/** The two lowercase hex digits of each byte value. */
export const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
