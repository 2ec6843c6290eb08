// Parses the query forms of the `workflow-artifacts://` resource.
import type { ArtifactQuery } from '../api.js';
import { BatonError } from '../errors.js';

const SCHEMES = ['workflow-artifacts://', 'workflow_artifacts://'];
const MAX_LIMIT = 500;

const VALID_FORMS = [
  'workflow-artifacts://recent?limit=50',
  'workflow-artifacts://type/{artifact_type}?limit=100',
  'workflow-artifacts://final',
  'workflow-artifacts://final/{execution_id}',
  'workflow-artifacts://{execution_id}',
  'workflow-artifacts://{execution_id}?final=true',
  'workflow-artifacts://{execution_id}#{artifact_id}',
].join(', ');

function invalid(uri: string, why: string): BatonError {
  return new BatonError('invalid_input', `Cannot read '${uri}': ${why}. Valid forms: ${VALID_FORMS} (limit 1-500).`, { uri });
}

function decode(uri: string, part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw invalid(uri, `'${part}' is not valid percent-encoding`);
  }
}

function parseParams(uri: string, query: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(uri, eq < 0 ? pair : pair.slice(0, eq));
    if (params.has(key)) throw invalid(uri, `parameter '${key}' is given twice`);
    params.set(key, decode(uri, eq < 0 ? '' : pair.slice(eq + 1)));
  }
  return params;
}

function parseLimit(uri: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[+-]?\d+$/.test(raw.trim())) throw invalid(uri, `limit '${raw}' is not a whole number`);
  return Math.min(MAX_LIMIT, Math.max(1, Number(raw)));
}

/** `final=true` → true; `final=false` → undefined (all artifacts, as without the parameter). */
function parseFinal(uri: string, raw: string | undefined): true | undefined {
  if (raw === undefined || raw === 'false') return undefined;
  if (raw === 'true') return true;
  throw invalid(uri, `final must be 'true' or 'false', not '${raw}'`);
}

/** Parses a `workflow-artifacts://` (or spec spelling `workflow_artifacts://`) URI; throws `invalid_input` listing the valid forms. */
export function parseArtifactsUri(uri: string): ArtifactQuery {
  const scheme = SCHEMES.find((s) => uri.toLowerCase().startsWith(s));
  if (!scheme) throw invalid(uri, 'the URI must start with workflow-artifacts://');
  const [rest = '', ...fragments] = uri.slice(scheme.length).split('#');
  const fragment = fragments.join('#');
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  const params = parseParams(uri, q < 0 ? '' : rest.slice(q + 1));
  const segments = path.split('/').filter((s) => s !== '').map((s) => decode(uri, s));
  const query = parseQuery(uri, segments, params);
  // `{execution_id}#{artifact_id}` (the URI a cut artifact points to) reads that one artifact; other forms ignore it.
  return query.type === 'execution' && fragment !== '' ? { ...query, artifact_id: decode(uri, fragment), limit: 1 } : query;
}

function parseQuery(uri: string, segments: string[], params: Map<string, string>): ArtifactQuery {
  const allowOnly = (...names: string[]) => {
    const extra = [...params.keys()].filter((k) => !names.includes(k));
    if (extra.length > 0) throw invalid(uri, `unknown parameter${extra.length > 1 ? 's' : ''} ${extra.map((k) => `'${k}'`).join(', ')}`);
  };
  const [first, second, ...more] = segments;
  if (first === undefined) throw invalid(uri, 'no query was given');
  if (more.length > 0) throw invalid(uri, 'too many path segments');
  if (first === 'recent' && second === undefined) {
    allowOnly('limit');
    return { type: 'recent', limit: parseLimit(uri, params.get('limit'), 50) };
  }
  if (first === 'type') {
    if (second === undefined) throw invalid(uri, 'type/ needs an artifact type, such as type/design_doc');
    allowOnly('limit');
    return { type: 'by_type', artifact_type: second, limit: parseLimit(uri, params.get('limit'), 100) };
  }
  if (first === 'final') {
    allowOnly('limit');
    const limit = parseLimit(uri, params.get('limit'), 50);
    return second === undefined ? { type: 'final', limit } : { type: 'execution', execution_id: second, is_final: true, limit };
  }
  if (second !== undefined) throw invalid(uri, `'${first}/${second}' is not a known form`);
  allowOnly('limit', 'final');
  const limit = parseLimit(uri, params.get('limit'), 50);
  const isFinal = parseFinal(uri, params.get('final'));
  return isFinal ? { type: 'execution', execution_id: first, is_final: true, limit } : { type: 'execution', execution_id: first, limit };
}
