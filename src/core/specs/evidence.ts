// Evidence for a phase's validation gate: one non-empty entry per gate item, keyed by its number (1-based) or its
// text, or a list in gate order. What is missing is named by the items' text.
import { BatonError, echo } from '../errors.js';
import type { EvidenceInput } from '../specTypes.js';

/** The evidence aligned with the gate: one string per item, empty where none was given. */
export function alignEvidence(gate: readonly string[], input: EvidenceInput | undefined): string[] {
  const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v.trim() : JSON.stringify(v));
  if (input === undefined || input === null) return gate.map(() => '');
  if (Array.isArray(input)) return gate.map((_, i) => text(input[i]));
  if (typeof input !== 'object') return gate.map(() => '');
  const entries = Object.entries(input);
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');
  return gate.map((item, i) => {
    const byNumber = entries.find(([k]) => k.trim() === String(i + 1));
    const byText = entries.find(([k]) => norm(k) === norm(item));
    return text((byNumber ?? byText)?.[1]);
  });
}

/** The keys of object evidence that name no item of `gate` (a number out of range, a misspelt item's text). */
export function unmatchedKeys(gate: readonly string[], input: EvidenceInput | undefined): string[] {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) return [];
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');
  const items = new Set(gate.map(norm));
  return Object.keys(input).filter((k) => !(/^\d+$/.test(k.trim()) && Number(k) >= 1 && Number(k) <= gate.length) && !items.has(norm(k)));
}

/** The gate items `evidence` leaves without an entry. */
export function missingEvidence(gate: readonly string[], evidence: readonly string[]): string[] {
  return gate.filter((_, i) => !evidence[i]);
}

/** Checks `input` against `gate`; returns the aligned evidence or throws `evidence_incomplete` listing what is missing. */
export function checkEvidence(phaseLabel: string, gate: readonly string[], input: EvidenceInput | undefined): string[] {
  const evidence = alignEvidence(gate, input);
  const missing = missingEvidence(gate, evidence);
  if (missing.length) {
    // A key that names no item (`"9"` of 4, a misspelt item) is why its entry counted for nothing: say so.
    const unmatched = unmatchedKeys(gate, input);
    const shown = unmatched.slice(0, 5).map((k) => echo(k, 60)).join(', ') + (unmatched.length > 5 ? ` and ${unmatched.length - 5} more` : '');
    const stray = unmatched.length ? ` The key${unmatched.length > 1 ? 's' : ''} ${shown} name${unmatched.length > 1 ? '' : 's'} no item of this gate.` : '';
    throw new BatonError(
      'evidence_incomplete',
      `${phaseLabel} is not complete: its validation gate needs evidence for ${missing.length === gate.length ? 'every item' : `${missing.length} more item${missing.length > 1 ? 's' : ''}`}: ` +
        `${missing.map((m) => `"${m}"`).join('; ')}.${stray} Submit again with evidence as an object keyed by item number (1 to ${gate.length}), one non-empty entry each; the phase stays open.`,
      { missing, gate, ...(unmatched.length ? { unmatched: unmatched.slice(0, 5) } : {}) },
    );
  }
  return evidence;
}
