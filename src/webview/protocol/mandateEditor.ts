/** The mandate form (create and edit): human only, never a workspace file. */
import type { Message, ReadyCommand } from './messages.ts';
import { isMessage, isRecord, isString, isStringArray } from './messages.ts';

/** The form's fields, as text the human typed (validated on the host). */
export interface MandateFormValues {
  id: string;
  grantee: string;
  currency: string;
  total: string;
  perDay: string;
  perCall: string;
  threshold: string;
  toolsets: string[];
  capabilities: string;
  regions: string;
  retentionDays: string;
  training: boolean;
  expiresAt: string;
  status: 'active' | 'suspended' | 'revoked';
}

/** What the form shows. */
export interface MandateEditorState {
  mode: 'create' | 'edit';
  values: MandateFormValues;
  /** Field → problem, from the host's validation. */
  errors: Partial<Record<keyof MandateFormValues | 'form', string>>;
  saved: boolean;
}

/** Host → view: the whole state. */
export interface MandateEditorStateNotification extends Message<'state'> {
  state: MandateEditorState;
}

/** View → host: save these values. */
export interface SaveMandateCommand extends Message<'save'> {
  values: MandateFormValues;
}

/** View → host: close without saving. */
export type CancelCommand = Message<'cancel'>;

/** Everything the form may send. */
export type MandateEditorCommand = ReadyCommand | SaveMandateCommand | CancelCommand;

/** True for a state notification of this form. */
export function isMandateEditorState(value: unknown): value is MandateEditorStateNotification {
  return isMessage(value) && value.type === 'state' && typeof (value as MandateEditorStateNotification).state === 'object';
}

/** The toolsets a mandate can offer, in the order the form lists them (DESIGN.md §5). */
export const MANDATE_TOOLSETS = ['market', 'terms', 'money', 'commerce', 'memory', 'records', 'office'] as const;

/** The statuses a mandate can have. */
export const MANDATE_STATUSES = ['active', 'suspended', 'revoked'] as const satisfies readonly MandateFormValues['status'][];

/** The text fields of the form (every field but `toolsets`, `training` and `status`). */
export const MANDATE_TEXT_FIELDS = [
  'id',
  'grantee',
  'currency',
  'total',
  'perDay',
  'perCall',
  'threshold',
  'capabilities',
  'regions',
  'retentionDays',
  'expiresAt',
] as const satisfies readonly (keyof MandateFormValues)[];

/** True for a mandate status. */
export function isMandateStatus(value: unknown): value is MandateFormValues['status'] {
  return (MANDATE_STATUSES as readonly unknown[]).includes(value);
}

/** True for well-formed form values. */
export function isMandateFormValues(value: unknown): value is MandateFormValues {
  return (
    isRecord(value) &&
    MANDATE_TEXT_FIELDS.every((k) => isString(value[k])) &&
    isStringArray(value['toolsets']) &&
    typeof value['training'] === 'boolean' &&
    isMandateStatus(value['status'])
  );
}

/** True for a whole, well-formed form state (what a state notification carries, and what the form saves). */
export function isMandateEditorStateValue(value: unknown): value is MandateEditorState {
  return (
    isRecord(value) &&
    (value['mode'] === 'create' || value['mode'] === 'edit') &&
    isMandateFormValues(value['values']) &&
    isRecord(value['errors']) &&
    Object.values(value['errors']).every((v) => v === undefined || isString(v)) &&
    typeof value['saved'] === 'boolean'
  );
}

/** True for any command the form may send, with the right field types (the host still validates with zod). */
export function isMandateEditorCommand(value: unknown): value is MandateEditorCommand {
  if (!isMessage(value) || !isRecord(value)) return false;
  switch (value.type) {
    case 'ready':
    case 'cancel':
      return true;
    case 'save':
      return isMandateFormValues(value['values']);
    default:
      return false;
  }
}
