/** go-yaml v2's scanner tokens, as the scanner (`yaml-go-scanner.ts`) and its scalar scanners (`yaml-go-scalars.ts`) make them. */
import type { Mark } from './yaml-go-fault.js';

export type TokenType =
  | 'STREAM_START'
  | 'STREAM_END'
  | 'VERSION_DIRECTIVE'
  | 'TAG_DIRECTIVE'
  | 'DOCUMENT_START'
  | 'DOCUMENT_END'
  | 'BLOCK_SEQUENCE_START'
  | 'BLOCK_MAPPING_START'
  | 'BLOCK_END'
  | 'FLOW_SEQUENCE_START'
  | 'FLOW_SEQUENCE_END'
  | 'FLOW_MAPPING_START'
  | 'FLOW_MAPPING_END'
  | 'BLOCK_ENTRY'
  | 'FLOW_ENTRY'
  | 'KEY'
  | 'VALUE'
  | 'ALIAS'
  | 'ANCHOR'
  | 'TAG'
  | 'SCALAR';

export type ScalarStyle = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL' | 'BLOCK_FOLDED';

export interface Token {
  type: TokenType;
  start: Mark;
  end: Mark;
  /** Scalar text, anchor or alias name, tag handle, %TAG handle. */
  value?: string;
  /** Tag suffix or %TAG prefix. */
  suffix?: string;
  style?: ScalarStyle;
  major?: number;
  minor?: number;
}
