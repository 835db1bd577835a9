/** The mandate form (create and edit): human only, never a workspace file. */
import type { Message, ReadyCommand } from './messages.ts';
import { isMessage } from './messages.ts';

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
